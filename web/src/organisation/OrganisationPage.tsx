import { Link, useParams } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import { ago, dateTime, placeOf } from '../ui/format';
import { OrganisationLogo } from '../ui/OrganisationLogo';
import { ErrorState, Loaded, Loading } from '../ui/states';
import { CustomFieldValues } from './CustomFieldValues';
import { identificationText } from './identification';
import { OwnerAndStatus } from './OwnerAndStatus';
import { ProfileSource } from './ProfileSource';
import { useOrganisationPage } from './queries';
import { ScoreCard } from './ScoreCard';
import { Tags } from './Tags';
import { Visits } from './Visits';
import './organisation.css';

/** One organisation: who they are, how we know, what they did on the site. */
export function OrganisationPage() {
  const { workspace, organisation } = useParams({
    from: '/w/$workspace/organisations/$organisation',
  });
  const { org, contacts, availableTags } = useOrganisationPage(workspace, organisation);

  if (org.isPending) return <Loading what="the organisation" />;
  if (org.isError)
    return (
      <ErrorState what="the organisation" error={org.error} retry={() => void org.refetch()} />
    );
  const o = org.data;
  const place = placeOf(o.address);
  const facts: [string, ReactNode][] = [
    [
      'Website',
      o.website ? (
        <a key="website" href={o.website} rel="noopener noreferrer" target="_blank">
          {o.website.replace(/^https?:\/\//, '')}
        </a>
      ) : (
        ''
      ),
    ],
    ['Industry', o.industry],
    ['Size', o.size ? `${o.size} employees` : ''],
    ['Location', o.address.full_address || place],
    ['Founded', o.founded],
    ['Phone', o.phone],
    ['E-mail', o.email],
    ['Visitors from', o.visitor_locations.join('; ')],
    [
      'Profiles',
      o.profiles.length > 0
        ? o.profiles.map((p, i) => (
            <span key={p.url}>
              {i > 0 ? ', ' : ''}
              <a href={p.url} rel="noopener noreferrer" target="_blank">
                {p.name}
              </a>
            </span>
          ))
        : '',
    ],
  ];

  return (
    <>
      <p className="small">
        <Link to="/w/$workspace/organisations" params={{ workspace }} search={{}}>
          ← Organisations
        </Link>
      </p>
      <div className="org-head">
        <OrganisationLogo name={o.name} logo={o.logo} size="large" />
        <h1>{o.name}</h1>
      </div>
      {o.description ? <p className="org-description">{o.description}</p> : null}
      <OwnerAndStatus workspace={workspace} organisation={o} />
      <section className="figures" aria-label="Activity">
        <div>
          <span className="muted small">Score</span>
          <strong>{o.score}</strong>
        </div>
        <div>
          <span className="muted small">Last seen</span>
          <strong title={dateTime(o.last_seen)}>{ago(o.last_seen)}</strong>
        </div>
        <div>
          <span className="muted small">First seen</span>
          <strong title={dateTime(o.first_seen)}>{ago(o.first_seen)}</strong>
        </div>
        <div>
          <span className="muted small">Sessions</span>
          <strong>{o.total_sessions.toLocaleString('en')}</strong>
        </div>
        <div>
          <span className="muted small">Page views</span>
          <strong>{o.total_pageviews.toLocaleString('en')}</strong>
        </div>
        <div>
          <span className="muted small">Time on site</span>
          <strong>{o.total_time_on_site}</strong>
        </div>
        <div>
          <span className="muted small">Visitors</span>
          <strong>{o.unique_visitor_count.toLocaleString('en')}</strong>
        </div>
      </section>
      <div className="org-layout">
        <Visits workspace={workspace} organisation={organisation} />
        <div className="org-side">
          <ScoreCard workspace={workspace} organisation={o} />
          <section className="card" aria-labelledby="profile-heading">
            <h2 id="profile-heading">Profile</h2>
            <dl className="facts">
              {facts
                .filter(([, value]) => value !== '' && value !== undefined)
                .map(([label, value]) => (
                  <div key={label} style={{ display: 'contents' }}>
                    <dt>{label}</dt>
                    <dd>{value}</dd>
                  </div>
                ))}
            </dl>
            <ProfileSource source={o.profile_source} />
            <h3 style={{ marginTop: 14 }}>How it was identified</h3>
            <p className="small">{identificationText(o.identification)}</p>
          </section>
          <Tags
            workspace={workspace}
            organisation={organisation}
            tags={o.tags}
            available={availableTags}
          />
          <CustomFieldValues
            workspace={workspace}
            organisation={organisation}
            values={o.custom_fields}
          />
          <section className="card" aria-labelledby="segments-heading">
            <h2 id="segments-heading">Segments</h2>
            {o.segments.length === 0 ? (
              <p className="muted small">In no segment.</p>
            ) : (
              <ul>
                {o.segments.map((s) => (
                  <li key={s.uuid}>
                    <Link
                      to="/w/$workspace/segments/$segment"
                      params={{ workspace, segment: s.uuid }}
                    >
                      {s.name}
                    </Link>
                  </li>
                ))}
              </ul>
            )}
          </section>
          <section className="card" aria-labelledby="contacts-heading">
            <h2 id="contacts-heading">Contacts</h2>
            <Loaded query={contacts} what="contacts">
              {(data) =>
                data.data.length === 0 ? (
                  <p className="muted small">Nobody from here has identified themselves yet.</p>
                ) : (
                  <ul>
                    {data.data.map((c) => (
                      <li key={c.uuid}>
                        <a href={`mailto:${c.email}`}>{c.email}</a>{' '}
                        <span className="muted small">last seen {ago(c.last_seen)}</span>
                      </li>
                    ))}
                  </ul>
                )
              }
            </Loaded>
          </section>
        </div>
      </div>
    </>
  );
}
