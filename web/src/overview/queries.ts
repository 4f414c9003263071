import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, unwrapData } from '../api/client';
import { keys } from '../api/keys';
import { type DateRangeSearch, rangeOf } from '../ui/search';

/** The figures of the URL's date range: totals, days and top lists. */
export function useOverviewPage(workspace: string, search: DateRangeSearch) {
  const { from, to } = rangeOf(search);
  const stats = useQuery({
    queryKey: keys.stats(workspace, from, to),
    queryFn: () =>
      unwrapData(
        api.GET('/v1/workspaces/{workspaceUuid}/stats', {
          params: { path: { workspaceUuid: workspace }, query: { date_from: from, date_to: to } },
        }),
      ),
    placeholderData: keepPreviousData,
  });
  return { from, to, stats };
}
