import { keepPreviousData, type QueryKey, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, inWorkspace, unwrap, unwrapData } from './client';
import { keys } from './keys';

// The queries more than one page asks; each page's own live in its folder's `queries.ts`.

/** A function that refreshes every query under `key`, for a change's `onSuccess`. */
export function useRefresh(key: QueryKey) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: key });
}

export function useMe() {
  return useQuery({
    queryKey: keys.me,
    queryFn: () => unwrapData(api.GET('/v1/me')),
    retry: false,
  });
}

/** Ends the browser session; the caller clears what the cache holds of the person. */
export function signOut() {
  return api.POST('/auth/sign-out');
}

/**
 * What the server offers, also to a signed-out page: whether it sends e-mail, and its
 * PUBLIC_URL; fixed while it runs.
 */
export function useServerInfo() {
  return useQuery({
    queryKey: keys.server,
    queryFn: () => unwrapData(api.GET('/auth/server')),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

export function useWorkspaces() {
  return useQuery({
    queryKey: keys.workspaces,
    queryFn: () =>
      unwrapData(api.GET('/v1/workspaces', { params: { query: { page: 1, size: 1000 } } })),
  });
}

export function useWorkspace(uuid: string) {
  return useQuery({
    queryKey: keys.workspace(uuid),
    queryFn: () => unwrapData(api.GET('/v1/workspaces/{uuid}', { params: { path: { uuid } } })),
  });
}

/** The workspace's segments, [{uuid, name}] by name. */
export function useSegments(workspace: string) {
  return useQuery({
    queryKey: keys.segments(workspace),
    queryFn: () =>
      unwrap(api.GET('/v1/workspaces/{workspaceUuid}/segments', inWorkspace(workspace))),
  });
}

/** The workspace's custom field definitions. */
export function useCustomFields(workspace: string) {
  return useQuery({
    queryKey: keys.customFields(workspace),
    queryFn: () =>
      unwrapData(api.GET('/v1/workspaces/{workspaceUuid}/custom-fields', inWorkspace(workspace))),
  });
}

/** The workspace's members and open invites, as Settings → Team and the Owner choices ask. */
export function teamQuery(workspace: string) {
  return {
    queryKey: keys.users(workspace),
    queryFn: () => unwrap(api.GET('/v1/workspaces/{workspaceUuid}/users', inWorkspace(workspace))),
  };
}

/** The workspace's members: uuid, name, e-mail and role. */
export function useMembers(workspace: string) {
  return useQuery({ ...teamQuery(workspace), select: (team) => team.data });
}

/**
 * Whether the signed-in person may change the workspace's settings (an owner or an admin);
 * undefined until that is known.
 */
export function useIsAdmin(workspace: string): boolean | undefined {
  const me = useMe();
  const members = useMembers(workspace);
  if (!me.data || !members.data) return undefined;
  const role = members.data.find((member) => member.uuid === me.data.uuid)?.role;
  return role === 'owner' || role === 'admin';
}

/** Whether the snippet sends anything: its last event and the last day's counts. */
export function useInstallation(workspace: string, refetchInterval?: number) {
  return useQuery({
    queryKey: keys.installation(workspace),
    queryFn: () =>
      unwrapData(api.GET('/v1/workspaces/{workspaceUuid}/installation', inWorkspace(workspace))),
    refetchInterval,
  });
}

/**
 * The names of these organisations (ids → name), for lists that carry only their ids: one
 * request for a page's worth (the organisations list narrowed to them by `uuid`).
 */
export function useOrganisationNames(workspace: string, ids: string[]) {
  const unique = [...new Set(ids)].sort();
  return useQuery({
    queryKey: keys.organisationNames(workspace, unique),
    queryFn: async () => {
      const answer = await unwrap(
        api.GET('/v1/workspaces/{workspaceUuid}/organisations', {
          params: {
            path: { workspaceUuid: workspace },
            query: { uuid: unique, page: 1, size: unique.length },
          },
        }),
      );
      return new Map(answer.data.map((organisation) => [organisation.uuid, organisation.name]));
    },
    enabled: unique.length > 0,
    placeholderData: keepPreviousData,
  });
}
