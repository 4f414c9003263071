import { ago, dateTime } from '../ui/format';

interface Source {
  directory: boolean;
  website: string | null;
  fetched_at: string | null;
}

/** `acme.com` from `https://www.acme.com/en/`. */
const siteName = (url: string) => {
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return url;
  }
};

/**
 * Where the profile comes from, in one sentence: "Profile from the company directory",
 * "Profile from acme.com, read 3 days ago", or both.
 */
export function ProfileSource({ source }: { source: Source }) {
  const { directory, website, fetched_at: readAt } = source;
  if (!directory && !website) {
    return <p className="small muted">No profile yet: no directory entry, no homepage read.</p>;
  }
  return (
    <p className="small muted">
      Profile from {directory ? 'the company directory' : ''}
      {directory && website ? ' and from ' : ''}
      {website ? (
        <>
          <a href={website} rel="noopener noreferrer" target="_blank">
            {siteName(website)}
          </a>
          {readAt ? (
            <>
              , read{' '}
              <time dateTime={readAt} title={dateTime(readAt)}>
                {ago(readAt)}
              </time>
            </>
          ) : null}
        </>
      ) : null}
    </p>
  );
}
