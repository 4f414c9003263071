import { type QueryKey, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, inWorkspace, unwrap, unwrapData } from '../api/client';
import { keys } from '../api/keys';
import { teamQuery, useRefresh } from '../api/queries';
import type { Body } from '../api/types';

/**
 * A setting read and changed whole: the change's answer replaces what was read (and
 * `onChanged` refreshes what else shows it).
 */
function useSetting<T, Change>(
  key: QueryKey,
  read: () => Promise<T>,
  write: (change: Change) => Promise<T>,
  onChanged?: () => Promise<void>,
) {
  const queryClient = useQueryClient();
  const setting = useQuery({ queryKey: key, queryFn: read });
  const change = useMutation({
    mutationFn: write,
    onSuccess: async (data) => {
      queryClient.setQueryData(key, data);
      await onChanged?.();
    },
  });
  return [setting, change] as const;
}

/** The switches for what the script collects. */
export function useTrackerFeatures(workspace: string) {
  const route = '/v1/workspaces/{workspaceUuid}/tracker-features';
  return useSetting(
    keys.trackerFeatures(workspace),
    () => unwrapData(api.GET(route, inWorkspace(workspace))),
    (body: Body<typeof route, 'patch'>) =>
      unwrapData(api.PATCH(route, { ...inWorkspace(workspace), body })),
  );
}

/** Whether browsers that send Global Privacy Control are left untracked. */
export function usePrivacy(workspace: string) {
  const route = '/v1/workspaces/{workspaceUuid}/privacy';
  return useSetting(
    keys.privacy(workspace),
    () => unwrapData(api.GET(route, inWorkspace(workspace))),
    (honor_gpc: boolean) =>
      unwrapData(api.PATCH(route, { ...inWorkspace(workspace), body: { honor_gpc } })),
  );
}

/** Which visits count: excluded IP ranges and accepted hostnames. */
export function useVisitFilters(workspace: string) {
  const route = '/v1/workspaces/{workspaceUuid}/filters';
  return useSetting(
    keys.filters(workspace),
    () => unwrapData(api.GET(route, inWorkspace(workspace))),
    (body: { excluded_ip_ranges: string[]; hostnames: string[] }) =>
      unwrapData(api.PATCH(route, { ...inWorkspace(workspace), body })),
  );
}

/** The workspace's members and open invites; while invites are open, asked again now and then. */
export function useTeam(workspace: string) {
  return useQuery({
    ...teamQuery(workspace),
    // An accepted invite becomes a member.
    refetchInterval: (query) => ((query.state.data?.invites.length ?? 0) > 0 ? 10_000 : false),
  });
}

export type Role = 'owner' | 'admin' | 'member';

/** Inviting, changing a role, removing; `onInvited` gets the server's message and the link. */
export function useTeamChanges(
  workspace: string,
  onInvited: (invited: { message: string; link: string }) => void,
) {
  const refresh = useRefresh(keys.users(workspace));
  const member = (user: string) => ({
    params: { path: { workspaceUuid: workspace, userUuid: user } },
  });
  const invite = useMutation({
    mutationFn: (body: { email: string; role: 'admin' | 'member' }) =>
      unwrap(
        api.POST('/v1/workspaces/{workspaceUuid}/users/invite', {
          ...inWorkspace(workspace),
          body,
        }),
      ),
    onSuccess: async (answer) => {
      onInvited({ message: answer.message, link: answer.data.invite_link });
      await refresh();
    },
  });
  const setRole = useMutation({
    mutationFn: ({ user, role }: { user: string; role: Role }) =>
      unwrap(
        api.PATCH('/v1/workspaces/{workspaceUuid}/users/{userUuid}', {
          ...member(user),
          body: { role },
        }),
      ),
    onSettled: refresh,
  });
  const remove = useMutation({
    mutationFn: (user: string) =>
      unwrap(api.DELETE('/v1/workspaces/{workspaceUuid}/users/{userUuid}', member(user))),
    onSettled: refresh,
  });
  return { invite, setRole, remove };
}

/** The signed-in person's password; the change ends their tokens, so that list is refreshed. */
export function usePasswordChange() {
  const refreshTokens = useRefresh(keys.tokens);
  return useMutation({
    mutationFn: (body: { current_password: string; password: string }) =>
      unwrap(api.POST('/auth/password', { body })),
    onSuccess: refreshTokens,
  });
}

/** The signed-in person's API tokens. */
export function useTokens() {
  return useQuery({ queryKey: keys.tokens, queryFn: () => unwrapData(api.GET('/v1/me/tokens')) });
}

/** Making and revoking tokens; `onCreated` gets the new token, shown this once. */
export function useTokenChanges(onCreated: (token: { name: string; token: string }) => void) {
  const refresh = useRefresh(keys.tokens);
  const create = useMutation({
    mutationFn: (body: { name: string; expires_in_days: number | null }) =>
      unwrapData(api.POST('/v1/me/tokens', { body })),
    onSuccess: async (token) => {
      onCreated(token);
      await refresh();
    },
  });
  const revoke = useMutation({
    mutationFn: (uuid: string) =>
      unwrap(api.DELETE('/v1/me/tokens/{tokenUuid}', { params: { path: { tokenUuid: uuid } } })),
    onSettled: refresh,
  });
  return { create, revoke };
}

/** Custom field definitions: adding, changing, deleting; each refreshes the whole workspace. */
export function useCustomFieldChanges(
  workspace: string,
  onCreated: () => void,
  onChanged: (change: FieldChange) => void,
) {
  const refresh = useRefresh(keys.workspace(workspace));
  const field = (key: string) => ({ params: { path: { workspaceUuid: workspace, key } } });
  const create = useMutation({
    mutationFn: (body: NewField) =>
      unwrap(
        api.POST('/v1/workspaces/{workspaceUuid}/custom-fields', {
          ...inWorkspace(workspace),
          body,
        }),
      ),
    onSuccess: async () => {
      onCreated();
      await refresh();
    },
  });
  const patch = useMutation({
    mutationFn: ({ key, body }: { key: string; body: FieldChange }) =>
      unwrap(
        api.PATCH('/v1/workspaces/{workspaceUuid}/custom-fields/{key}', { ...field(key), body }),
      ),
    onSuccess: (_, { body }) => onChanged(body),
    onSettled: refresh,
  });
  const remove = useMutation({
    mutationFn: (key: string) =>
      unwrap(api.DELETE('/v1/workspaces/{workspaceUuid}/custom-fields/{key}', field(key))),
    onSettled: refresh,
  });
  return { create, patch, remove };
}

export type NewField = Body<'/v1/workspaces/{workspaceUuid}/custom-fields', 'post'>;
export type FieldChange = Body<'/v1/workspaces/{workspaceUuid}/custom-fields/{key}', 'patch'>;

/** The person's webhook (one, for all their workspaces), or null when there is none. */
export function useWebhook() {
  return useQuery({
    queryKey: keys.webhook,
    queryFn: async () =>
      (await unwrap(api.GET('/radar/operator/v1/webhooks'))).data[0]?.delivery ?? null,
  });
}

/** The latest webhook deliveries, all or of one status, asked again every 10 seconds. */
export function useWebhookDeliveries(status: string) {
  return useQuery({
    queryKey: keys.webhookDeliveries(status),
    queryFn: () =>
      unwrapData(
        api.GET('/radar/operator/v1/webhooks/deliveries', {
          params: {
            query: { page: 1, size: 20, ...(status ? { status: status as 'failed' } : {}) },
          },
        }),
      ),
    refetchInterval: 10_000,
  });
}

type Delivery = Body<'/radar/operator/v1/webhooks', 'patch'>['delivery'];

/** Saving the webhook, a test ping, a redelivery: each refreshes all of the person's. */
export function useWebhookChanges() {
  const refresh = useRefresh(keys.me);
  const save = useMutation({
    mutationFn: (delivery: Delivery) =>
      unwrap(api.PATCH('/radar/operator/v1/webhooks', { body: { delivery } })),
    onSuccess: refresh,
  });
  const test = useMutation({
    mutationFn: () => unwrap(api.POST('/radar/operator/v1/webhooks/test')),
    onSuccess: refresh,
  });
  const redeliver = useMutation({
    mutationFn: (uuid: string) =>
      unwrap(
        api.POST('/radar/operator/v1/webhooks/deliveries/{uuid}/redeliver', {
          params: { path: { uuid } },
        }),
      ),
    onSettled: refresh,
  });
  return { save, test, redeliver };
}

export type NewRule = Body<'/v1/workspaces/{workspaceUuid}/notifications', 'post'>;
type RuleChange = Body<'/v1/workspaces/{workspaceUuid}/notifications/{ruleUuid}', 'patch'>;

/** The workspace's alert and digest rules, and adding one. */
export function useNotificationRules(workspace: string) {
  const refresh = useRefresh(keys.notifications(workspace));
  const rules = useQuery({
    queryKey: keys.notifications(workspace),
    queryFn: () =>
      unwrapData(api.GET('/v1/workspaces/{workspaceUuid}/notifications', inWorkspace(workspace))),
  });
  const create = useMutation({
    mutationFn: (body: NewRule) =>
      unwrap(
        api.POST('/v1/workspaces/{workspaceUuid}/notifications', {
          ...inWorkspace(workspace),
          body,
        }),
      ),
    onSuccess: refresh,
  });
  return { rules, create };
}

/** Changing, deleting and testing one rule; `onTested` runs when a test was sent. */
export function useRuleChanges(workspace: string, rule: string, onTested: () => void) {
  const refresh = useRefresh(keys.notifications(workspace));
  const path = { workspaceUuid: workspace, ruleUuid: rule };
  const change = useMutation({
    mutationFn: (body: RuleChange) =>
      unwrap(
        api.PATCH('/v1/workspaces/{workspaceUuid}/notifications/{ruleUuid}', {
          params: { path },
          body,
        }),
      ),
    onSettled: refresh,
  });
  const remove = useMutation({
    mutationFn: () =>
      unwrap(
        api.DELETE('/v1/workspaces/{workspaceUuid}/notifications/{ruleUuid}', { params: { path } }),
      ),
    onSettled: refresh,
  });
  const test = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/v1/workspaces/{workspaceUuid}/notifications/{ruleUuid}/test', {
          params: { path },
        }),
      ),
    onSuccess: onTested,
  });
  return { change, remove, test };
}

/** A rule's latest deliveries, asked only while its log is open, then every 5 seconds. */
export function useRuleLog(workspace: string, rule: string, open: boolean) {
  return useQuery({
    queryKey: keys.notificationDeliveries(workspace, rule),
    queryFn: () =>
      unwrapData(
        api.GET('/v1/workspaces/{workspaceUuid}/notifications/{ruleUuid}/deliveries', {
          params: {
            path: { workspaceUuid: workspace, ruleUuid: rule },
            query: { page: 1, size: 10 },
          },
        }),
      ),
    enabled: open,
    refetchInterval: open ? 5_000 : false,
  });
}

/** The domains whose organisations are stored as hidden (contract §17). */
export function useExcludedDomains(workspace: string) {
  return useQuery({
    queryKey: keys.excludedDomains(workspace),
    queryFn: () =>
      unwrapData(
        api.GET('/v1/workspaces/{workspaceUuid}/excluded-domains', inWorkspace(workspace)),
      ),
  });
}

/**
 * Replacing the excluded domains (admins): answers how many organisations it hid and brought
 * back, and refreshes every list of the workspace.
 */
export function useExcludedDomainsSave(workspace: string) {
  const refresh = useRefresh(keys.workspace(workspace));
  return useMutation({
    mutationFn: (domains: string[]) =>
      unwrapData(
        api.PUT('/v1/workspaces/{workspaceUuid}/excluded-domains', {
          ...inWorkspace(workspace),
          body: { domains },
        }),
      ),
    onSuccess: refresh,
  });
}

/** The signed-in person's own "My accounts" digest: on or off, and its time zone. */
export function useMyDigest(workspace: string) {
  const route = '/v1/workspaces/{workspaceUuid}/my-digest';
  // The digest is one of the workspace's notification rules: that list shows it too.
  const refreshRules = useRefresh(keys.notifications(workspace));
  return useSetting(
    keys.myDigest(workspace),
    () => unwrapData(api.GET(route, inWorkspace(workspace))),
    (body: Body<typeof route, 'put'>) =>
      unwrapData(api.PUT(route, { ...inWorkspace(workspace), body })),
    refreshRules,
  );
}

/**
 * The workspace's CRM connections (contract §18), polled every 3 s while one syncs, so the
 * backfill's progress moves without a reload.
 */
export function useIntegrations(workspace: string, enabled: boolean) {
  return useQuery({
    queryKey: keys.integrations(workspace),
    queryFn: () =>
      unwrapData(api.GET('/v1/workspaces/{workspaceUuid}/integrations', inWorkspace(workspace))),
    enabled,
    refetchInterval: (query) =>
      query.state.data?.some((integration) => integration.status === 'syncing') ? 3_000 : false,
  });
}

type CrmName = 'hubspot' | 'pipedrive';
const integrationRoute = '/v1/workspaces/{workspaceUuid}/integrations/{name}';

/** Connecting, changing, syncing and disconnecting a CRM; each refreshes the list. */
export function useIntegrationChanges(workspace: string, name: CrmName) {
  const refresh = useRefresh(keys.integrations(workspace));
  const params = { params: { path: { workspaceUuid: workspace, name } } };
  return {
    save: useMutation({
      mutationFn: (body: Body<typeof integrationRoute, 'put'>) =>
        unwrapData(api.PUT(integrationRoute, { ...params, body })),
      onSuccess: refresh,
    }),
    sync: useMutation({
      mutationFn: () =>
        unwrapData(api.POST('/v1/workspaces/{workspaceUuid}/integrations/{name}/sync', params)),
      onSuccess: refresh,
    }),
    disconnect: useMutation({
      mutationFn: () => unwrap(api.DELETE(integrationRoute, params)),
      onSuccess: refresh,
    }),
  };
}

/** The Zapier (or Make, n8n) hooks subscribed to the workspace's events. */
export function useZapierHooks(workspace: string, enabled: boolean) {
  return useQuery({
    queryKey: keys.zapierHooks(workspace),
    queryFn: () =>
      unwrapData(api.GET('/v1/workspaces/{workspaceUuid}/zapier/hooks', inWorkspace(workspace))),
    enabled,
  });
}

export function useZapierHookRemove(workspace: string) {
  const refresh = useRefresh(keys.zapierHooks(workspace));
  return useMutation({
    mutationFn: (hookId: string) =>
      unwrap(
        api.DELETE('/v1/workspaces/{workspaceUuid}/zapier/hooks/{hookId}', {
          params: { path: { workspaceUuid: workspace, hookId } },
        }),
      ),
    onSuccess: refresh,
  });
}
