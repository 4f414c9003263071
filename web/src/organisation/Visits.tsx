import { useState } from 'react';
import type { Ok } from '../api/types';
import { dateTime, pathOf, placeOf } from '../ui/format';
import { Pager } from '../ui/Pager';
import { Empty, Loaded } from '../ui/states';
import { useVisits, VISITS_PAGE_SIZE } from './queries';

type Session = Ok<'/v1/workspaces/{workspaceUuid}/sessions', 'get'>['data'][number];
type SessionEvent = Session['events'][number];

const time = (iso: string) =>
  new Date(iso).toLocaleTimeString(undefined, {
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
const duration = (from: string, to: string) => {
  const s = Math.max(0, Math.round((Date.parse(to) - Date.parse(from)) / 1000));
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
};

/** An organisation's sessions, newest first, each with its page views and events in order. */
export function Visits({ workspace, organisation }: { workspace: string; organisation: string }) {
  const [page, setPage] = useState(1);
  const sessions = useVisits(workspace, organisation, page);
  return (
    <section aria-labelledby="visits-heading">
      <h2 id="visits-heading">Visits</h2>
      <Loaded query={sessions} what="visits" retry>
        {(data) =>
          data.total === 0 ? (
            <Empty>No visits recorded yet.</Empty>
          ) : (
            <>
              <ol className="visits" aria-label="Visits, newest first">
                {data.data.map((session) => (
                  <Visit key={session.uuid} session={session} />
                ))}
              </ol>
              <Pager
                page={page}
                size={VISITS_PAGE_SIZE}
                total={data.total}
                noun="visit"
                onPage={setPage}
              />
            </>
          )
        }
      </Loaded>
    </section>
  );
}

function Visit({ session }: { session: Session }) {
  const place = placeOf(session.location);
  const headingId = `visit-${session.uuid}`;
  return (
    <li className="visit" aria-labelledby={headingId}>
      <div className="visit-head">
        <h3 id={headingId}>
          <time dateTime={session.started_at}>{dateTime(session.started_at)}</time>
        </h3>
        <span className="muted small">{duration(session.started_at, session.ended_at)}</span>
        <span className="small">
          <span className="muted">Source</span> {session.source}
        </span>
        {place ? <span className="small">{place}</span> : null}
        <span className="small muted">
          {[session.browser, session.device_type].filter(Boolean).join(' · ')}
        </span>
      </div>
      <ol className="timeline" aria-label="Pages and events in order">
        {session.events.map((event, index) => (
          // Events carry no id of their own; their order in the session is stable.
          // biome-ignore lint/suspicious/noArrayIndexKey: see above
          <TimelineItem key={index} event={event} />
        ))}
      </ol>
    </li>
  );
}

function TimelineItem({ event }: { event: SessionEvent }) {
  const when = <span className="when">{time(event.triggered_at)}</span>;
  const pairs = (list: { name: string; value: string }[] | undefined) =>
    list && list.length > 0 ? (
      <dl className="pairs">
        {list.map((pair) => (
          <div key={pair.name}>
            <dt>{pair.name}:</dt> <dd>{pair.value}</dd>
          </div>
        ))}
      </dl>
    ) : null;
  const property = (name: string) => event.properties?.find((p) => p.name === name)?.value ?? '';
  switch (event.event_type) {
    case 'pageview':
      return (
        <li className="kind-pageview">
          {when}
          <span className="what">Viewed</span> {pathOf(event.url)}
          {event.time_on_page ? (
            <span className="muted small"> · {event.time_on_page} s</span>
          ) : null}
        </li>
      );
    case 'form_submit':
    case 'form_abandon':
      return (
        <li className={`kind-${event.event_type}`}>
          {when}
          <span className="what">
            {event.event_type === 'form_submit' ? 'Submitted form' : 'Abandoned form'}
          </span>{' '}
          {event.form_name || event.form_id || 'a form'} on {pathOf(event.url)}
          {pairs(event.fields)}
        </li>
      );
    case 'custom':
      return (
        <li className="kind-custom">
          {when}
          <span className="what">Event</span> {event.name}
          {pairs(event.properties)}
        </li>
      );
    case 'download':
      return (
        <li className="kind-download">
          {when}
          <span className="what">Downloaded</span> {property('text') || pathOf(property('href'))}
        </li>
      );
    default:
      return (
        <li className="kind-click">
          {when}
          <span className="what">Clicked</span> {property('text') || property('href')}
          {property('href') ? <span className="muted small"> → {property('href')}</span> : null}
        </li>
      );
  }
}
