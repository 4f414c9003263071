import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { api, inWorkspace, unwrap } from '../api/client';
import { keys } from '../api/keys';
import { useCustomFields, useRefresh } from '../api/queries';
import { type BuilderField, builderFields, type Filters } from './model';

/** How many organisations are in a saved segment now. */
export function useSegmentSize(workspace: string, segment: string) {
  return useQuery({
    queryKey: keys.segmentSize(workspace, segment),
    queryFn: async () =>
      (
        await unwrap(
          api.GET('/v1/workspaces/{workspaceUuid}/organisations', {
            params: {
              path: { workspaceUuid: workspace },
              query: { segmentUuid: segment, page: 1, size: 1 },
            },
          }),
        )
      ).total,
  });
}

/** A saved segment, unless the page is making a new one. */
export function useSavedSegment(workspace: string, segment: string, isNew: boolean) {
  return useQuery({
    queryKey: keys.segment(workspace, segment),
    queryFn: () =>
      unwrap(
        api.GET('/v1/workspaces/{workspaceUuid}/segments/{segmentUuid}', {
          params: { path: { workspaceUuid: workspace, segmentUuid: segment } },
        }),
      ),
    enabled: !isNew,
  });
}

/** How many organisations a draft's filters match; the last count stays while the next comes. */
export function useMatchCount(workspace: string, filters: Filters, enabled: boolean) {
  return useQuery({
    queryKey: keys.segmentPreview(workspace, filters),
    queryFn: async () =>
      (
        await unwrap(
          api.POST('/v1/workspaces/{workspaceUuid}/organisations', {
            params: { path: { workspaceUuid: workspace }, query: { page: 1, size: 1 } },
            body: { filters },
          }),
        )
      ).total,
    enabled,
    retry: false,
    placeholderData: keepPreviousData,
  });
}

/** Saving (new when `uuid` is undefined) and deleting a segment; `onDone` runs after either. */
export function useSegmentChanges(
  workspace: string,
  uuid: string | undefined,
  onDone: () => Promise<void>,
) {
  const refresh = useRefresh(keys.workspace(workspace));
  const done = async () => {
    await refresh();
    await onDone();
  };
  const save = useMutation({
    mutationFn: async (body: { name: string; filters: Filters }) => {
      if (uuid) {
        await unwrap(
          api.PATCH('/v1/workspaces/{workspaceUuid}/segments/{segmentUuid}', {
            params: { path: { workspaceUuid: workspace, segmentUuid: uuid } },
            body,
          }),
        );
      } else {
        await unwrap(
          api.POST('/v1/workspaces/{workspaceUuid}/segments', { ...inWorkspace(workspace), body }),
        );
      }
    },
    onSuccess: done,
  });
  const remove = useMutation({
    mutationFn: () =>
      unwrap(
        api.DELETE('/v1/workspaces/{workspaceUuid}/segments/{segmentUuid}', {
          params: { path: { workspaceUuid: workspace, segmentUuid: uuid ?? '' } },
        }),
      ),
    onSuccess: done,
  });
  return { save, remove };
}

/** The fields a filter may name in this workspace, with the state of loading its custom fields. */
export function useBuilderFieldsQuery(workspace: string) {
  const custom = useCustomFields(workspace);
  // The same list while the definitions are the same, so what is built from it can be kept.
  const fields = useMemo(() => builderFields(custom.data ?? []), [custom.data]);
  return {
    fields,
    isPending: custom.isPending,
    error: custom.error,
  };
}

/** The fields a filter may name in this workspace: built-ins, then its custom fields. */
export function useBuilderFields(workspace: string): BuilderField[] {
  return useBuilderFieldsQuery(workspace).fields;
}
