import { useMutation } from '@tanstack/react-query';
import { api, unwrap, unwrapData } from '../api/client';
import { keys } from '../api/keys';
import { useRefresh } from '../api/queries';

/** A new workspace for a site; `onCreated` gets it whole, with its snippet. */
export function useCreateWorkspace(onCreated: (workspace: CreatedWorkspace) => void) {
  const refreshWorkspaces = useRefresh(keys.workspaces);
  return useMutation({
    mutationFn: (url: string) => unwrapData(api.POST('/v1/workspaces', { body: { url } })),
    onSuccess: async (workspace) => {
      await refreshWorkspaces();
      const full = await unwrap(
        api.GET('/v1/workspaces/{uuid}', { params: { path: { uuid: workspace.uuid } } }),
      );
      onCreated(full.data);
    },
  });
}

export interface CreatedWorkspace {
  uuid: string;
  name: string;
  tracking_script_snippet: string;
}

/** A workspace of made-up companies and visits; `onLoaded` runs once the list shows it. */
export function useLoadDemo(onLoaded: (workspace: { uuid: string }) => Promise<void>) {
  const refreshWorkspaces = useRefresh(keys.workspaces);
  return useMutation({
    mutationFn: () => unwrapData(api.POST('/v1/workspaces/demo')),
    onSuccess: async (workspace) => {
      await refreshWorkspaces();
      await onLoaded(workspace);
    },
  });
}
