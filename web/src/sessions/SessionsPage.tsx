import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router';
import type { FormEvent } from 'react';
import { DateRange } from '../ui/DateRange';
import { count, dateTime, pathOf, placeOf } from '../ui/format';
import { Pager } from '../ui/Pager';
import { SegmentOptions } from '../ui/SegmentOptions';
import { pageParam } from '../ui/search';
import { Empty, Loaded } from '../ui/states';
import { TableWrap } from '../ui/TableWrap';
import { PAGE_SIZE, type SessionsSearch, useSessionsPage } from './queries';

const minutes = (from: string, to: string) => {
  const s = Math.max(0, Math.round((Date.parse(to) - Date.parse(from)) / 1000));
  return s < 60 ? `${s} s` : `${Math.round(s / 60)} min`;
};

/** Every identified visit, newest first, with the sessions list's four filters. */
export function SessionsPage() {
  const { workspace } = useParams({ from: '/w/$workspace' });
  const search = useSearch({ from: '/w/$workspace/sessions' });
  const navigate = useNavigate({ from: '/w/$workspace/sessions' });
  const { from, to, page, sessions, names, segments } = useSessionsPage(workspace, search);
  // A change of filter shows its first page.
  const filterBy = (change: Partial<SessionsSearch>) =>
    void navigate({ search: (s) => ({ ...s, ...change, page: undefined }) });

  function filter(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => String(form.get(name) ?? '').trim() || undefined;
    filterBy({ url: text('url'), referrer: text('referrer') });
  }

  return (
    <>
      <div className="page-header">
        <h1>Sessions</h1>
        <DateRange search={search} onChange={filterBy} />
      </div>
      <form
        className="inline-form"
        onSubmit={filter}
        style={{ marginBottom: 12 }}
        key={`${search.url}|${search.referrer}`}
      >
        <label>
          Page URL contains
          <input name="url" defaultValue={search.url ?? ''} placeholder="/pricing" />
        </label>
        <label>
          Referrer contains
          <input name="referrer" defaultValue={search.referrer ?? ''} placeholder="linkedin" />
        </label>
        <label>
          Segment
          <select
            value={search.segment ?? ''}
            onChange={(e) => filterBy({ segment: e.target.value || undefined })}
          >
            <option value="">All organisations</option>
            <SegmentOptions segments={segments.data} />
          </select>
        </label>
        <button type="submit" className="button">
          Apply filters
        </button>
        {search.visitor ? (
          <span className="tag-chip">
            Visitor {search.visitor.slice(0, 8)}…
            <button
              type="button"
              className="button quiet small"
              onClick={() => filterBy({ visitor: undefined })}
            >
              Show all visitors
            </button>
          </span>
        ) : null}
      </form>
      <Loaded query={sessions} what="sessions" retry>
        {(data) =>
          data.total === 0 ? (
            <Empty>
              No identified sessions match between {from} and {to}.
            </Empty>
          ) : (
            <>
              {data.truncated ? (
                <p className="status-warn small">
                  More than {data.organisation_limit.toLocaleString('en')} organisations match: only
                  the sessions of the {data.organisation_limit.toLocaleString('en')} most recently
                  active are listed. Narrow the dates or filters.
                </p>
              ) : null}
              <p className="muted small" role="status">
                {count(data.total, 'session')}
              </p>
              <TableWrap label="Sessions">
                <table className="compact-on-phone">
                  <thead>
                    <tr>
                      <th scope="col">Started</th>
                      <th scope="col">Organisation</th>
                      <th scope="col" className="wide-only">
                        Source
                      </th>
                      <th scope="col">Pages</th>
                      <th scope="col" className="wide-only">
                        Duration
                      </th>
                      <th scope="col" className="wide-only">
                        Location
                      </th>
                      <th scope="col">Visitor</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.data.map((s) => (
                      <tr key={s.uuid}>
                        <td className="nowrap">
                          {dateTime(s.started_at)}
                          {/* On a phone the columns it stands for are hidden. */}
                          <span className="phone-only muted small">
                            {[s.source, minutes(s.started_at, s.ended_at), placeOf(s.location)]
                              .filter(Boolean)
                              .join(' · ')}
                          </span>
                        </td>
                        <td>
                          <Link
                            to="/w/$workspace/organisations/$organisation"
                            params={{ workspace, organisation: s.organisation_uuid }}
                          >
                            {names.data?.get(s.organisation_uuid) ?? 'Organisation'}
                          </Link>
                        </td>
                        <td className="wide-only">{s.source}</td>
                        <td className="small">{s.views.map((v) => pathOf(v.url)).join(' → ')}</td>
                        <td className="nowrap wide-only">{minutes(s.started_at, s.ended_at)}</td>
                        <td className="wide-only">{placeOf(s.location)}</td>
                        <td>
                          <Link
                            to="/w/$workspace/sessions"
                            params={{ workspace }}
                            search={(old) => ({ ...old, visitor: s.visitor_uuid, page: undefined })}
                            aria-label={`Sessions of visitor ${s.visitor_uuid.slice(0, 8)}`}
                          >
                            {s.visitor_uuid.slice(0, 8)}
                          </Link>
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
                noun="session"
                onPage={(next) =>
                  void navigate({ search: (s) => ({ ...s, page: pageParam(next) }) })
                }
              />
            </>
          )
        }
      </Loaded>
    </>
  );
}
