import './score.css';

/** Above this a lead is hot (the scoring preview counts the same). */
export const HOT_SCORE = 60;

/** A score of 0..100 as a short bar and its number; the bar is decoration, the number says it. */
export function ScoreMeter({ score }: { score: number }) {
  const band = score > HOT_SCORE ? 'hot' : score >= 30 ? 'warm' : 'cold';
  return (
    <span className={`score-meter ${band}`}>
      <span className="score-bar" aria-hidden="true">
        <span style={{ width: `${Math.max(0, Math.min(100, score))}%` }} />
      </span>
      <span className="score-number">{score}</span>
    </span>
  );
}

/** "+25", "−10": a reason's points with their sign. */
export const signedPoints = (points: number) =>
  points > 0 ? `+${points}` : points < 0 ? `−${Math.abs(points)}` : '0';
