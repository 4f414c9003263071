import { type FormEvent, useId } from 'react';
import { ApiFailure } from '../api/client';
import { useIsAdmin, useSegments } from '../api/queries';
import type { Ok } from '../api/types';
import { ago, dateTime } from '../ui/format';
import { ChangeFailed, Empty, Loaded } from '../ui/states';
import {
  useIntegrationChanges,
  useIntegrations,
  useZapierHookRemove,
  useZapierHooks,
} from './queries';
import { Switch } from './Switch';

type Integration = Ok<'/v1/workspaces/{workspaceUuid}/integrations', 'get'>['data'][number];
type Segment = { uuid: string; name: string };

const CRM = {
  hubspot: {
    label: 'HubSpot',
    token: 'Private app access token',
    hint: 'In HubSpot: Settings → Integrations → Private apps; give the app the companies, contacts and company schema scopes (read and write).',
  },
  pipedrive: {
    label: 'Pipedrive',
    token: 'API token',
    hint: 'In Pipedrive: your name → Personal preferences → API.',
  },
} as const;

const STATUS: Record<Integration['status'], string> = {
  not_connected: 'Not connected',
  connected: 'Connected',
  syncing: 'Syncing…',
  disabled: 'Paused',
  failed: 'Failed',
};

const EVENTS: Record<string, string> = {
  new_lead: 'New lead',
  new_session: 'New session',
  contacts_revealed: 'Contacts revealed',
};

/**
 * Where sales works (contract §18): HubSpot and Pipedrive connections, with what they
 * synced and the last backfill's progress, and the Zapier hooks subscribed through the API.
 * Admins only: the server answers 403 to anyone else.
 */
export function Integrations({ workspace }: { workspace: string }) {
  const admin = useIsAdmin(workspace);
  const integrations = useIntegrations(workspace, admin === true);
  const segments = useSegments(workspace);
  return (
    <section className="card" id="integrations" aria-labelledby="integrations-heading">
      <h2 id="integrations-heading">Integrations</h2>
      <p className="muted small">
        Each lead that qualifies becomes one company in your CRM, kept current with its Footfall
        score, sessions and last visit; each visit adds a note listing its pages, and people who
        identify themselves become contacts of it. Customers, competitors and hidden organisations
        are never sent.
      </p>
      {admin === false ? (
        <p className="status-warn small">Only admins can see and change integrations.</p>
      ) : null}
      {admin === true ? (
        <>
          <Loaded query={integrations} what="the integrations">
            {(list) => (
              <div className="stack">
                {list.map((integration) => (
                  <CrmCard
                    key={integration.name}
                    workspace={workspace}
                    integration={integration}
                    segments={(segments.data ?? []) as Segment[]}
                  />
                ))}
              </div>
            )}
          </Loaded>
          <ZapierHooks workspace={workspace} />
        </>
      ) : null}
    </section>
  );
}

function CrmCard({
  workspace,
  integration,
  segments,
}: {
  workspace: string;
  integration: Integration;
  segments: Segment[];
}) {
  const crm = CRM[integration.name];
  const heading = useId();
  const { save, sync, disconnect } = useIntegrationChanges(workspace, integration.name);
  const connected = integration.status !== 'not_connected';
  const tokenError = save.error instanceof ApiFailure ? save.error.field('token') : undefined;
  // Beside the token when it is about the token; else below the form.
  const failure = (tokenError ? null : save.error) ?? sync.error ?? disconnect.error;

  function connect(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const token = String(form.get('token') ?? '').trim();
    save.mutate(
      { ...(token ? { token } : {}), settings: settingsOf(form) },
      { onSuccess: () => (event.target as HTMLFormElement).reset() },
    );
  }

  return (
    <section className="subsection crm crm-block" aria-labelledby={heading}>
      <div className="row">
        <h3 id={heading} style={{ margin: 0 }}>
          {crm.label}
        </h3>
        <span className="crm-status" data-status={integration.status}>
          {STATUS[integration.status]}
        </span>
      </div>
      {connected ? <Figures integration={integration} /> : null}
      {integration.last_error ? (
        <p
          className={`crm-message ${integration.status === 'failed' ? 'form-error' : 'status-warn small'}`}
        >
          {integration.last_error}
        </p>
      ) : null}
      {connected ? (
        <>
          <div className="row">
            <button
              type="button"
              className="button primary"
              disabled={sync.isPending || integration.status === 'syncing'}
              onClick={() => sync.mutate()}
            >
              Sync now
            </button>
            <button
              type="button"
              className="button quiet danger"
              disabled={disconnect.isPending}
              onClick={() => {
                if (window.confirm(`Disconnect ${crm.label}? What is still to send is dropped.`)) {
                  disconnect.mutate();
                }
              }}
            >
              Disconnect
            </button>
          </div>
          <Switch
            label={`Send to ${crm.label}`}
            description="When off, nothing is queued or sent."
            checked={integration.enabled}
            disabled={save.isPending}
            onChange={(enabled) => save.mutate({ enabled })}
          />
        </>
      ) : null}
      <form className="stack" onSubmit={connect} key={JSON.stringify(integration.settings)}>
        <TokenField crm={integration.name} required={!connected} error={tokenError} />
        <Qualifies integration={integration} segments={segments} />
        <div className="row">
          <button
            type="submit"
            className={connected ? 'button' : 'button primary'}
            disabled={save.isPending}
          >
            {connected ? 'Save' : 'Connect'}
          </button>
          <span role="status" className="muted small">
            {save.isSuccess ? 'Saved.' : sync.isSuccess ? 'Sync queued.' : ''}
          </span>
        </div>
      </form>
      <ChangeFailed error={failure} fieldFirst />
    </section>
  );
}

/** Last sync, counts, and the last backfill's progress. */
function Figures({ integration }: { integration: Integration }) {
  const { backfill } = integration;
  const running = integration.status === 'syncing' && backfill;
  return (
    <>
      <p className="small crm-figures">
        <span>
          Last sync:{' '}
          {integration.last_synced_at ? (
            <time
              dateTime={integration.last_synced_at}
              title={dateTime(integration.last_synced_at)}
            >
              {ago(integration.last_synced_at)}
            </time>
          ) : (
            'not yet'
          )}
        </span>
        <span>
          {integration.synced.toLocaleString('en')}{' '}
          {integration.synced === 1 ? 'company' : 'companies'} synced ·{' '}
          {integration.failed.toLocaleString('en')} refused by {CRM[integration.name].label}
        </span>
      </p>
      {running ? (
        <label className="field small">
          <span>
            Syncing {backfill.done.toLocaleString('en')} of {backfill.total.toLocaleString('en')}{' '}
            organisations and contacts
          </span>
          <progress value={backfill.done} max={Math.max(1, backfill.total)} />
        </label>
      ) : backfill?.finished_at ? (
        <p className="muted small">
          Last “Sync now”: {backfill.total.toLocaleString('en')} organisations and contacts,
          finished{' '}
          <time dateTime={backfill.finished_at} title={dateTime(backfill.finished_at)}>
            {ago(backfill.finished_at)}
          </time>
          .
        </p>
      ) : null}
    </>
  );
}

function Qualifies({ integration, segments }: { integration: Integration; segments: Segment[] }) {
  const { min_score, segment_uuid } = integration.settings;
  return (
    <div className="crm-settings">
      <label className="field">
        <span>Minimum score</span>
        <input
          name="min_score"
          type="number"
          min={0}
          max={100}
          placeholder="Any"
          defaultValue={min_score ?? ''}
        />
      </label>
      <label className="field">
        <span>Only organisations in segment</span>
        <select name="segment_uuid" defaultValue={segment_uuid ?? ''}>
          <option value="">Any segment</option>
          {segments.map((segment) => (
            <option key={segment.uuid} value={segment.uuid}>
              {segment.name}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}

function TokenField({
  crm,
  required,
  error,
}: {
  crm: Integration['name'];
  required: boolean;
  /** The server's word on the token (the CRM's refusal), shown beside it. */
  error: string | undefined;
}) {
  const hint = useId();
  const problem = useId();
  return (
    <label className="field">
      <span>{required ? CRM[crm].token : `Replace the ${CRM[crm].token.toLowerCase()}`}</span>
      <input
        name="token"
        type="password"
        autoComplete="off"
        required={required}
        placeholder={required ? '' : 'Unchanged (set; never shown)'}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${problem} ${hint}` : hint}
      />
      {error ? (
        <small id={problem} className="form-error crm-message" role="alert">
          {error}
        </small>
      ) : null}
      <small id={hint} className="muted">
        {CRM[crm].hint}
      </small>
    </label>
  );
}

function settingsOf(form: FormData): { min_score: number | null; segment_uuid: string | null } {
  const score = String(form.get('min_score') ?? '').trim();
  const segment = String(form.get('segment_uuid') ?? '');
  return { min_score: score === '' ? null : Number(score), segment_uuid: segment || null };
}

/** The hooks Zaps (or Make, n8n) subscribed; they subscribe themselves through the API. */
function ZapierHooks({ workspace }: { workspace: string }) {
  const hooks = useZapierHooks(workspace, true);
  const remove = useZapierHookRemove(workspace);
  return (
    <div className="subsection crm">
      <h3 style={{ margin: 0 }}>Zapier hooks</h3>
      <Loaded query={hooks} what="the Zapier hooks">
        {(list) =>
          list.length === 0 ? (
            <Empty>
              No hooks yet. A Zap (or Make, n8n) subscribes itself with{' '}
              <code>POST /v1/workspaces/{workspace}/zapier/hooks</code>; see docs/integrations.md.
            </Empty>
          ) : (
            <ul className="crm-hooks">
              {list.map((hook) => (
                <li key={hook.id} className="row">
                  <strong>{EVENTS[hook.event] ?? hook.event}</strong>
                  {hook.name ? <span>{hook.name}</span> : null}
                  <span className="muted small crm-hook-url" title={hook.hookUrl}>
                    {hook.hookUrl}
                  </span>
                  <button
                    type="button"
                    className="button small quiet danger"
                    disabled={remove.isPending}
                    onClick={() => remove.mutate(hook.id)}
                  >
                    Remove
                    <span className="visually-hidden"> the hook {hook.name || hook.hookUrl}</span>
                  </button>
                </li>
              ))}
            </ul>
          )
        }
      </Loaded>
      <ChangeFailed error={remove.error} />
    </div>
  );
}
