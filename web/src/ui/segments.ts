import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { keys } from '../api/queries';

/** The workspace's segments, [{uuid, name}] by name. */
export function useSegments(workspace: string) {
  return useQuery({
    queryKey: keys.inWorkspace(workspace, 'segments'),
    queryFn: () =>
      unwrap(
        api.GET('/v1/workspaces/{workspaceUuid}/segments', {
          params: { path: { workspaceUuid: workspace } },
        }),
      ),
  });
}
