import { Link } from '@tanstack/react-router';
import type { Organisation } from '../api/types';
import { ScoreMeter, signedPoints } from '../ui/ScoreMeter';

/** The lead score and the rules and key pages that gave it, largest first. */
export function ScoreCard({
  workspace,
  organisation: o,
}: {
  workspace: string;
  organisation: Organisation;
}) {
  return (
    <section className="card" aria-labelledby="score-heading">
      <h2 id="score-heading">Score</h2>
      <p className="score-large">
        <ScoreMeter score={o.score} />
        <span className="muted small"> of 100</span>
      </p>
      {o.score_reasons.length === 0 ? (
        <p className="muted small">No scoring rule or key page adds to it yet.</p>
      ) : (
        <ul className="score-reasons" aria-label="Why this score">
          {o.score_reasons.map((r) => (
            <li key={r.reason}>
              <span>{r.reason}</span>
              <span className={r.points < 0 ? 'points negative' : 'points'}>
                {signedPoints(r.points)}
              </span>
            </li>
          ))}
        </ul>
      )}
      <p className="small">
        <Link to="/w/$workspace/settings" params={{ workspace }} hash="lead-scoring">
          How scores are made
        </Link>
      </p>
    </section>
  );
}
