import { useId } from 'react';
import {
  type BuilderField,
  COMPARISON_LABELS,
  comparisonsOf,
  type DraftCondition,
  type DraftGroup,
  errorsAt,
  isAgo,
  isList,
  isRange,
  needsNoValue,
  newCondition,
  newGroup,
  shapeOf,
  UNITS,
} from './model';

/** Groups nest at most this deep (contract §9). */
const MAX_DEPTH = 5;

/** The filter grammar as nested groups of conditions; every change goes to `onChange`. */
export function FilterBuilder({
  group,
  fields,
  onChange,
  errors,
  depth = 1,
  path = 'filters',
  onRemove,
}: {
  group: DraftGroup;
  fields: BuilderField[];
  onChange: (group: DraftGroup) => void;
  /** The server's problems keyed by dotted path (contract §2), shown beside what they concern. */
  errors?: Record<string, string[]>;
  depth?: number;
  path?: string;
  onRemove?: () => void;
}) {
  const set = (items: DraftGroup['items']) => onChange({ ...group, items });
  const replace = (id: number, next: DraftGroup['items'][number] | null) => {
    const items = group.items.flatMap((item) => (item.id === id ? (next ? [next] : []) : [item]));
    // A group holds at least one condition: emptying a nested group removes it, and the
    // last condition of the whole filter gives way to a blank one.
    if (items.length > 0) set(items);
    else if (onRemove) onRemove();
    else set([newCondition()]);
  };
  const own = errorsAt(errors, path, true);
  // Problems of the whole filter that name no condition (e.g. too many conditions).
  const loose =
    depth === 1 && errors
      ? Object.entries(errors)
          .filter(([key]) => key !== path && !key.startsWith(`${path}.`) && key !== 'name')
          .flatMap(([, messages]) => messages)
      : [];
  return (
    <fieldset className={`filter-group depth-${depth}`}>
      <legend className="visually-hidden">{depth === 1 ? 'Filters' : 'Group of conditions'}</legend>
      <div className="group-head">
        <select
          aria-label="Match"
          value={group.operator}
          onChange={(e) => onChange({ ...group, operator: e.target.value === 'OR' ? 'OR' : 'AND' })}
        >
          <option value="AND">All of</option>
          <option value="OR">Any of</option>
        </select>
        <span className="muted small">these conditions</span>
        {onRemove ? (
          <button type="button" className="button small quiet remove-group" onClick={onRemove}>
            Remove group
          </button>
        ) : null}
      </div>
      <ul className="conditions">
        {group.items.map((item, index) => {
          const itemPath = `${path}.conditions.${index}`;
          return item.kind === 'group' ? (
            <li key={item.id}>
              <FilterBuilder
                group={item}
                fields={fields}
                errors={errors}
                depth={depth + 1}
                path={itemPath}
                onChange={(next) => replace(item.id, next)}
                onRemove={() => replace(item.id, null)}
              />
            </li>
          ) : (
            <li key={item.id}>
              <ConditionRow
                condition={item}
                fields={fields}
                problems={errorsAt(errors, itemPath)}
                onChange={(next) => replace(item.id, next)}
                onRemove={() => replace(item.id, null)}
              />
            </li>
          );
        })}
      </ul>
      {[...own, ...loose].map((message) => (
        <p key={message} className="form-error small">
          {message}
        </p>
      ))}
      <div className="row group-actions">
        <button
          type="button"
          className="button small"
          onClick={() => set([...group.items, newCondition()])}
        >
          Add condition
        </button>
        {depth < MAX_DEPTH ? (
          <button
            type="button"
            className="button small"
            onClick={() => set([...group.items, newGroup(group.operator === 'AND' ? 'OR' : 'AND')])}
          >
            Add group
          </button>
        ) : null}
      </div>
    </fieldset>
  );
}

function ConditionRow({
  condition,
  fields,
  problems,
  onChange,
  onRemove,
}: {
  condition: DraftCondition;
  fields: BuilderField[];
  problems: string[];
  onChange: (condition: DraftCondition) => void;
  onRemove: () => void;
}) {
  const problemId = useId();
  const field = fields.find((f) => f.name === condition.field) ?? fields[0];
  const comparisons = field ? comparisonsOf(field) : [];
  const shape = shapeOf(condition.comparison);
  const invalid = problems.length > 0;
  const described = invalid ? problemId : undefined;
  // Lists are typed as comma-separated text, whatever the field's kind.
  const type =
    shape === 'list'
      ? 'text'
      : shape === 'amount' || field?.kind === 'number'
        ? 'number'
        : field?.kind === 'date'
          ? 'date'
          : 'text';
  // A select field's whole values are its options; parts of them (contains…) are free text.
  const choose =
    field?.options && (condition.comparison === 'equal' || condition.comparison === 'not_equal');
  const valueInput = (which: 'value' | 'second', label: string) =>
    choose ? (
      <select
        aria-label={label}
        aria-invalid={invalid || undefined}
        aria-describedby={described}
        value={condition[which]}
        onChange={(e) => onChange({ ...condition, [which]: e.target.value })}
      >
        <option value="">Choose…</option>
        {field?.options?.map((o) => (
          <option key={o.key} value={o.key}>
            {o.label}
          </option>
        ))}
      </select>
    ) : (
      <input
        aria-label={label}
        aria-invalid={invalid || undefined}
        aria-describedby={described}
        className={`value value-${type}`}
        type={type}
        min={shape === 'amount' ? 1 : undefined}
        step={shape === 'amount' ? 1 : type === 'number' ? 'any' : undefined}
        value={condition[which]}
        placeholder={
          shape === 'list'
            ? field?.kind === 'date'
              ? 'YYYY-MM-DD, YYYY-MM-DD'
              : 'comma, separated, values'
            : ''
        }
        onChange={(e) => onChange({ ...condition, [which]: e.target.value })}
      />
    );
  return (
    <div className={`condition${invalid ? ' invalid' : ''}`}>
      <div className="condition-controls">
        <select
          className="field-select"
          aria-label="Field"
          value={condition.field}
          onChange={(e) => {
            const next = fields.find((f) => f.name === e.target.value);
            const allowed = next ? comparisonsOf(next) : [];
            onChange({
              ...condition,
              field: e.target.value,
              comparison: allowed.includes(condition.comparison)
                ? condition.comparison
                : (allowed[0] ?? 'equal'),
              value: '',
              second: '',
            });
          }}
        >
          {fields.map((f) => (
            <option key={f.name} value={f.name}>
              {f.label}
            </option>
          ))}
        </select>
        <select
          className="comparison-select"
          aria-label="Comparison"
          value={condition.comparison}
          onChange={(e) => {
            const comparison = e.target.value as DraftCondition['comparison'];
            // Keep what was typed while it still fits: one value stays the low end of a range.
            const from = shapeOf(condition.comparison);
            const to = shapeOf(comparison);
            const keep = from === to || (from !== 'amount' && to !== 'amount' && from !== 'none');
            onChange({
              ...condition,
              comparison,
              value: keep ? condition.value : '',
              second: keep && to === 'range' ? condition.second : '',
            });
          }}
        >
          {comparisons.map((c) => (
            <option key={c} value={c}>
              {COMPARISON_LABELS[c]}
            </option>
          ))}
        </select>
        {needsNoValue(condition.comparison) ? null : valueInput('value', 'Value')}
        {isRange(condition.comparison) ? (
          <>
            <span className="muted small">and</span>
            {valueInput('second', 'Second value')}
          </>
        ) : null}
        {isAgo(condition.comparison) ? (
          <select
            aria-label="Unit"
            value={condition.unit}
            onChange={(e) =>
              onChange({ ...condition, unit: e.target.value as DraftCondition['unit'] })
            }
          >
            {UNITS.map((unit) => (
              <option key={unit} value={unit}>
                {unit}
              </option>
            ))}
          </select>
        ) : null}
        {isList(condition.comparison) ? (
          <span className="muted small hint">separate values with commas</span>
        ) : null}
        <button
          type="button"
          className="button small quiet remove"
          onClick={onRemove}
          aria-label="Remove condition"
          title="Remove condition"
        >
          ×
        </button>
      </div>
      {invalid ? (
        <p id={problemId} className="form-error small">
          {problems.join(' ')}
        </p>
      ) : null}
    </div>
  );
}
