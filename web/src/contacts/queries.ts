import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { keys } from '../api/keys';
import { useOrganisationNames } from '../api/queries';

export const PAGE_SIZE = 25;

/** One page of the workspace's contacts, with the names of their organisations. */
export function useContactsPage(workspace: string, page: number) {
  const contacts = useQuery({
    queryKey: keys.contacts(workspace, page),
    queryFn: () =>
      unwrap(
        api.GET('/v1/workspaces/{workspaceUuid}/contacts', {
          params: { path: { workspaceUuid: workspace }, query: { page, size: PAGE_SIZE } },
        }),
      ),
    placeholderData: keepPreviousData,
  });
  const organisations = useOrganisationNames(
    workspace,
    contacts.data?.data.flatMap((c) => (c.organisation_uuid ? [c.organisation_uuid] : [])) ?? [],
  );
  return { contacts, organisations };
}
