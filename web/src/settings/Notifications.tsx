import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ApiFailure, api, unwrap } from '../api/client';
import { keys } from '../api/queries';
import type { Body, Ok } from '../api/types';
import { useSegments } from '../ui/segments';
import { ErrorState, Loading } from '../ui/states';
import { DeliveryLog } from './DeliveryLog';
import { Switch } from './Switch';

type Rule = Ok<'/v1/workspaces/{workspaceUuid}/notifications', 'get'>['data'][number];
type Trigger = Rule['trigger'];
const TRIGGERS: [Trigger, string][] = [
  ['organisation.visited', 'An organisation starts a visit'],
  ['page.visited', 'An organisation views a page'],
  ['segment.entered', 'An organisation enters a segment'],
  ['digest.daily', 'Daily digest (07:00)'],
  ['digest.weekly', 'Weekly digest (Monday 07:00)'],
];

const BROWSER_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;
/** Time zones the browser knows, with the person's own and UTC certainly among them. */
const ZONES = [...new Set([BROWSER_ZONE, 'UTC', ...Intl.supportedValuesOf('timeZone')])];

/** Alerts and digests by e-mail, Slack or webhook, each with a test and its log. */
export function Notifications({ workspace }: { workspace: string }) {
  const queryClient = useQueryClient();
  const key = keys.inWorkspace(workspace, 'notifications');
  const rules = useQuery({
    queryKey: key,
    queryFn: async () =>
      (
        await unwrap(
          api.GET('/v1/workspaces/{workspaceUuid}/notifications', {
            params: { path: { workspaceUuid: workspace } },
          }),
        )
      ).data,
  });
  const segments = useSegments(workspace);
  const refresh = () => queryClient.invalidateQueries({ queryKey: key });
  const [trigger, setTrigger] = useState<Trigger>('organisation.visited');
  const [channel, setChannel] = useState<'email' | 'slack' | 'webhook'>('email');
  const digest = trigger.startsWith('digest.');
  const create = useMutation({
    mutationFn: (body: Body<'/v1/workspaces/{workspaceUuid}/notifications', 'post'>) =>
      unwrap(
        api.POST('/v1/workspaces/{workspaceUuid}/notifications', {
          params: { path: { workspaceUuid: workspace } },
          body,
        }),
      ),
    onSuccess: refresh,
  });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const element = event.currentTarget;
    const form = new FormData(element);
    const text = (name: string) => String(form.get(name) ?? '').trim();
    const done = () => {
      element.reset();
      setTrigger('organisation.visited');
      setChannel('email');
    };
    create.mutate(
      {
        name: text('name'),
        trigger,
        timezone: (digest && text('timezone')) || BROWSER_ZONE,
        filter: {
          segment_uuid: text('segment') || null,
          url_contains: trigger === 'page.visited' ? text('url') || null : null,
        },
        channel:
          channel === 'email'
            ? {
                type: 'email',
                to: text('to')
                  .split(/[\s,;]+/)
                  .filter(Boolean),
              }
            : channel === 'slack'
              ? { type: 'slack', webhook_url: text('slack') }
              : { type: 'webhook', url: text('hook'), secret: text('secret') },
      },
      { onSuccess: done },
    );
  }
  const failure = create.error instanceof ApiFailure ? create.error : undefined;

  return (
    <section className="card" id="notifications" aria-labelledby="notifications-heading">
      <h2 id="notifications-heading">Notifications</h2>
      {rules.isPending ? (
        <Loading what="notification rules" />
      ) : rules.isError ? (
        <ErrorState what="notification rules" error={rules.error} />
      ) : rules.data.length === 0 ? (
        <p className="muted small">
          No alerts yet. Add one below: an e-mail or Slack message when a target account visits.
        </p>
      ) : (
        rules.data.map((rule) => (
          <RuleItem key={rule.uuid} workspace={workspace} rule={rule} onChange={refresh} />
        ))
      )}
      <form className="subsection stack" onSubmit={submit}>
        <h3>New alert</h3>
        <div className="inline-form">
          <label>
            Alert name
            <input name="name" required maxLength={255} placeholder="Target accounts on pricing" />
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
            <select name="segment" defaultValue="">
              <option value="">Any segment</option>
              {segments.data?.map((s) => (
                <option key={s.uuid} value={s.uuid}>
                  {s.name}
                </option>
              ))}
            </select>
          </label>
          {digest ? (
            <label>
              Time zone
              <select name="timezone" defaultValue={BROWSER_ZONE}>
                {ZONES.map((zone) => (
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
              <input name="url" required placeholder="/pricing" />
            </label>
          ) : null}
        </div>
        <div className="inline-form">
          <label>
            Send by
            <select value={channel} onChange={(e) => setChannel(e.target.value as typeof channel)}>
              <option value="email">E-mail</option>
              <option value="slack">Slack</option>
              <option value="webhook">Webhook</option>
            </select>
          </label>
          {channel === 'email' ? (
            <label>
              To (addresses)
              <input name="to" required placeholder="sales@company.com" />
            </label>
          ) : channel === 'slack' ? (
            <label>
              Slack incoming-webhook URL
              <input
                name="slack"
                type="url"
                required
                placeholder="https://hooks.slack.com/services/…"
              />
            </label>
          ) : (
            <>
              <label>
                Receiver URL
                <input name="hook" type="url" required />
              </label>
              <label>
                Signing secret
                <input
                  name="secret"
                  type="password"
                  minLength={16}
                  required
                  autoComplete="new-password"
                />
              </label>
            </>
          )}
          <button type="submit" className="button primary" disabled={create.isPending}>
            Add alert
          </button>
        </div>
        {failure ? (
          <p className="form-error" role="alert">
            {Object.entries(failure.body?.errors ?? {}).map(
              ([field, messages]) => `${field}: ${messages[0]}`,
            )[0] ?? failure.message}
          </p>
        ) : null}
      </form>
    </section>
  );
}

function RuleItem({
  workspace,
  rule,
  onChange,
}: {
  workspace: string;
  rule: Rule;
  onChange: () => void;
}) {
  const [open, setOpen] = useState(false);
  const path = { workspaceUuid: workspace, ruleUuid: rule.uuid };
  const toggle = useMutation({
    mutationFn: (enabled: boolean) =>
      unwrap(
        api.PATCH('/v1/workspaces/{workspaceUuid}/notifications/{ruleUuid}', {
          params: { path },
          body: { enabled },
        }),
      ),
    onSettled: onChange,
  });
  const remove = useMutation({
    mutationFn: () =>
      unwrap(
        api.DELETE('/v1/workspaces/{workspaceUuid}/notifications/{ruleUuid}', { params: { path } }),
      ),
    onSettled: onChange,
  });
  const test = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/v1/workspaces/{workspaceUuid}/notifications/{ruleUuid}/test', {
          params: { path },
        }),
      ),
    onSuccess: () => setOpen(true),
  });
  const log = useQuery({
    queryKey: keys.inWorkspace(workspace, 'notification-deliveries', rule.uuid),
    queryFn: async () =>
      (
        await unwrap(
          api.GET('/v1/workspaces/{workspaceUuid}/notifications/{ruleUuid}/deliveries', {
            params: { path, query: { page: 1, size: 10 } },
          }),
        )
      ).data,
    enabled: open,
    refetchInterval: open ? 5_000 : false,
  });
  const where =
    rule.channel.type === 'email'
      ? `e-mail to ${rule.channel.to?.join(', ')}`
      : rule.channel.type === 'slack'
        ? 'Slack'
        : `webhook to ${rule.channel.url}`;
  const trigger = TRIGGERS.find(([value]) => value === rule.trigger)?.[1] ?? rule.trigger;
  return (
    <div className="subsection" style={{ borderTop: '1px solid var(--border)', paddingTop: 10 }}>
      <Switch
        label={rule.name}
        description={`${trigger}${rule.trigger.startsWith('digest.') ? ` in ${rule.timezone}` : ''}${rule.filter.url_contains ? ` containing “${rule.filter.url_contains}”` : ''} → ${where}`}
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
          className="button small quiet danger"
          onClick={() => window.confirm(`Delete the alert “${rule.name}”?`) && remove.mutate()}
        >
          Delete<span className="visually-hidden"> {rule.name}</span>
        </button>
        <span role="status" className="muted small">
          {test.isSuccess ? 'Test sent; see the log.' : ''}
        </span>
      </div>
      {open ? (
        log.isPending ? (
          <Loading what="the log" />
        ) : log.isError ? (
          <ErrorState what="the log" error={log.error} />
        ) : (
          <DeliveryLog
            label={`Deliveries of ${rule.name}`}
            deliveries={log.data.map((d) => ({ ...d, what: d.test ? 'Test' : d.kind }))}
          />
        )
      ) : null}
    </div>
  );
}
