import { type FormEvent, useEffect, useState } from 'react';
import { ApiFailure } from '../api/client';
import { useInstallation, useServerInfo, useWorkspace } from '../api/queries';
import { CopyButton } from '../ui/CopyButton';
import { ago, count, dateTime } from '../ui/format';
import { ErrorState, Loaded, Loading } from '../ui/states';
import { isPrivateHost } from './private-address';
import { usePrivacy, useTrackerFeatures, useVisitFilters } from './queries';
import { Switch } from './Switch';

const REASONS: Record<string, string> = {
  bot: 'from bots',
  foreign_hostname: 'from pages on a hostname you have not accepted',
  excluded_ip_range: 'from your excluded IP ranges',
  gpc: 'from browsers asking not to be tracked (Global Privacy Control)',
  feature_disabled: 'of a kind you switched off',
};

/** What to do when everything recent was dropped for this reason. */
const ADVICE: Record<string, string> = {
  bot: 'open your site in an ordinary browser (automated browsers and scripts count as bots)',
  foreign_hostname:
    'add the hostname your site runs on to the accepted hostnames below (a staging or second domain too)',
  excluded_ip_range:
    'test from another network, or take your own address out of the excluded IP ranges below',
  gpc: 'test from a browser without Global Privacy Control, or switch off "Honour Global Privacy Control" below',
  feature_disabled: 'switch the kind of tracking back on below',
};

const FEATURES = [
  [
    'form_tracking',
    'Form tracking',
    'Form submissions and abandons, with their non-sensitive fields',
  ],
  ['click_tracking', 'Click tracking', 'Clicks on links and buttons'],
  ['download_tracking', 'Download tracking', 'Downloads of files such as PDFs'],
] as const;

/** The snippet, whether it works, and what it may collect. */
export function Tracking({ workspace }: { workspace: string }) {
  const info = useWorkspace(workspace);
  return (
    <section className="card" id="tracking" aria-labelledby="tracking-heading">
      <h2 id="tracking-heading">Tracking</h2>
      {info.isPending ? (
        <Loading what="the snippet" />
      ) : info.isError ? (
        <ErrorState what="the workspace" error={info.error} />
      ) : (
        <>
          <p className="muted small">
            Paste this into every page of {info.data.url}, just before <code>&lt;/head&gt;</code>.
          </p>
          <pre className="snippet">
            <code>{info.data.tracking_script_snippet}</code>
          </pre>
          <CopyButton text={info.data.tracking_script_snippet} label="Copy snippet" />
          <PrivateAddressWarning snippet={info.data.tracking_script_snippet} />
        </>
      )}
      <InstallationStatus workspace={workspace} />
      <Features workspace={workspace} />
      <Privacy workspace={workspace} />
      <Filters workspace={workspace} />
    </section>
  );
}

/**
 * Without PUBLIC_URL the snippet names the address this dashboard was reached on; when that
 * is a loopback or private address, visitors' browsers elsewhere cannot load the script.
 */
function PrivateAddressWarning({ snippet }: { snippet: string }) {
  const server = useServerInfo();
  const src = /"(https?:\/\/[^"]+?)\/t\/[^"/]+\.js"/.exec(snippet)?.[1];
  if (!server.data || server.data.public_url !== null || !src || !isPrivateHost(src)) return null;
  return (
    <p className="status-warn">
      This snippet loads the script from <code>{src}</code>, an address only this machine or your
      own network reaches: visitors elsewhere cannot load it. Set <code>PUBLIC_URL</code> to the
      address people reach Footfall at (for example <code>https://footfall.example.com</code>) and
      restart the server; the snippet then names it.
    </p>
  );
}

function InstallationStatus({ workspace }: { workspace: string }) {
  const status = useInstallation(workspace, 5_000);
  // Re-render each minute so "2 minutes ago" stays true.
  const [, tick] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => tick((n) => n + 1), 60_000);
    return () => clearInterval(timer);
  }, []);
  if (status.isPending) return <Loading what="the installation status" />;
  if (status.isError) return <ErrorState what="the installation status" error={status.error} />;
  const { last_event_at, events_24h, dropped_24h } = status.data;
  const dropped = Object.entries(dropped_24h.reasons).sort((a, b) => b[1] - a[1]);
  const reasons = dropped.map(
    ([reason, n]) => `${n.toLocaleString('en')} ${REASONS[reason] ?? reason}`,
  );
  const allDropped = events_24h === 0 && dropped_24h.total > 0;
  const advice = dropped.flatMap(([reason]) => (ADVICE[reason] ? [ADVICE[reason]] : []));
  return (
    <div className="subsection" aria-live="polite">
      <h3>Installation</h3>
      {last_event_at === null ? (
        <p className="status-warn">
          Waiting for the first event. Open a page of your site with the snippet; this updates by
          itself.
        </p>
      ) : (
        <p className={allDropped ? 'status-warn' : 'status-ok'}>
          Last event received {ago(last_event_at)} ({dateTime(last_event_at)}).{' '}
          {count(events_24h, 'event')} stored in the last 24 hours.
        </p>
      )}
      {dropped_24h.total > 0 ? (
        <p className="small">
          {count(dropped_24h.total, 'event')} dropped in the last 24 hours: {reasons.join('; ')}.
        </p>
      ) : null}
      {allDropped ? (
        <p className="status-warn" role="alert">
          Nothing your site sent in the last 24 hours was stored, so no visits or organisations show
          up. To fix it, {advice.length > 0 ? advice.join('; or ') : 'check the settings below'}.
        </p>
      ) : null}
    </div>
  );
}

function Features({ workspace }: { workspace: string }) {
  const [features, change] = useTrackerFeatures(workspace);
  return (
    <div className="subsection">
      <h3>What the script collects</h3>
      <Loaded query={features} what="the switches">
        {(data) =>
          FEATURES.map(([field, label, description]) => (
            <Switch
              key={field}
              label={label}
              description={description}
              checked={data[field]}
              disabled={change.isPending}
              onChange={(on) => change.mutate({ [field]: on })}
            />
          ))
        }
      </Loaded>
      {change.isError ? <ErrorState what="the change" error={change.error} /> : null}
      <p className="muted small">
        Pages already open pick up a change when they next load the script.
      </p>
    </div>
  );
}

function Privacy({ workspace }: { workspace: string }) {
  const [privacy, change] = usePrivacy(workspace);
  return (
    <div className="subsection">
      <h3>Privacy</h3>
      {privacy.data ? (
        <Switch
          label="Honour Global Privacy Control"
          description="Browsers that send Global Privacy Control are not tracked"
          checked={privacy.data.honor_gpc}
          disabled={change.isPending}
          onChange={(on) => change.mutate(on)}
        />
      ) : privacy.isError ? (
        <ErrorState what="privacy settings" error={privacy.error} />
      ) : (
        <Loading what="privacy settings" />
      )}
      {change.isError ? <ErrorState what="the change" error={change.error} /> : null}
    </div>
  );
}

function Filters({ workspace }: { workspace: string }) {
  const [filters, save] = useVisitFilters(workspace);
  const lines = (text: FormDataEntryValue | null) =>
    String(text ?? '')
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean);
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    save.mutate({
      excluded_ip_ranges: lines(form.get('ranges')),
      hostnames: lines(form.get('hostnames')),
    });
  }
  const failure = save.error instanceof ApiFailure ? save.error : undefined;
  if (!filters.data) {
    return filters.isError ? (
      <ErrorState what="filters" error={filters.error} />
    ) : (
      <Loading what="filters" />
    );
  }
  return (
    <form className="subsection stack" onSubmit={submit} key={JSON.stringify(filters.data)}>
      <h3>Which visits count</h3>
      <label className="field">
        <span>Excluded IP ranges</span>
        <textarea
          name="ranges"
          rows={3}
          defaultValue={filters.data.excluded_ip_ranges.join('\n')}
          placeholder="203.0.113.0/24"
          aria-describedby="ranges-help"
        />
        <small id="ranges-help" className="muted">
          One address or CIDR range per line: your own office, so your visits are not leads.
        </small>
      </label>
      <label className="field">
        <span>Accepted hostnames</span>
        <textarea
          name="hostnames"
          rows={3}
          defaultValue={filters.data.hostnames.join('\n')}
          aria-describedby="hosts-help"
        />
        <small id="hosts-help" className="muted">
          One per line; <code>*.example.com</code> for its subdomains. Pages elsewhere (a copied
          snippet) are dropped.
        </small>
      </label>
      {failure ? (
        <p className="form-error" role="alert">
          {failure.firstMessage()}
        </p>
      ) : null}
      <div>
        <button type="submit" className="button" disabled={save.isPending}>
          Save filters
        </button>{' '}
        {save.isSuccess ? (
          <span role="status" className="muted small">
            Saved.
          </span>
        ) : null}
      </div>
    </form>
  );
}
