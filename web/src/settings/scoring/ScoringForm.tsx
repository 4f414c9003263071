import { type FormEvent, useMemo, useState } from 'react';
import { ApiFailure } from '../../api/client';
import { type BuilderField, newGroup } from '../../segments/model';
import { ChangeFailed } from '../../ui/states';
import { useDebounced } from '../../ui/useDebounced';
import {
  type DraftScoring,
  draftOf,
  isUnfinished,
  newRule,
  type Scoring,
  scoringOf,
} from './draft';
import { KeyPages } from './KeyPages';
import { useScoringPreview, useScoringReset, useScoringSave } from './queries';
import { RuleEditor } from './RuleEditor';
import { ScoringPreview } from './ScoringPreview';

/** At most this many rules (the server's limit). */
const MAX_RULES = 50;

/** The rules and key pages as edited, the preview of what they would do, and saving them. */
export function ScoringForm({
  workspace,
  saved,
  fields,
  editable,
}: {
  workspace: string;
  saved: Scoring;
  fields: BuilderField[];
  editable: boolean;
}) {
  const [draft, setDraft] = useState<DraftScoring>(() => draftOf(saved));
  const body = useMemo(() => scoringOf(draft, fields), [draft, fields]);
  const unfinished = isUnfinished(draft);
  // The preview follows the draft 400 ms after the last change, not on every keystroke.
  const asked = useDebounced(
    useMemo(() => ({ body, unfinished }), [body, unfinished]),
    400,
  );
  const preview = useScoringPreview(workspace, asked.body, !asked.unfinished);
  const stale = !unfinished && (asked.body !== body || preview.isFetching);
  const save = useScoringSave(workspace);
  const reset = useScoringReset(workspace);
  const change = (next: DraftScoring) => {
    setDraft(next);
    save.reset();
    reset.reset();
  };
  function resetToDefaults() {
    reset.mutate(undefined, {
      onSuccess: (defaults) => {
        setDraft(draftOf(defaults));
        save.reset();
      },
    });
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    save.mutate(body);
  }
  const failure = [save.error, preview.error].find((e) => e instanceof ApiFailure);
  const errors = failure?.body?.errors;

  return (
    <form className="stack scoring-form" onSubmit={submit} aria-label="Lead scoring rules">
      <ScoringPreview preview={preview} unfinished={unfinished} stale={stale} />
      <fieldset disabled={!editable} className="stack">
        <legend className="visually-hidden">Rules and key pages</legend>
        <div className="stack">
          <h3>Rules</h3>
          {draft.rules.length === 0 ? <p className="muted small">No rules.</p> : null}
          {draft.rules.map((rule, index) => (
            <RuleEditor
              key={rule.id}
              index={index}
              rule={rule}
              fields={fields}
              errors={errors}
              onChange={(next) =>
                change({ ...draft, rules: draft.rules.map((r) => (r.id === rule.id ? next : r)) })
              }
              onRemove={() =>
                change({ ...draft, rules: draft.rules.filter((r) => r.id !== rule.id) })
              }
            />
          ))}
          {draft.rules.length < MAX_RULES ? (
            <div>
              <button
                type="button"
                className="button small"
                onClick={() =>
                  change({ ...draft, rules: [...draft.rules, newRule(newGroup('AND'))] })
                }
              >
                Add rule
              </button>
            </div>
          ) : null}
        </div>
        <div className="stack">
          <div>
            <h3>Key pages</h3>
            <p className="muted small section-note">
              Points for each page an organisation viewed in the last 30 days whose address contains
              this text.
            </p>
          </div>
          <KeyPages
            pages={draft.keyPages}
            errors={errors}
            onChange={(keyPages) => change({ ...draft, keyPages })}
          />
        </div>
        <div className="row">
          <button type="submit" className="button primary" disabled={save.isPending}>
            Save scoring
          </button>
          {saved.defaults ? null : (
            <button
              type="button"
              className="button"
              disabled={reset.isPending}
              onClick={resetToDefaults}
            >
              Reset to defaults
            </button>
          )}
          <span role="status" className="muted small">
            {save.isSuccess ? 'Saved. Scores follow within a minute.' : ''}
            {reset.isSuccess ? 'Back to the defaults. Scores follow within a minute.' : ''}
          </span>
        </div>
      </fieldset>
      <ChangeFailed error={save.error ?? reset.error} fieldFirst />
    </form>
  );
}
