import { type FormEvent, type ReactNode, useState } from 'react';
import { ApiFailure } from '../api/client';
import { useCustomFields } from '../api/queries';
import type { Ok } from '../api/types';
import { Loaded } from '../ui/states';
import { useFieldValueChange, type CustomFieldValue as Value } from './queries';

type Field = Ok<'/v1/workspaces/{workspaceUuid}/custom-fields', 'get'>['data'][number];

/** The workspace's custom fields for this organisation, each edited as its type asks. */
export function CustomFieldValues({
  workspace,
  organisation,
  values,
}: {
  workspace: string;
  organisation: string;
  values: Record<string, unknown>;
}) {
  const fields = useCustomFields(workspace);
  return (
    <section className="card" aria-labelledby="fields-heading">
      <h2 id="fields-heading">Custom fields</h2>
      <Loaded query={fields} what="custom fields">
        {(data) =>
          data.length === 0 ? (
            <p className="muted small">
              No custom fields yet. Add them under Settings → Custom fields.
            </p>
          ) : (
            data.map((field) => (
              <FieldValue
                key={field.key}
                workspace={workspace}
                organisation={organisation}
                field={field}
                value={values[field.key] as Value | undefined}
              />
            ))
          )
        }
      </Loaded>
    </section>
  );
}

function FieldValue({
  workspace,
  organisation,
  field,
  value,
}: {
  workspace: string;
  organisation: string;
  field: Field;
  value: Value | undefined;
}) {
  const [draft, setDraft] = useState<Value | undefined>(value);
  const [saved, setSaved] = useState(false);
  const save = useFieldValueChange(workspace, organisation, field.key, () => setSaved(true));
  const id = `field-${field.key}`;
  const change = (next: Value | undefined) => {
    setSaved(false);
    setDraft(next);
  };

  function submit(event: FormEvent) {
    event.preventDefault();
    save.mutate(draft);
  }

  let input: ReactNode;
  switch (field.type) {
    case 'boolean':
      input = (
        <input
          id={id}
          type="checkbox"
          checked={draft === true}
          onChange={(e) => change(e.target.checked)}
        />
      );
      break;
    case 'number':
      input = (
        <input
          id={id}
          type="number"
          value={draft === undefined ? '' : String(draft)}
          onChange={(e) => change(e.target.value === '' ? undefined : Number(e.target.value))}
        />
      );
      break;
    case 'date':
      input = (
        <input
          id={id}
          type="date"
          value={String(draft ?? '')}
          onChange={(e) => change(e.target.value)}
        />
      );
      break;
    case 'select':
      input = (
        <select
          id={id}
          value={String(draft ?? '')}
          onChange={(e) => change(e.target.value || undefined)}
        >
          <option value="">—</option>
          {field.options.map((option) => (
            <option key={option.key} value={option.key}>
              {option.label}
            </option>
          ))}
        </select>
      );
      break;
    case 'multi_select': {
      const chosen = Array.isArray(draft) ? draft : [];
      input = (
        <fieldset id={id} className="row">
          <legend className="visually-hidden">{field.name}</legend>
          {field.options.map((option) => (
            <label key={option.key} className="small">
              <input
                type="checkbox"
                checked={chosen.includes(option.key)}
                onChange={(e) =>
                  change(
                    e.target.checked
                      ? [...chosen, option.key]
                      : chosen.filter((k) => k !== option.key),
                  )
                }
              />{' '}
              <span style={{ borderBottom: `3px solid ${option.color}` }}>{option.label}</span>
            </label>
          ))}
        </fieldset>
      );
      break;
    }
    default:
      input = (
        <input
          id={id}
          type={field.type === 'url' ? 'url' : field.type === 'email' ? 'email' : 'text'}
          value={String(draft ?? '')}
          onChange={(e) => change(e.target.value)}
        />
      );
  }

  return (
    <form className="value-row" onSubmit={submit}>
      <label htmlFor={id} className="small" style={{ fontWeight: 600 }}>
        {field.name}
      </label>
      <div className="row">
        {input}
        <button type="submit" className="button small" disabled={save.isPending}>
          Save<span className="visually-hidden"> {field.name}</span>
        </button>
      </div>
      <span role="status" className="small">
        {save.isError ? (
          <span className="form-error">
            {save.error instanceof ApiFailure
              ? (save.error.field('value') ?? save.error.message)
              : 'Not saved.'}
          </span>
        ) : saved ? (
          <span className="muted">Saved.</span>
        ) : null}
      </span>
    </form>
  );
}
