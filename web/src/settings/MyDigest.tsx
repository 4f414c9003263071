import { useServerInfo } from '../api/queries';
import { ChangeFailed, ErrorState, Loading } from '../ui/states';
import { useMyDigest } from './queries';
import { Switch } from './Switch';
import { BROWSER_ZONE } from './time-zones';

/** The signed-in person's own daily e-mail of the organisations they own that visited. */
export function MyDigest({ workspace }: { workspace: string }) {
  const [digest, change] = useMyDigest(workspace);
  const mailOn = useServerInfo().data?.mail !== false;
  if (!digest.data) {
    return digest.isError ? (
      <ErrorState what="your digest" error={digest.error} />
    ) : (
      <Loading what="your digest" />
    );
  }
  const { enabled, timezone, rule_uuid } = digest.data;
  // A digest switched on before keeps its time zone; a first one takes the browser's.
  const zone = rule_uuid ? timezone : BROWSER_ZONE;
  return (
    <div className="my-digest">
      <Switch
        label="My accounts digest"
        description={`Each morning at 07:00 (${zone.replaceAll('_', ' ')}), an e-mail to you of the organisations you own that visited, highest score first.`}
        checked={enabled}
        disabled={change.isPending}
        onChange={(on) =>
          change.mutate(on && !rule_uuid ? { enabled: true, timezone: zone } : { enabled: on })
        }
      />
      {mailOn ? null : (
        <p className="muted small">
          This server sends no e-mail (<code>SMTP_URL</code> is not set): the digest is not sent.
        </p>
      )}
      <ChangeFailed error={change.error} />
    </div>
  );
}
