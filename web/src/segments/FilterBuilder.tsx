import {
  type BuilderField,
  COMPARISON_LABELS,
  comparisonsOf,
  type DraftCondition,
  type DraftGroup,
  isAgo,
  isList,
  isRange,
  needsNoValue,
  newCondition,
  newGroup,
  UNITS,
} from './model';

const MAX_DEPTH = 5;

/** The filter grammar as nested groups of conditions; every change goes to `onChange`. */
export function FilterBuilder({
  group,
  fields,
  onChange,
  errors,
  depth = 1,
  onRemove,
}: {
  group: DraftGroup;
  fields: BuilderField[];
  onChange: (group: DraftGroup) => void;
  errors?: Record<string, string[]>;
  depth?: number;
  onRemove?: () => void;
}) {
  const set = (items: DraftGroup['items']) => onChange({ ...group, items });
  const replace = (id: number, next: DraftGroup['items'][number] | null) =>
    set(group.items.flatMap((item) => (item.id === id ? (next ? [next] : []) : [item])));
  return (
    <fieldset className={`filter-group depth-${depth}`}>
      <legend className="visually-hidden">{depth === 1 ? 'Filters' : 'Group of conditions'}</legend>
      <div className="row group-head">
        <label className="small">
          <span className="visually-hidden">Match</span>
          <select
            aria-label="Match"
            value={group.operator}
            onChange={(e) =>
              onChange({ ...group, operator: e.target.value === 'OR' ? 'OR' : 'AND' })
            }
          >
            <option value="AND">All of</option>
            <option value="OR">Any of</option>
          </select>
        </label>
        <span className="muted small">these conditions</span>
        {onRemove ? (
          <button type="button" className="button small quiet" onClick={onRemove}>
            Remove group
          </button>
        ) : null}
      </div>
      <ul className="conditions">
        {group.items.map((item) =>
          item.kind === 'group' ? (
            <li key={item.id}>
              <FilterBuilder
                group={item}
                fields={fields}
                depth={depth + 1}
                onChange={(next) => replace(item.id, next)}
                onRemove={() => replace(item.id, null)}
              />
            </li>
          ) : (
            <li key={item.id}>
              <ConditionRow
                condition={item}
                fields={fields}
                onChange={(next) => replace(item.id, next)}
                onRemove={() => replace(item.id, null)}
              />
            </li>
          ),
        )}
      </ul>
      <div className="row">
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
            onClick={() => set([...group.items, newGroup('OR')])}
          >
            Add group
          </button>
        ) : null}
      </div>
      {depth === 1 && errors
        ? Object.entries(errors).map(([path, messages]) => (
            <p key={path} className="form-error small" role="alert">
              {messages[0]}
            </p>
          ))
        : null}
    </fieldset>
  );
}

function ConditionRow({
  condition,
  fields,
  onChange,
  onRemove,
}: {
  condition: DraftCondition;
  fields: BuilderField[];
  onChange: (condition: DraftCondition) => void;
  onRemove: () => void;
}) {
  const field = fields.find((f) => f.name === condition.field) ?? fields[0];
  const comparisons = field ? comparisonsOf(field) : [];
  const type =
    field?.kind === 'number'
      ? 'number'
      : field?.kind === 'date' && !isAgo(condition.comparison) && !isList(condition.comparison)
        ? 'date'
        : 'text';
  const valueInput = (which: 'value' | 'second', label: string) =>
    field?.options && !isList(condition.comparison) ? (
      <select
        aria-label={label}
        value={condition[which]}
        onChange={(e) => onChange({ ...condition, [which]: e.target.value })}
      >
        <option value="">—</option>
        {field.options.map((o) => (
          <option key={o.key} value={o.key}>
            {o.label}
          </option>
        ))}
      </select>
    ) : (
      <input
        aria-label={label}
        type={isAgo(condition.comparison) ? 'number' : type}
        min={isAgo(condition.comparison) ? 1 : undefined}
        value={condition[which]}
        placeholder={isList(condition.comparison) ? 'a, b, c' : ''}
        onChange={(e) => onChange({ ...condition, [which]: e.target.value })}
      />
    );
  return (
    <div className="condition">
      <select
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
        aria-label="Comparison"
        value={condition.comparison}
        onChange={(e) =>
          onChange({ ...condition, comparison: e.target.value as DraftCondition['comparison'] })
        }
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
      <button
        type="button"
        className="button small quiet"
        onClick={onRemove}
        aria-label="Remove condition"
      >
        ×
      </button>
    </div>
  );
}
