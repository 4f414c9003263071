import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { useSegments } from '../api/queries';
import { count as countOf } from '../ui/format';
import { Empty, Loaded } from '../ui/states';
import { useSegmentSize } from './queries';
import './segments.css';

/** Saved filters over organisations, with how many are in each now. */
export function SegmentsPage() {
  const { workspace } = useParams({ from: '/w/$workspace' });
  const segments = useSegments(workspace);
  const navigate = useNavigate();
  return (
    <>
      <div className="page-header">
        <h1>Segments</h1>
        <button
          type="button"
          className="button primary"
          onClick={() =>
            void navigate({
              to: '/w/$workspace/segments/$segment',
              params: { workspace, segment: 'new' },
            })
          }
        >
          New segment
        </button>
      </div>
      <Loaded query={segments} what="segments" retry>
        {(data) =>
          data.length === 0 ? (
            <Empty>
              <p>
                No segments yet. Choose “New segment” to create one. A segment is a saved filter,
                such as “Software companies in Germany that visited pricing”: its members stay
                current as visits arrive.
              </p>
            </Empty>
          ) : (
            <section className="card" aria-label="Saved segments">
              <ul className="segment-list">
                {data.map((segment) => (
                  <li key={segment.uuid}>
                    <Link
                      className="name"
                      to="/w/$workspace/segments/$segment"
                      params={{ workspace, segment: segment.uuid }}
                    >
                      {segment.name}
                    </Link>
                    <span className="row small">
                      <Members workspace={workspace} segment={segment.uuid} />
                      <Link
                        to="/w/$workspace/organisations"
                        params={{ workspace }}
                        search={{ segment: segment.uuid }}
                      >
                        View organisations
                        <span className="visually-hidden"> in {segment.name}</span>
                      </Link>
                    </span>
                  </li>
                ))}
              </ul>
            </section>
          )
        }
      </Loaded>
    </>
  );
}

function Members({ workspace, segment }: { workspace: string; segment: string }) {
  const count = useSegmentSize(workspace, segment);
  return (
    <span className="muted">
      {count.isError
        ? 'Count unavailable'
        : count.data === undefined
          ? '…'
          : countOf(count.data, 'organisation')}
    </span>
  );
}
