import type { Organisation } from '../api/types';
import { ago, count, countryName, dateTime } from '../ui/format';
import { STATUS_LABELS } from '../ui/status';
import { TableWrap } from '../ui/TableWrap';
import { OrganisationName } from './OrganisationName';
import { ScoreButton } from './ScoreButton';
import { SortHeader } from './SortHeader';
import { describeSort, type Sort } from './sort';

/** One page of the lead feed, in the order chosen by its sortable column headers. */
export function LeadTable({
  workspace,
  organisations,
  sort,
  onSort,
}: {
  workspace: string;
  organisations: Organisation[];
  sort: Sort;
  onSort: (sort: Sort) => void;
}) {
  const sortable = { sort, onSort };
  return (
    <TableWrap label="Organisations">
      <table className="compact-on-phone lead-table">
        <caption className="visually-hidden">Organisations, {describeSort(sort)}</caption>
        <thead>
          <tr>
            <SortHeader label="Organisation" column="name" {...sortable} />
            <SortHeader label="Score" column="score" {...sortable} />
            <th scope="col" className="wide-only">
              Owner
            </th>
            <th scope="col" className="wide-only">
              Industry
            </th>
            <th scope="col" className="wide-only">
              Size
            </th>
            <th scope="col" className="wide-only">
              Country
            </th>
            <SortHeader label="Last seen" column="last_seen" {...sortable} />
            <SortHeader
              label="Sessions"
              column="sessions"
              className="num wide-only"
              {...sortable}
            />
            <th scope="col" className="num wide-only">
              Page views
            </th>
            <th scope="col" className="wide-only">
              Tags
            </th>
          </tr>
        </thead>
        <tbody>
          {organisations.map((o) => (
            <LeadRow key={o.uuid} workspace={workspace} organisation={o} />
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

function LeadRow({
  workspace,
  organisation: o,
}: {
  workspace: string;
  organisation: Organisation;
}) {
  return (
    <tr>
      <td>
        <OrganisationName workspace={workspace} uuid={o.uuid} name={o.name} logo={o.logo} />
        {o.status === 'lead' ? null : (
          <span className="tag status-tag">{STATUS_LABELS[o.status]}</span>
        )}
        {/* On a phone the columns it stands for are hidden. */}
        <span className="phone-only muted small">
          {[o.industry, countryName(o.address.country), count(o.total_sessions, 'session')]
            .filter(Boolean)
            .join(' · ')}
        </span>
      </td>
      <td>
        <ScoreButton score={o.score} reasons={o.score_reasons} />
      </td>
      <td className="wide-only">{o.owner ? o.owner.name || o.owner.email : ''}</td>
      <td className="wide-only">{o.industry}</td>
      <td className="nowrap wide-only">{o.size}</td>
      <td className="wide-only">{countryName(o.address.country)}</td>
      <td className="nowrap">
        <time dateTime={o.last_seen} title={dateTime(o.last_seen)}>
          {ago(o.last_seen)}
        </time>
      </td>
      <td className="num wide-only">{o.total_sessions.toLocaleString('en')}</td>
      <td className="num wide-only">{o.total_pageviews.toLocaleString('en')}</td>
      <td className="wide-only">
        {o.tags.map((tag) => (
          <span className="tag" key={tag}>
            {tag}
          </span>
        ))}
      </td>
    </tr>
  );
}
