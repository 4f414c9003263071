import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from './client';

/** Query keys: every list a mutation may change is named here, so it can be refreshed. */
export const keys = {
  me: ['me'] as const,
  server: ['server'] as const,
  workspaces: ['workspaces'] as const,
  workspace: (uuid: string) => ['workspace', uuid] as const,
  /** Everything inside one workspace; invalidating it refreshes every page of it. */
  inWorkspace: (uuid: string, ...rest: unknown[]) => ['workspace', uuid, ...rest] as const,
};

export function useMe() {
  return useQuery({
    queryKey: keys.me,
    queryFn: async () => (await unwrap(api.GET('/v1/me'))).data,
    retry: false,
  });
}

/**
 * What the server offers, also to a signed-out page: whether it sends e-mail, and its
 * PUBLIC_URL; fixed while it runs.
 */
export function useServerInfo() {
  return useQuery({
    queryKey: keys.server,
    queryFn: async () => (await unwrap(api.GET('/auth/server'))).data,
    staleTime: Number.POSITIVE_INFINITY,
  });
}

export function useWorkspaces() {
  return useQuery({
    queryKey: keys.workspaces,
    queryFn: async () =>
      (await unwrap(api.GET('/v1/workspaces', { params: { query: { page: 1, size: 1000 } } })))
        .data,
  });
}

export function useWorkspace(uuid: string) {
  return useQuery({
    queryKey: keys.workspace(uuid),
    queryFn: async () =>
      (await unwrap(api.GET('/v1/workspaces/{uuid}', { params: { path: { uuid } } }))).data,
  });
}
