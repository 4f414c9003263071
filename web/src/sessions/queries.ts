import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { keys } from '../api/keys';
import { useOrganisationNames, useSegments } from '../api/queries';
import { type DateRangeSearch, rangeOf } from '../ui/search';

export const PAGE_SIZE = 25;

/** The sessions list's URL: its four filters and page. */
export interface SessionsSearch extends DateRangeSearch {
  url?: string | undefined;
  referrer?: string | undefined;
  segment?: string | undefined;
  visitor?: string | undefined;
  page?: number | undefined;
}

/** The identified sessions for the URL's filters and page, with their organisations' names. */
export function useSessionsPage(workspace: string, search: SessionsSearch) {
  const { from, to } = rangeOf(search);
  const page = search.page ?? 1;
  const segments = useSegments(workspace);
  const filters = {
    date_from: from,
    date_to: to,
    url: search.url,
    referrer: search.referrer,
    segmentUuid: search.segment,
    visitor_uuid: search.visitor,
  };
  const sessions = useQuery({
    queryKey: keys.sessions(workspace, filters, page),
    queryFn: () =>
      unwrap(
        api.GET('/v1/workspaces/{workspaceUuid}/sessions', {
          params: {
            path: { workspaceUuid: workspace },
            query: { ...filters, page, size: PAGE_SIZE },
          },
        }),
      ),
    placeholderData: keepPreviousData,
  });
  const names = useOrganisationNames(
    workspace,
    sessions.data?.data.map((s) => s.organisation_uuid) ?? [],
  );
  return { from, to, page, sessions, names, segments };
}
