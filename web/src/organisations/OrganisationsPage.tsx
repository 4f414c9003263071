import { useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { useEffect, useState } from 'react';
import { DateRange } from '../ui/DateRange';
import { ago, count, countryName, dateTime } from '../ui/format';
import { Pager } from '../ui/Pager';
import { SegmentOptions } from '../ui/SegmentOptions';
import { pageParam } from '../ui/search';
import { Empty, Loaded } from '../ui/states';
import { TableWrap } from '../ui/TableWrap';
import { AdHocFilters } from './AdHocFilters';
import { OrganisationName } from './OrganisationName';
import { type OrganisationsSearch, PAGE_SIZE, useOrganisationsPage } from './queries';
import './organisations.css';

/** The lead feed: the organisations that visited, newest activity first. */
export function OrganisationsPage() {
  const { workspace } = useParams({ from: '/w/$workspace' });
  const search = useSearch({ from: '/w/$workspace/organisations' });
  const navigate = useNavigate({ from: '/w/$workspace/organisations' });
  const { from, to, page, list, segments, tags, exportUrl } = useOrganisationsPage(
    workspace,
    search,
  );
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
        <h1>Organisations</h1>
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
                No organisation matches these filters between {from} and {to}.
              </p>
              <p className="small">Try a longer date range, or clear the search and filters.</p>
            </Empty>
          ) : (
            <div className={list.isPlaceholderData ? 'stale' : undefined}>
              <div className="list-meta">
                <span className="muted small" role="status">
                  {count(data.total, 'organisation')}
                </span>
              </div>
              <TableWrap label="Organisations">
                <table className="compact-on-phone">
                  <caption className="visually-hidden">
                    Organisations, most recently active first
                  </caption>
                  <thead>
                    <tr>
                      <th scope="col">Organisation</th>
                      <th scope="col" className="wide-only">
                        Industry
                      </th>
                      <th scope="col" className="wide-only">
                        Size
                      </th>
                      <th scope="col" className="wide-only">
                        Country
                      </th>
                      <th scope="col">Last seen</th>
                      <th scope="col" className="num">
                        Sessions
                      </th>
                      <th scope="col" className="num wide-only">
                        Page views
                      </th>
                      <th scope="col" className="wide-only">
                        Tags
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.data.map((o) => (
                      <tr key={o.uuid}>
                        <td>
                          <OrganisationName
                            workspace={workspace}
                            uuid={o.uuid}
                            name={o.name}
                            logo={o.logo}
                          />
                          {/* On a phone the columns it stands for are hidden. */}
                          <span className="phone-only muted small">
                            {[o.industry, countryName(o.address.country)]
                              .filter(Boolean)
                              .join(' · ')}
                          </span>
                        </td>
                        <td className="wide-only">{o.industry}</td>
                        <td className="nowrap wide-only">{o.size}</td>
                        <td className="wide-only">{countryName(o.address.country)}</td>
                        <td className="nowrap">
                          <time dateTime={o.last_seen} title={dateTime(o.last_seen)}>
                            {ago(o.last_seen)}
                          </time>
                        </td>
                        <td className="num">{o.total_sessions.toLocaleString('en')}</td>
                        <td className="num wide-only">{o.total_pageviews.toLocaleString('en')}</td>
                        <td className="wide-only">
                          {o.tags.map((tag) => (
                            <span className="tag" key={tag}>
                              {tag}
                            </span>
                          ))}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableWrap>
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
