import type { UseQueryResult } from '@tanstack/react-query';
import { ApiFailure } from '../../api/client';
import { count } from '../../ui/format';
import { HOT_SCORE } from '../../ui/ScoreMeter';

interface Preview {
  threshold: number;
  above: number;
  leads: number;
}

/**
 * What the rules as edited would do: "12 of 40 leads would score above 60", announced
 * politely; while the next answer comes, the last one is dimmed.
 */
export function ScoringPreview({
  preview,
  unfinished,
  stale,
}: {
  preview: UseQueryResult<Preview>;
  unfinished: boolean;
  stale: boolean;
}) {
  return (
    <p className={`scoring-preview${stale ? ' stale' : ''}`} role="status">
      {previewText(preview, unfinished)}
    </p>
  );
}

function previewText(preview: UseQueryResult<Preview>, unfinished: boolean): string {
  if (unfinished) {
    return `Fill in every rule and key page to see how many leads would score above ${HOT_SCORE}.`;
  }
  if (preview.error instanceof ApiFailure) return `No preview: ${preview.error.firstMessage()}`;
  if (preview.isError) return 'The preview could not be loaded.';
  if (!preview.data) return 'Counting…';
  const { above, leads, threshold } = preview.data;
  return `${above.toLocaleString('en')} of ${count(leads, 'lead')} would score above ${threshold}`;
}
