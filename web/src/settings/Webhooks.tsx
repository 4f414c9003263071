import { type FormEvent, useState } from 'react';
import { ChangeFailed, Loaded } from '../ui/states';
import { DeliveryLog } from './DeliveryLog';
import { useWebhook, useWebhookChanges, useWebhookDeliveries } from './queries';

const KINDS = [
  ['session.ended', 'A session of an identified organisation ended'],
  ['event.tracked', 'Every tracked event (busy)'],
  ['organisation.identified', 'A new organisation was identified'],
  ['organisation.returned', 'A known organisation came back'],
  ['segment.entered', 'An organisation entered a segment'],
] as const;
type Kind = (typeof KINDS)[number][0];

/** Signed webhooks to your own systems (they belong to you and cover all your workspaces). */
export function Webhooks() {
  const config = useWebhook();
  const [status, setStatus] = useState('');
  const deliveries = useWebhookDeliveries(status);
  const { save, test, redeliver } = useWebhookChanges();

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const secret = String(form.get('secret') ?? '');
    save.mutate({
      webhook_url: String(form.get('url')).trim(),
      ...(secret ? { webhook_secret: secret } : {}),
      events: form.getAll('events').map(String) as Kind[],
    });
  }
  const failure = save.error ?? test.error ?? redeliver.error;

  return (
    <section className="card" id="webhooks" aria-labelledby="webhooks-heading">
      <h2 id="webhooks-heading">Webhooks</h2>
      <p className="muted small">
        Signed POSTs to your own system for every workspace you are a member of. See the docs for
        checking the signature.
      </p>
      <Loaded query={config} what="webhook settings">
        {(data) => (
          <form className="stack" onSubmit={submit} key={JSON.stringify(data)}>
            <label className="field">
              <span>Webhook URL</span>
              <input
                name="url"
                type="url"
                required
                defaultValue={data?.webhook_url ?? ''}
                placeholder="https://hooks.example.com/footfall"
              />
            </label>
            <label className="field">
              <span>Signing secret</span>
              <input
                name="secret"
                type="password"
                autoComplete="new-password"
                minLength={16}
                required={!data}
                placeholder={data ? 'Unchanged (set; never shown)' : 'At least 16 characters'}
              />
            </label>
            <fieldset>
              <legend style={{ fontWeight: 600 }}>Events to send</legend>
              {KINDS.map(([kind, text]) => (
                <label key={kind} className="event-choice small">
                  <input
                    type="checkbox"
                    name="events"
                    value={kind}
                    defaultChecked={data ? data.events.includes(kind) : true}
                  />
                  <code>{kind}</code>
                  <span className="muted">{text}</span>
                </label>
              ))}
            </fieldset>
            <div className="row">
              <button type="submit" className="button primary" disabled={save.isPending}>
                Save webhook
              </button>
              <button
                type="button"
                className="button"
                disabled={!data || test.isPending}
                onClick={() => test.mutate()}
              >
                Send test
              </button>
              {data ? (
                <button
                  type="button"
                  className="button quiet danger"
                  onClick={() => save.mutate({ webhook_url: null })}
                >
                  Turn off
                </button>
              ) : null}
              <span role="status" className="muted small">
                {save.isSuccess
                  ? 'Saved.'
                  : test.isSuccess
                    ? 'Test ping queued; see the log below.'
                    : ''}
              </span>
            </div>
          </form>
        )}
      </Loaded>
      <ChangeFailed error={failure} fieldFirst />
      <div className="subsection">
        <div className="row">
          <h3 style={{ margin: 0 }}>Deliveries</h3>
          <label className="small">
            <span className="visually-hidden">Show deliveries</span>
            <select
              aria-label="Show deliveries"
              value={status}
              onChange={(e) => setStatus(e.target.value)}
            >
              <option value="">All</option>
              <option value="pending">Pending</option>
              <option value="delivered">Delivered</option>
              <option value="failed">Failed</option>
            </select>
          </label>
        </div>
        <Loaded query={deliveries} what="deliveries">
          {(data) => (
            <DeliveryLog
              label="Webhook deliveries"
              deliveries={data.map((d) => ({ ...d, what: d.event }))}
              action={(d) =>
                d.status === 'pending' ? null : (
                  <button
                    type="button"
                    className="button small"
                    onClick={() => redeliver.mutate(d.uuid)}
                  >
                    Redeliver
                    <span className="visually-hidden">
                      {' '}
                      {d.what} of {d.created_at}
                    </span>
                  </button>
                )
              }
            />
          )}
        </Loaded>
      </div>
    </section>
  );
}
