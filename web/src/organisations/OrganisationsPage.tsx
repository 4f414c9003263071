import { useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { useEffect, useState } from 'react';
import { DateRange } from '../ui/DateRange';
import { count } from '../ui/format';
import { Pager } from '../ui/Pager';
import { SegmentOptions } from '../ui/SegmentOptions';
import { pageParam } from '../ui/search';
import { Empty, Loaded } from '../ui/states';
import { AdHocFilters } from './AdHocFilters';
import { LeadTable } from './LeadTable';
import { type OrganisationsSearch, PAGE_SIZE, useOrganisationsPage } from './queries';
import { StatusFilter } from './StatusFilter';
import { sortOf, sortParam } from './sort';
import { WhoseSwitch } from './WhoseSwitch';
import './organisations.css';

/**
 * The lead feed: the organisations that visited, newest activity first unless another order
 * is chosen; leads only unless other statuses are asked for; everyone's or My accounts.
 */
export function OrganisationsPage() {
  const { workspace } = useParams({ from: '/w/$workspace' });
  const search = useSearch({ from: '/w/$workspace/organisations' });
  const navigate = useNavigate({ from: '/w/$workspace/organisations' });
  const { from, to, page, list, segments, tags, exportUrl } = useOrganisationsPage(
    workspace,
    search,
  );
  const sort = sortOf(search.sort);
  const mine = search.owner === 'me';
  const [text, setText] = useState(search.q ?? '');
  // A change of filter shows its first page.
  const filterBy = (change: Partial<OrganisationsSearch>) =>
    void navigate({ search: (s) => ({ ...s, ...change, page: undefined }) });

  // The search box writes to the URL after a pause in typing, and follows it back.
  useEffect(() => setText(search.q ?? ''), [search.q]);
  useEffect(() => {
    if (text === (search.q ?? '')) return;
    const timer = setTimeout(
      () => void navigate({ search: (s) => ({ ...s, q: text || undefined, page: undefined }) }),
      300,
    );
    return () => clearTimeout(timer);
  }, [text, search.q, navigate]);

  return (
    <>
      <div className="page-header">
        <div className="title-with-views">
          <h1>Organisations</h1>
          <WhoseSwitch mine={mine} onChange={(me) => filterBy({ owner: me ? 'me' : undefined })} />
        </div>
        <div className="row header-actions">
          <DateRange search={search} onChange={filterBy} />
          <button
            type="button"
            className="button"
            onClick={() => window.location.assign(exportUrl)}
          >
            Export CSV
          </button>
        </div>
      </div>
      <search className="filters" aria-label="Filter organisations">
        <label>
          Search
          <input
            type="search"
            aria-label="Search organisations"
            placeholder="Name or domain…"
            value={text}
            onChange={(event) => setText(event.target.value)}
          />
        </label>
        <label>
          Segment
          <select
            aria-label="Segment"
            value={search.segment ?? ''}
            onChange={(event) => filterBy({ segment: event.target.value || undefined })}
          >
            <option value="">All organisations</option>
            <SegmentOptions segments={segments.data} />
          </select>
        </label>
        <label>
          Tag
          <select
            aria-label="Tag"
            value={search.tag ?? ''}
            onChange={(event) => filterBy({ tag: event.target.value || undefined })}
          >
            <option value="">Any tag</option>
            {tags.map((tag) => (
              <option key={tag} value={tag}>
                {tag}
              </option>
            ))}
          </select>
        </label>
        <StatusFilter value={search.status} onChange={(status) => filterBy({ status })} />
      </search>
      <AdHocFilters
        workspace={workspace}
        value={search.filters}
        onApply={(filters) => filterBy({ filters })}
      />
      <Loaded query={list} what="organisations" retry>
        {(data) =>
          data.total === 0 ? (
            <Empty>
              <p>
                {mine ? 'None of your accounts matches' : 'No organisation matches'} these filters
                between {from} and {to}.
              </p>
              <p className="small">
                {mine
                  ? 'You own an organisation once someone chooses you as its Owner on its page.'
                  : 'Try a longer date range, or clear the search and filters.'}
              </p>
            </Empty>
          ) : (
            <div className={list.isPlaceholderData ? 'stale' : undefined}>
              <div className="list-meta">
                <span className="muted small" role="status">
                  {count(data.total, 'organisation')}
                </span>
              </div>
              <LeadTable
                workspace={workspace}
                organisations={data.data}
                sort={sort}
                onSort={(next) => filterBy({ sort: sortParam(next) })}
              />
              <Pager
                page={page}
                size={PAGE_SIZE}
                total={data.total}
                noun="organisation"
                onPage={(next) =>
                  void navigate({ search: (s) => ({ ...s, page: pageParam(next) }) })
                }
              />
            </div>
          )
        }
      </Loaded>
    </>
  );
}
