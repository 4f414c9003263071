import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { keys } from '../api/queries';

/** The names of these organisations (ids → name), for lists that carry only their ids. */
export function useOrganisationNames(workspace: string, ids: string[]) {
  const unique = [...new Set(ids)].sort();
  return useQuery({
    queryKey: keys.inWorkspace(workspace, 'organisation-names', unique),
    queryFn: async () =>
      new Map(
        await Promise.all(
          unique.map(async (id) => {
            const answer = await unwrap(
              api.GET('/v1/workspaces/{workspaceUuid}/organisations/{organisationUuid}', {
                params: { path: { workspaceUuid: workspace, organisationUuid: id } },
              }),
            );
            return [id, answer.data.name] as const;
          }),
        ),
      ),
    enabled: unique.length > 0,
    placeholderData: keepPreviousData,
  });
}
