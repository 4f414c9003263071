import { type RefObject, useEffect, useId, useLayoutEffect, useRef, useState } from 'react';
import type { Organisation } from '../api/types';
import { ScoreMeter, signedPoints } from '../ui/ScoreMeter';

/**
 * An organisation's score in the lead feed; hovering or focusing it shows what gave it (the
 * reasons are its description, so a screen reader says them too). Escape hides them.
 */
export function ScoreButton({
  score,
  reasons,
}: {
  score: number;
  reasons: Organisation['score_reasons'];
}) {
  const tipId = useId();
  const [hovered, setHovered] = useState(false);
  const [focused, setFocused] = useState(false);
  const [dismissed, setDismissed] = useState(false);
  const open = (hovered || focused) && !dismissed;
  const button = useRef<HTMLButtonElement>(null);
  const tip = useRef<HTMLSpanElement>(null);
  useFollow(open, button, tip);
  // Escape hides them wherever focus is (they may be open under the pointer).
  useEffect(() => {
    if (!open) return;
    const hide = (event: KeyboardEvent) => {
      if (event.key === 'Escape') setDismissed(true);
    };
    document.addEventListener('keydown', hide);
    return () => document.removeEventListener('keydown', hide);
  }, [open]);

  return (
    // Hovering the reasons keeps them open, so they can be read with a magnifier.
    // biome-ignore lint/a11y/noStaticElementInteractions: hover only; the button takes focus
    <span
      className="score-cell"
      onMouseEnter={() => {
        setHovered(true);
        setDismissed(false);
      }}
      onMouseLeave={() => setHovered(false)}
    >
      <button
        ref={button}
        type="button"
        className="score-button"
        aria-describedby={tipId}
        onFocus={() => {
          setFocused(true);
          setDismissed(false);
        }}
        onBlur={() => setFocused(false)}
        onClick={() => setDismissed(false)}
      >
        <span className="visually-hidden">Score </span>
        <ScoreMeter score={score} />
      </button>
      <span ref={tip} id={tipId} role="tooltip" className="score-tip" hidden={!open}>
        <span className="score-tip-title">Why {score}</span>
        {reasons.length === 0 ? (
          <span className="muted"> No rule or key page adds to it yet.</span>
        ) : (
          <ul>
            {reasons.map((r) => (
              <li key={r.reason}>
                <span>{r.reason}</span> <span className="points">{signedPoints(r.points)}</span>
              </li>
            ))}
          </ul>
        )}
      </span>
    </span>
  );
}

/**
 * Keeps the open reasons beside the score, below it or above when there is no room: fixed to
 * the window, so the table's scrolling frame does not clip them.
 */
function useFollow(
  open: boolean,
  anchor: RefObject<HTMLElement | null>,
  floating: RefObject<HTMLElement | null>,
) {
  useLayoutEffect(() => {
    if (!open) return;
    const place = () => {
      const target = anchor.current?.getBoundingClientRect();
      const tip = floating.current;
      if (!target || !tip) return;
      const { width, height } = tip.getBoundingClientRect();
      const below = target.bottom + 6;
      const top = below + height > window.innerHeight ? target.top - height - 6 : below;
      const left = Math.max(8, Math.min(target.left, window.innerWidth - width - 8));
      tip.style.top = `${Math.max(8, top)}px`;
      tip.style.left = `${left}px`;
    };
    place();
    window.addEventListener('scroll', place, true);
    window.addEventListener('resize', place);
    return () => {
      window.removeEventListener('scroll', place, true);
      window.removeEventListener('resize', place);
    };
  }, [open, anchor, floating]);
}
