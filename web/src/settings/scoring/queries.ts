import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, inWorkspace, unwrapData } from '../../api/client';
import { keys } from '../../api/keys';
import type { ScoringBody } from './draft';

const route = '/v1/workspaces/{workspaceUuid}/scoring';

/** The workspace's scoring rules and key pages (the defaults until an admin saves). */
export function useScoring(workspace: string) {
  return useQuery({
    queryKey: keys.scoring(workspace),
    queryFn: () => unwrapData(api.GET(route, inWorkspace(workspace))),
  });
}

/** Saving the scoring (admins); the answer replaces what was read. */
export function useScoringSave(workspace: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: ScoringBody) =>
      unwrapData(api.PUT(route, { ...inWorkspace(workspace), body })),
    onSuccess: (saved) => queryClient.setQueryData(keys.scoring(workspace), saved),
  });
}

/** How many leads these (unsaved) rules would put above 60; the last answer stays meanwhile. */
export function useScoringPreview(workspace: string, body: ScoringBody, enabled: boolean) {
  return useQuery({
    queryKey: keys.scoringPreview(workspace, body),
    queryFn: () =>
      unwrapData(
        api.POST('/v1/workspaces/{workspaceUuid}/scoring/preview', {
          ...inWorkspace(workspace),
          body,
        }),
      ),
    enabled,
    retry: false,
    placeholderData: keepPreviousData,
  });
}

/** Back to the defaults (admins); the answer (the defaults) replaces what was read. */
export function useScoringReset(workspace: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => unwrapData(api.DELETE(route, inWorkspace(workspace))),
    onSuccess: (saved) => queryClient.setQueryData(keys.scoring(workspace), saved),
  });
}
