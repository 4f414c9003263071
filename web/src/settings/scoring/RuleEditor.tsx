import { FilterBuilder } from '../../segments/FilterBuilder';
import { type BuilderField, withMissing } from '../../segments/model';
import { type DraftRule, errorsUnder, RULE_POINTS } from './draft';
import { PointsField } from './PointsField';
import '../../segments/segments.css';

/** One scoring rule: its name, its points, and the organisations it applies to. */
export function RuleEditor({
  index,
  rule,
  fields,
  errors,
  onChange,
  onRemove,
}: {
  index: number;
  rule: DraftRule;
  fields: BuilderField[];
  errors: Record<string, string[]> | undefined;
  onChange: (rule: DraftRule) => void;
  onRemove: () => void;
}) {
  const path = `rules.${index}`;
  const nameProblem = errors?.[`${path}.name`]?.[0];
  const pointsProblem = errors?.[`${path}.points`]?.[0];
  return (
    <fieldset className="rule-editor">
      <legend>Rule {index + 1}</legend>
      <div className="rule-head">
        <label className="rule-name">
          Rule name
          <input
            value={rule.name}
            required
            maxLength={100}
            placeholder="e.g. Software companies"
            aria-invalid={nameProblem ? true : undefined}
            onChange={(event) => onChange({ ...rule, name: event.target.value })}
          />
        </label>
        <PointsField
          value={rule.points}
          range={RULE_POINTS}
          invalid={Boolean(pointsProblem)}
          onChange={(points) => onChange({ ...rule, points })}
        />
        <button type="button" className="button small quiet danger" onClick={onRemove}>
          Remove<span className="visually-hidden"> rule {index + 1}</span>
        </button>
      </div>
      {[nameProblem, pointsProblem].filter(Boolean).map((problem) => (
        <p key={problem} className="form-error small">
          {problem}
        </p>
      ))}
      <p className="muted small rule-applies">Applies to organisations matching:</p>
      <FilterBuilder
        group={rule.group}
        fields={withMissing(fields, rule.group)}
        path={`${path}.filters`}
        errors={errorsUnder(errors, `${path}.filters`)}
        onChange={(group) => onChange({ ...rule, group })}
      />
    </fieldset>
  );
}
