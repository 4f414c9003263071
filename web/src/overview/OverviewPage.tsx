import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { type ReactNode, useId } from 'react';
import { useInstallation } from '../api/queries';
import type { Ok } from '../api/types';
import { DateRange } from '../ui/DateRange';
import { ago, countryName, pathOf } from '../ui/format';
import { Empty, Loaded } from '../ui/states';
import { useOverviewPage } from './queries';
import { VisitsChart } from './VisitsChart';
import './overview.css';

/** The range at a glance: totals, visits per day, where visitors came from, who they were. */
export function OverviewPage() {
  const { workspace } = useParams({ from: '/w/$workspace' });
  const search = useSearch({ from: '/w/$workspace/' });
  const navigate = useNavigate({ from: '/w/$workspace/' });
  const { from, to, stats } = useOverviewPage(workspace, search);
  return (
    <>
      <div className="page-header">
        <h1>Overview</h1>
        <DateRange search={search} onChange={(range) => void navigate({ search: range })} />
      </div>
      <Loaded query={stats} what="the overview" retry>
        {(data) => <OverviewBody workspace={workspace} data={data} from={from} to={to} />}
      </Loaded>
    </>
  );
}

type Stats = Ok<'/v1/workspaces/{workspaceUuid}/stats', 'get'>['data'];

function OverviewBody({
  workspace,
  data,
  from,
  to,
}: {
  workspace: string;
  data: Stats;
  from: string;
  to: string;
}) {
  const { totals } = data;
  const empty = totals.sessions === 0 && data.top_pages.length === 0;
  return (
    <>
      <Totals totals={totals} />
      {empty ? (
        <NoVisits workspace={workspace} from={from} to={to} visitors={totals.visitors} />
      ) : (
        <p className="muted small">The chart and the lists count identified visitors only.</p>
      )}
      <VisitsChart days={data.days} />
      {empty ? null : (
        <div className="grid">
          <TopList
            title="Most active organisations"
            items={data.top_organisations.map((o) => ({
              key: o.uuid,
              label: (
                <Link
                  to="/w/$workspace/organisations/$organisation"
                  params={{ workspace, organisation: o.uuid }}
                >
                  {o.name}
                </Link>
              ),
              count: o.sessions,
            }))}
            unit="sessions"
          />
          <TopList
            title="Top pages"
            items={data.top_pages.map((p) => ({
              key: p.url,
              label: pathOf(p.url),
              count: p.pageviews,
            }))}
            unit="views"
          />
          <TopList
            title="Top sources"
            items={data.top_sources.map((s) => ({
              key: s.source,
              label: s.source,
              count: s.sessions,
            }))}
            unit="sessions"
          />
          <TopList
            title="Top industries"
            items={data.top_industries.map((i) => ({
              key: i.industry,
              label: i.industry,
              count: i.organisations,
            }))}
            unit="organisations"
          />
          <TopList
            title="Top countries"
            items={data.top_countries.map((c) => ({
              key: c.country,
              label: countryName(c.country),
              count: c.organisations,
            }))}
            unit="organisations"
          />
        </div>
      )}
    </>
  );
}

/** "12 of 40 visitors identified (30%)": the share of the range's visitors Footfall named. */
function matchRate({ visitors, identified_visitors: identified }: Stats['totals']) {
  if (visitors === 0) return 'No visitors in this range';
  const percent = (identified / visitors) * 100;
  const shown = identified > 0 && percent < 1 ? '<1' : String(Math.round(percent));
  return `${identified.toLocaleString('en')} of ${visitors.toLocaleString('en')} visitors identified (${shown}%)`;
}

/**
 * The range's figures. Visitors are everyone; sessions, organisations and page views are
 * those of identified visitors (docs/api.md, Stats), and the tiles say so.
 */
function Totals({ totals }: { totals: Stats['totals'] }) {
  const tile = (label: string, value: number, note?: string) => (
    <div className="total">
      <dt>{label}</dt>
      <dd>{value.toLocaleString('en')}</dd>
      {note ? <dd className="total-note">{note}</dd> : null}
    </div>
  );
  return (
    <dl className="totals">
      {tile('Visitors', totals.visitors, matchRate(totals))}
      {tile('Sessions', totals.sessions, 'by identified visitors')}
      {tile('Organisations', totals.organisations)}
      {tile('Page views', totals.pageviews, 'by identified visitors')}
    </dl>
  );
}

/** Nothing identified in the range: says whether anyone visited, and where to look. */
function NoVisits({
  workspace,
  from,
  to,
  visitors,
}: {
  workspace: string;
  from: string;
  to: string;
  visitors: number;
}) {
  if (visitors > 0) {
    return (
      <Empty>
        <p>
          <strong>None of these visitors is identified yet.</strong> Footfall names a visitor’s
          organisation from their company’s network or from a business e-mail address they give;
          visitors on home and mobile connections stay anonymous.
        </p>
      </Empty>
    );
  }
  return <NoVisitsYet workspace={workspace} from={from} to={to} />;
}

/** Nobody in the range: says whether the snippet is sending anything at all. */
function NoVisitsYet({ workspace, from, to }: { workspace: string; from: string; to: string }) {
  const installation = useInstallation(workspace);
  const last = installation.data?.last_event_at;
  return (
    <Empty>
      {installation.isPending ? (
        <p>
          No visits between {from} and {to}.
        </p>
      ) : last ? (
        <p>
          No visits between {from} and {to}. The snippet is sending events (the last {ago(last)}
          ): try a longer date range.
        </p>
      ) : (
        <p>
          <strong>No visits yet.</strong> The tracking snippet has sent nothing in the last two
          days: add it to your site, and visits appear here within seconds.
        </p>
      )}
      <Link to="/w/$workspace/settings" params={{ workspace }}>
        {last ? 'Check the installation in Settings' : 'Get the snippet in Settings'}
      </Link>
    </Empty>
  );
}

function TopList({
  title,
  items,
  unit,
}: {
  title: string;
  items: { key: string; label: ReactNode; count: number }[];
  unit: string;
}) {
  const max = Math.max(1, ...items.map((item) => item.count));
  // An id of its own: the title has spaces, which would split aria-labelledby's reference.
  const heading = useId();
  return (
    <section className="card" aria-labelledby={heading}>
      <h2 id={heading}>{title}</h2>
      {items.length === 0 ? (
        <p className="muted small">Nothing in this range.</p>
      ) : (
        <ol className="toplist">
          {items.map((item) => (
            <li key={item.key}>
              <span
                className="fill"
                style={{ width: `${(item.count / max) * 100}%` }}
                aria-hidden="true"
              />
              <span>{item.label}</span>
              <span className="count">
                {item.count.toLocaleString('en')} <span className="visually-hidden">{unit}</span>
              </span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
