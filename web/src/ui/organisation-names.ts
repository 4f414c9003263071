import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { keys } from '../api/queries';

/**
 * The names of these organisations (ids → name), for lists that carry only their ids: one
 * request for a page's worth (the organisations list narrowed to them by `uuid`).
 */
export function useOrganisationNames(workspace: string, ids: string[]) {
  const unique = [...new Set(ids)].sort();
  return useQuery({
    queryKey: keys.inWorkspace(workspace, 'organisation-names', unique),
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
