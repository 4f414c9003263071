import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, unwrapData } from '../api/client';
import { keys } from '../api/keys';
import { useRefresh, useWorkspace } from '../api/queries';
import type { Body } from '../api/types';

export const VISITS_PAGE_SIZE = 10;

/** One organisation, the people from it who identified themselves, and the workspace's tags. */
export function useOrganisationPage(workspace: string, organisation: string) {
  const info = useWorkspace(workspace);
  const path = { workspaceUuid: workspace, organisationUuid: organisation };
  const org = useQuery({
    queryKey: keys.organisation(workspace, organisation),
    queryFn: () =>
      unwrapData(
        api.GET('/v1/workspaces/{workspaceUuid}/organisations/{organisationUuid}', {
          params: { path },
        }),
      ),
  });
  const contacts = useQuery({
    queryKey: keys.organisationContacts(workspace, organisation),
    queryFn: () =>
      unwrap(
        api.GET('/v1/workspaces/{workspaceUuid}/contacts', {
          params: {
            path: { workspaceUuid: workspace },
            query: { organisation_uuid: organisation, page: 1, size: 50 },
          },
        }),
      ),
  });
  return { org, contacts, availableTags: info.data?.available_tags ?? [] };
}

/** One page of an organisation's sessions, newest first, each with its events. */
export function useVisits(workspace: string, organisation: string, page: number) {
  return useQuery({
    queryKey: keys.organisationSessions(workspace, organisation, page),
    queryFn: () =>
      unwrap(
        api.GET('/v1/workspaces/{workspaceUuid}/organisations/{organisationUuid}/sessions', {
          params: {
            path: { workspaceUuid: workspace, organisationUuid: organisation },
            query: { page, size: VISITS_PAGE_SIZE },
          },
        }),
      ),
    placeholderData: keepPreviousData,
  });
}

export type OrganisationChange = Body<
  '/v1/workspaces/{workspaceUuid}/organisations/{organisationUuid}',
  'patch'
>;

/**
 * Setting the organisation's owner or status: its page shows the answer at once, and every
 * list of the workspace is refreshed (a status other than lead leaves the lead feed).
 */
export function useOrganisationChange(workspace: string, organisation: string) {
  const queryClient = useQueryClient();
  const refresh = useRefresh(keys.workspace(workspace));
  return useMutation({
    mutationFn: (body: OrganisationChange) =>
      unwrapData(
        api.PATCH('/v1/workspaces/{workspaceUuid}/organisations/{organisationUuid}', {
          params: { path: { workspaceUuid: workspace, organisationUuid: organisation } },
          body,
        }),
      ),
    onSuccess: async (changed) => {
      queryClient.setQueryData(keys.organisation(workspace, organisation), changed);
      await refresh();
    },
  });
}

/** Adding and removing the organisation's tags; `onAdded` runs before the refresh. */
export function useTagChanges(workspace: string, organisation: string, onAdded: () => void) {
  const refresh = useRefresh(keys.workspace(workspace));
  const route = '/v1/workspaces/{workspaceUuid}/organisations/{organisationUuid}/tags';
  const tag = (tag_name: string) => ({
    params: { path: { workspaceUuid: workspace, organisationUuid: organisation } },
    body: { tag_name },
  });
  const add = useMutation({
    mutationFn: (tag_name: string) => unwrap(api.POST(route, tag(tag_name))),
    onSuccess: async () => {
      onAdded();
      await refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (tag_name: string) => unwrap(api.DELETE(route, tag(tag_name))),
    onSuccess: refresh,
  });
  return { add, remove };
}

export type CustomFieldValue = string | number | boolean | string[];

/** Saving one custom field's value; an empty one is deleted. `onSaved` runs before the refresh. */
export function useFieldValueChange(
  workspace: string,
  organisation: string,
  key: string,
  onSaved: () => void,
) {
  const refresh = useRefresh(keys.workspace(workspace));
  const path = { workspaceUuid: workspace, organisationUuid: organisation, key };
  const route =
    '/v1/workspaces/{workspaceUuid}/organisations/{organisationUuid}/custom-fields/{key}';
  return useMutation({
    mutationFn: async (next: CustomFieldValue | undefined) => {
      const empty = next === undefined || next === '' || (Array.isArray(next) && next.length === 0);
      if (empty) {
        await unwrap(api.DELETE(route, { params: { path } }));
      } else {
        await unwrap(api.PUT(route, { params: { path }, body: { value: next } }));
      }
    },
    onSuccess: async () => {
      onSaved();
      await refresh();
    },
  });
}
