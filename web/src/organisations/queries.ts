import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { keys } from '../api/keys';
import { useSegments, useWorkspace } from '../api/queries';
import { type DateRangeSearch, rangeOf } from '../ui/search';

export const PAGE_SIZE = 25;

/** The organisations list's URL: its filters and page. */
export interface OrganisationsSearch extends DateRangeSearch {
  q?: string | undefined;
  segment?: string | undefined;
  tag?: string | undefined;
  filters?: string | undefined;
  /** The API's `sort` ("-score"); none for most recently active first. */
  sort?: string | undefined;
  /** `me`: My accounts, the organisations the signed-in person owns. */
  owner?: string | undefined;
  /** Statuses, comma-separated, or `all`; none for leads only (the API's default). */
  status?: string | undefined;
  page?: number | undefined;
}

/** The lead feed for the URL's filters and page, with the segments and tags to filter by. */
export function useOrganisationsPage(workspace: string, search: OrganisationsSearch) {
  const { from, to } = rangeOf(search);
  const page = search.page ?? 1;
  const segments = useSegments(workspace);
  const info = useWorkspace(workspace);
  const filters = {
    name: search.q,
    date_from: from,
    date_to: to,
    segmentUuid: search.segment,
    tag: search.tag,
    filters: search.filters,
    sort: search.sort,
    owner: search.owner,
    ...(search.status === 'all' ? { include_all: true } : { status: search.status }),
  };
  const list = useQuery({
    queryKey: keys.organisations(workspace, filters, page),
    queryFn: () =>
      unwrap(
        api.GET('/v1/workspaces/{workspaceUuid}/organisations', {
          params: {
            path: { workspaceUuid: workspace },
            query: { ...filters, page, size: PAGE_SIZE },
          },
        }),
      ),
    placeholderData: keepPreviousData,
  });
  const csv = new URLSearchParams();
  for (const [key, value] of Object.entries(filters)) if (value) csv.set(key, String(value));
  return {
    from,
    to,
    page,
    list,
    segments,
    tags: info.data?.available_tags ?? [],
    /** The same list as a CSV download. */
    exportUrl: `/v1/workspaces/${workspace}/organisations.csv?${csv}`,
  };
}
