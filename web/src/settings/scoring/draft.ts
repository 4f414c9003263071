import type { Body, Ok } from '../../api/types';
import {
  type BuilderField,
  type DraftGroup,
  fromFilters,
  isIncomplete,
  toFilters,
} from '../../segments/model';

/** The workspace's scoring as the API answers it, and as it takes it. */
export type Scoring = Ok<'/v1/workspaces/{workspaceUuid}/scoring', 'get'>['data'];
export type ScoringBody = Body<'/v1/workspaces/{workspaceUuid}/scoring', 'put'>;

/** A rule as the editor holds it: its points as typed. */
export interface DraftRule {
  id: number;
  name: string;
  points: string;
  group: DraftGroup;
}
export interface DraftKeyPage {
  id: number;
  url: string;
  points: string;
}
export interface DraftScoring {
  rules: DraftRule[];
  keyPages: DraftKeyPage[];
}

/** Points a rule may give (contract §17); a key page gives 0 or more. */
export const RULE_POINTS = { min: -100, max: 100 } as const;
export const KEY_PAGE_POINTS = { min: 0, max: 100 } as const;

let nextId = 1;
export const newRule = (group: DraftGroup): DraftRule => ({
  id: nextId++,
  name: '',
  points: '10',
  group,
});
export const newKeyPage = (): DraftKeyPage => ({ id: nextId++, url: '', points: '10' });

export function draftOf(scoring: Pick<Scoring, 'rules' | 'key_pages'>): DraftScoring {
  return {
    rules: scoring.rules.map((rule) => ({
      id: nextId++,
      name: rule.name,
      points: String(rule.points),
      group: fromFilters(rule.filters),
    })),
    keyPages: scoring.key_pages.map((page) => ({
      id: nextId++,
      url: page.url_contains,
      points: String(page.points),
    })),
  };
}

export function scoringOf(draft: DraftScoring, fields: BuilderField[]): ScoringBody {
  return {
    rules: draft.rules.map((rule) => ({
      name: rule.name.trim(),
      points: Number(rule.points),
      filters: toFilters(rule.group, fields),
    })),
    key_pages: draft.keyPages.map((page) => ({
      url_contains: page.url.trim(),
      points: Number(page.points),
    })),
  };
}

const pointsIn = (text: string, range: { min: number; max: number }) => {
  const points = Number(text);
  return (
    text.trim() !== '' && Number.isInteger(points) && points >= range.min && points <= range.max
  );
};

/** Whether something is still missing or out of range, so there is nothing to preview yet. */
export function isUnfinished(draft: DraftScoring): boolean {
  return (
    draft.rules.some(
      (rule) =>
        !rule.name.trim() || !pointsIn(rule.points, RULE_POINTS) || isIncomplete(rule.group),
    ) || draft.keyPages.some((page) => !page.url.trim() || !pointsIn(page.points, KEY_PAGE_POINTS))
  );
}

/** The server's problems about what lies under `prefix` (e.g. `rules.1`), keys kept whole. */
export function errorsUnder(
  errors: Record<string, string[]> | undefined,
  prefix: string,
): Record<string, string[]> {
  return Object.fromEntries(
    Object.entries(errors ?? {}).filter(([key]) => key === prefix || key.startsWith(`${prefix}.`)),
  );
}
