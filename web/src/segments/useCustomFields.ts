import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { keys } from '../api/queries';
import { type BuilderField, builderFields } from './model';

/** The fields a filter may name in this workspace, with the state of loading its custom fields. */
export function useBuilderFieldsQuery(workspace: string) {
  const custom = useQuery({
    queryKey: keys.inWorkspace(workspace, 'custom-fields'),
    queryFn: async () =>
      (
        await unwrap(
          api.GET('/v1/workspaces/{workspaceUuid}/custom-fields', {
            params: { path: { workspaceUuid: workspace } },
          }),
        )
      ).data,
  });
  return {
    fields: builderFields(custom.data ?? []),
    isPending: custom.isPending,
    error: custom.error,
  };
}

/** The fields a filter may name in this workspace: built-ins, then its custom fields. */
export function useBuilderFields(workspace: string): BuilderField[] {
  return useBuilderFieldsQuery(workspace).fields;
}
