import { type FormEvent, useEffect, useState } from 'react';
import { ApiFailure } from '../api/client';
import { useSegments, useServerInfo } from '../api/queries';
import type { Ok } from '../api/types';
import { SegmentOptions } from '../ui/SegmentOptions';
import { Loaded } from '../ui/states';
import { DeliveryLog } from './DeliveryLog';
import { MyDigest } from './MyDigest';
import { type NewRule, useNotificationRules, useRuleChanges, useRuleLog } from './queries';
import { OwnerFilter, useOwnerName } from './RuleOwner';
import { Switch } from './Switch';
import { BROWSER_ZONE, ZONES } from './time-zones';

type Rule = Ok<'/v1/workspaces/{workspaceUuid}/notifications', 'get'>['data'][number];
type Trigger = Rule['trigger'];
type Channel = Rule['channel']['type'];
const TRIGGERS: [Trigger, string][] = [
  ['organisation.visited', 'An organisation starts a visit'],
  ['page.visited', 'An organisation views a page'],
  ['segment.entered', 'An organisation enters a segment'],
  ['digest.daily', 'Daily digest (07:00)'],
  ['digest.weekly', 'Weekly digest (Monday 07:00)'],
];

/** Alerts and digests by e-mail, Slack or webhook, each with a test and its log. */
export function Notifications({ workspace }: { workspace: string }) {
  const { rules, create } = useNotificationRules(workspace);
  const mailOn = useServerInfo().data?.mail !== false;

  return (
    <section className="card" id="notifications" aria-labelledby="notifications-heading">
      <h2 id="notifications-heading">Notifications</h2>
      <MyDigest workspace={workspace} />
      <Loaded query={rules} what="notification rules">
        {(data) =>
          data.length === 0 ? (
            <p className="muted small">
              No alerts yet. Add one below: {mailOn ? 'an e-mail or' : 'a'} Slack message when a
              target account visits.
            </p>
          ) : (
            data.map((rule) => <RuleItem key={rule.uuid} workspace={workspace} rule={rule} />)
          )
        }
      </Loaded>
      <RuleForm
        workspace={workspace}
        title="New alert"
        submit="Add alert"
        pending={create.isPending}
        error={create.error}
        onSubmit={(body, _, done) => create.mutate(body, { onSuccess: done })}
      />
    </section>
  );
}

/**
 * The fields of a rule, new or edited. Secrets are never shown back: editing a Slack or
 * webhook rule keeps its channel unless a new URL or secret is typed.
 */
function RuleForm({
  workspace,
  rule,
  title,
  submit,
  pending,
  error,
  onSubmit,
  onCancel,
}: {
  workspace: string;
  rule?: Rule;
  title: string;
  submit: string;
  pending: boolean;
  error: Error | null;
  /** `keepChannel`: the channel's secrets were left blank, so leave the channel as it is. */
  onSubmit: (body: NewRule, keepChannel: boolean, done: () => void) => void;
  onCancel?: () => void;
}) {
  const segments = useSegments(workspace);
  // E-mail is offered only when the server sends it; a rule that already mails keeps it.
  const mailOn = useServerInfo().data?.mail !== false;
  const offerEmail = mailOn || rule?.channel.type === 'email';
  const initialChannel: Channel = rule?.channel.type ?? (mailOn ? 'email' : 'slack');
  const [trigger, setTrigger] = useState<Trigger>(rule?.trigger ?? 'organisation.visited');
  const [channel, setChannel] = useState<Channel>(initialChannel);
  const [toOwner, setToOwner] = useState(rule?.channel.to_owner ?? false);
  // The server's answer may come after the form was drawn with e-mail chosen.
  useEffect(() => {
    if (!offerEmail && channel === 'email') setChannel('slack');
  }, [offerEmail, channel]);
  const digest = trigger.startsWith('digest.');
  // A digest is about many organisations: it has no one owner to mail.
  const mailsOwner = toOwner && !digest;
  const keeps = rule !== undefined && rule.channel.type === channel && channel !== 'email';
  const id = rule ? `rule-${rule.uuid}` : 'rule-new';

  function send(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const element = event.currentTarget;
    const form = new FormData(element);
    const text = (name: string) => String(form.get(name) ?? '').trim();
    const kept =
      keeps &&
      ((channel === 'slack' && !text('slack')) ||
        (channel === 'webhook' && !text('secret') && text('hook') === rule?.channel.url));
    const body: NewRule = {
      name: text('name'),
      trigger,
      timezone: (digest && text('timezone')) || rule?.timezone || BROWSER_ZONE,
      filter: {
        segment_uuid: text('segment') || null,
        owner: text('owner') || null,
        url_contains: trigger === 'page.visited' ? text('url') || null : null,
      },
      channel:
        channel === 'email'
          ? {
              type: 'email',
              to: text('to')
                .split(/[\s,;]+/)
                .filter(Boolean),
              to_owner: mailsOwner,
            }
          : channel === 'slack'
            ? { type: 'slack', webhook_url: text('slack') }
            : { type: 'webhook', url: text('hook'), secret: text('secret') },
    };
    onSubmit(body, kept, () => {
      element.reset();
      setTrigger(rule?.trigger ?? 'organisation.visited');
      setChannel(initialChannel);
      setToOwner(rule?.channel.to_owner ?? false);
    });
  }
  const failure = error instanceof ApiFailure ? error : undefined;

  return (
    <form className="subsection stack" onSubmit={send} aria-labelledby={id}>
      <h3 id={id}>{title}</h3>
      <div className="inline-form">
        <label>
          Alert name
          <input
            name="name"
            required
            maxLength={255}
            defaultValue={rule?.name}
            placeholder="Target accounts on pricing"
          />
        </label>
        <label>
          When
          <select value={trigger} onChange={(e) => setTrigger(e.target.value as Trigger)}>
            {TRIGGERS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Only organisations in
          <select
            name="segment"
            // The segments arrive after the form: choose the rule's once they are there.
            key={segments.data ? 'segments' : 'loading'}
            defaultValue={rule?.filter.segment_uuid ?? ''}
          >
            <option value="">Any segment</option>
            <SegmentOptions segments={segments.data} />
          </select>
        </label>
        <OwnerFilter workspace={workspace} defaultValue={rule?.filter.owner ?? ''} />
        {digest ? (
          <label>
            Time zone
            <select name="timezone" defaultValue={rule?.timezone ?? BROWSER_ZONE}>
              {[...new Set([...(rule ? [rule.timezone] : []), ...ZONES])].map((zone) => (
                <option key={zone} value={zone}>
                  {zone.replaceAll('_', ' ')}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        {trigger === 'page.visited' ? (
          <label>
            URL contains
            <input
              name="url"
              required
              defaultValue={rule?.filter.url_contains ?? ''}
              placeholder="/pricing"
            />
          </label>
        ) : null}
      </div>
      <div className="inline-form">
        <label>
          Send by
          <select value={channel} onChange={(e) => setChannel(e.target.value as Channel)}>
            {offerEmail ? <option value="email">E-mail</option> : null}
            <option value="slack">Slack</option>
            <option value="webhook">Webhook</option>
          </select>
        </label>
        {channel === 'email' ? (
          <>
            {digest ? null : (
              <label className="checkbox-label">
                <input
                  type="checkbox"
                  checked={toOwner}
                  onChange={(e) => setToOwner(e.target.checked)}
                />
                To the organisation’s owner
              </label>
            )}
            <label>
              {mailsOwner ? 'Else to (addresses)' : 'To (addresses)'}
              <input
                name="to"
                required={!mailsOwner}
                defaultValue={rule?.channel.to?.join(', ')}
                placeholder={mailsOwner ? 'when it has no owner' : 'sales@company.com'}
              />
            </label>
          </>
        ) : channel === 'slack' ? (
          <label>
            Slack incoming-webhook URL
            <input
              name="slack"
              type="url"
              required={!keeps}
              placeholder={
                keeps
                  ? `Unchanged (${rule?.channel.webhook_url})`
                  : 'https://hooks.slack.com/services/…'
              }
            />
          </label>
        ) : (
          <>
            <label>
              Receiver URL
              <input
                name="hook"
                type="url"
                required
                defaultValue={keeps ? rule?.channel.url : undefined}
              />
            </label>
            <label>
              Signing secret
              <input
                name="secret"
                type="password"
                minLength={16}
                required={!keeps}
                autoComplete="new-password"
                placeholder={keeps ? 'Unchanged (never shown)' : 'At least 16 characters'}
              />
            </label>
          </>
        )}
        <button type="submit" className="button primary" disabled={pending}>
          {submit}
        </button>
        {onCancel ? (
          <button type="button" className="button quiet" onClick={onCancel}>
            Cancel
          </button>
        ) : null}
      </div>
      {mailOn ? null : (
        <p className={channel === 'email' ? 'status-warn' : 'muted small'}>
          {channel === 'email'
            ? 'This server sends no e-mail (SMTP_URL is not set): this alert’s e-mails are not sent.'
            : 'E-mail is not offered: this server sends no e-mail (SMTP_URL is not set).'}
        </p>
      )}
      {keeps && channel === 'webhook' ? (
        <p className="muted small">A new receiver URL needs its signing secret again.</p>
      ) : null}
      {failure ? (
        <p className="form-error" role="alert">
          {Object.entries(failure.body?.errors ?? {}).map(
            ([field, messages]) => `${field}: ${messages[0]}`,
          )[0] ?? failure.message}
        </p>
      ) : null}
    </form>
  );
}

function RuleItem({ workspace, rule }: { workspace: string; rule: Rule }) {
  const [open, setOpen] = useState(false);
  const [editing, setEditing] = useState(false);
  const { change, remove, test } = useRuleChanges(workspace, rule.uuid, () => setOpen(true));
  const toggle = {
    isPending: change.isPending,
    mutate: (enabled: boolean) => change.mutate({ enabled }),
  };
  const log = useRuleLog(workspace, rule.uuid, open);
  const owner = useOwnerName(workspace, rule.filter.owner);
  const addresses = rule.channel.to?.join(', ') ?? '';
  const where =
    rule.channel.type === 'email'
      ? rule.channel.to_owner
        ? `e-mail to the owner${addresses ? `, else ${addresses}` : ''}`
        : `e-mail to ${addresses}`
      : rule.channel.type === 'slack'
        ? 'Slack'
        : `webhook to ${rule.channel.url}`;
  const trigger = TRIGGERS.find(([value]) => value === rule.trigger)?.[1] ?? rule.trigger;
  return (
    <div className="subsection" style={{ borderTop: '1px solid var(--border)', paddingTop: 10 }}>
      <Switch
        label={rule.name}
        description={`${trigger}${rule.trigger.startsWith('digest.') ? ` in ${rule.timezone}` : ''}${rule.filter.url_contains ? ` containing “${rule.filter.url_contains}”` : ''}${owner ? `, owned by ${owner}` : ''} → ${where}`}
        checked={rule.enabled}
        disabled={toggle.isPending}
        onChange={(on) => toggle.mutate(on)}
      />
      <div className="row">
        <button
          type="button"
          className="button small"
          onClick={() => test.mutate()}
          disabled={test.isPending}
        >
          Send test<span className="visually-hidden"> of {rule.name}</span>
        </button>
        <button
          type="button"
          className="button small quiet"
          aria-expanded={open}
          onClick={() => setOpen(!open)}
        >
          {open ? 'Hide log' : 'Show log'}
          <span className="visually-hidden"> of {rule.name}</span>
        </button>
        <button
          type="button"
          className="button small quiet"
          aria-expanded={editing}
          onClick={() => setEditing(!editing)}
        >
          Edit<span className="visually-hidden"> {rule.name}</span>
        </button>
        <button
          type="button"
          className="button small quiet danger"
          onClick={() => window.confirm(`Delete the alert “${rule.name}”?`) && remove.mutate()}
        >
          Delete<span className="visually-hidden"> {rule.name}</span>
        </button>
        <span role="status" className="muted small">
          {test.isSuccess ? 'Test sent; see the log.' : ''}
        </span>
      </div>
      {editing ? (
        <RuleForm
          workspace={workspace}
          rule={rule}
          title={`Edit “${rule.name}”`}
          submit="Save alert"
          pending={change.isPending}
          error={change.error}
          onSubmit={({ channel, ...rest }, keepChannel) =>
            change.mutate(keepChannel ? rest : { ...rest, channel }, {
              onSuccess: () => setEditing(false),
            })
          }
          onCancel={() => setEditing(false)}
        />
      ) : null}
      {open ? (
        <Loaded query={log} what="the log">
          {(data) => (
            <DeliveryLog
              label={`Deliveries of ${rule.name}`}
              deliveries={data.map((d) => ({ ...d, what: d.test ? 'Test' : d.kind }))}
            />
          )}
        </Loaded>
      ) : null}
    </div>
  );
}
