import { type FormEvent, useState } from 'react';
import { useCustomFields } from '../api/queries';
import type { Ok } from '../api/types';
import { ChangeFailed, Loaded } from '../ui/states';
import { ActionsHeader, TableWrap } from '../ui/TableWrap';
import { type FieldChange, type NewField, useCustomFieldChanges } from './queries';

type FieldType = NewField['type'];
const TYPES: [FieldType, string][] = [
  ['text', 'Text'],
  ['number', 'Number'],
  ['date', 'Date'],
  ['boolean', 'Yes / no'],
  ['select', 'One of a list'],
  ['multi_select', 'Several of a list'],
  ['url', 'Link'],
  ['email', 'E-mail address'],
];
const PALETTE = [
  '#3246c8',
  '#1d7a46',
  '#d9480f',
  '#b3261e',
  '#8a5a00',
  '#6b3fa0',
  '#0f766e',
  '#545f6e',
];
const keyOf = (name: string) =>
  name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^[^a-z]+|_+$/g, '')
    .slice(0, 60);

type Definition = Ok<'/v1/workspaces/{workspaceUuid}/custom-fields', 'get'>['data'][number];
/** An option being edited: `key` is kept for options that exist (values refer to it). */
type Option = { key?: string; label: string; color: string };

/** Options as the API takes them: blank rows left out, new ones keyed from their label. */
function optionsOut(options: Option[]) {
  const taken = new Set(options.flatMap((o) => (o.key ? [o.key] : [])));
  return options
    .filter((o) => o.label.trim())
    .map((o) => {
      if (o.key) return { key: o.key, label: o.label.trim(), color: o.color };
      const base = keyOf(o.label) || 'option';
      let key = base;
      for (let n = 2; taken.has(key); n++) key = `${base}_${n}`;
      taken.add(key);
      return { key, label: o.label.trim(), color: o.color };
    });
}

/** Fields the team fills in on organisations; option colours show in lists and Spotter. */
export function CustomFields({ workspace }: { workspace: string }) {
  const fields = useCustomFields(workspace);
  const [type, setType] = useState<FieldType>('text');
  const [options, setOptions] = useState<Option[]>([]);
  const [editing, setEditing] = useState<string>();
  const { create, patch, remove } = useCustomFieldChanges(
    workspace,
    () => {
      setOptions([]);
      setType('text');
    },
    (body) => {
      if (body.name !== undefined || body.options !== undefined) setEditing(undefined);
    },
  );
  const listed = type === 'select' || type === 'multi_select';

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const element = event.currentTarget;
    const form = new FormData(element);
    const name = String(form.get('name')).trim();
    create.mutate(
      {
        key: keyOf(name) || 'field',
        name,
        type,
        ...(listed
          ? {
              options: optionsOut(options),
            }
          : {}),
      },
      { onSuccess: () => element.reset() },
    );
  }
  const failure = create.error ?? patch.error ?? remove.error;

  return (
    <section className="card" id="custom-fields" aria-labelledby="fields-settings-heading">
      <h2 id="fields-settings-heading">Custom fields</h2>
      <Loaded query={fields} what="custom fields">
        {(data) =>
          data.length === 0 ? (
            <p className="muted small">
              No custom fields yet: add one below, e.g. a “Tier” or an “Account owner”.
            </p>
          ) : (
            <TableWrap label="Custom field definitions">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Key</th>
                    <th scope="col">Type</th>
                    <th scope="col">Options</th>
                    <th scope="col">In Spotter</th>
                    <ActionsHeader />
                  </tr>
                </thead>
                <tbody>
                  {data.map((field) => (
                    <tr key={field.key}>
                      <td>{field.name}</td>
                      <td>
                        <code>{field.key}</code>
                      </td>
                      <td>{TYPES.find(([t]) => t === field.type)?.[1] ?? field.type}</td>
                      <td>
                        {field.options.map((o) => (
                          <span
                            key={o.key}
                            className="tag"
                            style={{
                              background: `${o.color}22`,
                              color: '#17202c',
                              borderLeft: `4px solid ${o.color}`,
                            }}
                          >
                            {o.label}
                          </span>
                        ))}
                      </td>
                      <td>
                        <input
                          type="checkbox"
                          aria-label={`Show ${field.name} in Spotter`}
                          checked={field.visible_in_spotter}
                          onChange={(e) =>
                            patch.mutate({
                              key: field.key,
                              body: { visible_in_spotter: e.target.checked },
                            })
                          }
                        />
                      </td>
                      <td className="nowrap">
                        <button
                          type="button"
                          className="button small"
                          aria-expanded={editing === field.key}
                          onClick={() => setEditing(editing === field.key ? undefined : field.key)}
                        >
                          Edit<span className="visually-hidden"> {field.name}</span>
                        </button>{' '}
                        <button
                          type="button"
                          className="button small danger"
                          onClick={() =>
                            window.confirm(
                              `Delete “${field.name}” and its values on every organisation?`,
                            ) && remove.mutate(field.key)
                          }
                        >
                          Delete<span className="visually-hidden"> {field.name}</span>
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )
        }
      </Loaded>
      {fields.data
        ?.filter((field) => field.key === editing)
        .map((field) => (
          <FieldEditor
            key={field.key}
            field={field}
            saving={patch.isPending}
            onCancel={() => setEditing(undefined)}
            onSave={(body) => patch.mutate({ key: field.key, body })}
          />
        ))}
      <form className="subsection stack" onSubmit={submit}>
        <h3>New field</h3>
        <div className="inline-form">
          <label>
            Field name
            <input name="name" required maxLength={255} placeholder="Tier" />
          </label>
          <label>
            Field type
            <select value={type} onChange={(e) => setType(e.target.value as FieldType)}>
              {TYPES.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </label>
        </div>
        {listed ? <OptionsEditor options={options} onChange={setOptions} /> : null}
        <div>
          <button type="submit" className="button primary" disabled={create.isPending}>
            Add field
          </button>
        </div>
        <ChangeFailed error={failure} fieldFirst />
      </form>
    </section>
  );
}

/** Rows of option label and colour, with add and remove. */
function OptionsEditor({
  options,
  onChange,
}: {
  options: Option[];
  onChange: (options: Option[]) => void;
}) {
  return (
    <fieldset>
      <legend style={{ fontWeight: 600 }}>Options</legend>
      {options.map((option, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rows are edited in place
        <div className="option-row" key={i}>
          <input
            aria-label={`Option ${i + 1}`}
            value={option.label}
            maxLength={255}
            onChange={(e) =>
              onChange(options.map((o, j) => (j === i ? { ...o, label: e.target.value } : o)))
            }
          />
          <input
            type="color"
            aria-label={`Colour of option ${i + 1}`}
            value={option.color.length === 4 ? expand(option.color) : option.color}
            onChange={(e) =>
              onChange(options.map((o, j) => (j === i ? { ...o, color: e.target.value } : o)))
            }
          />
          <button
            type="button"
            className="button small quiet"
            onClick={() => onChange(options.filter((_, j) => j !== i))}
          >
            Remove<span className="visually-hidden"> option {i + 1}</span>
          </button>
        </div>
      ))}
      <button
        type="button"
        className="button small"
        onClick={() =>
          onChange([
            ...options,
            { label: '', color: PALETTE[options.length % PALETTE.length] as string },
          ])
        }
      >
        Add option
      </button>
    </fieldset>
  );
}

/** #abc → #aabbcc, the form a colour input takes. */
const expand = (color: string) =>
  `#${color
    .slice(1)
    .split('')
    .map((c) => c + c)
    .join('')}`;

/** Renames a definition and edits its options; its key and type stay as they are. */
function FieldEditor({
  field,
  saving,
  onSave,
  onCancel,
}: {
  field: Definition;
  saving: boolean;
  onSave: (body: FieldChange) => void;
  onCancel: () => void;
}) {
  const [name, setName] = useState(field.name);
  const [options, setOptions] = useState<Option[]>(field.options);
  const listed = field.type === 'select' || field.type === 'multi_select';
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    onSave({ name: name.trim(), ...(listed ? { options: optionsOut(options) } : {}) });
  }
  return (
    <form
      className="subsection stack field-editor"
      onSubmit={submit}
      aria-labelledby={`edit-${field.key}`}
    >
      <h3 id={`edit-${field.key}`}>Edit “{field.name}”</h3>
      <p className="muted small">
        Key <code>{field.key}</code> and type{' '}
        {TYPES.find(([t]) => t === field.type)?.[1] ?? field.type} cannot change: integrations refer
        to them.
      </p>
      <label className="field">
        <span>Name</span>
        <input value={name} required maxLength={255} onChange={(e) => setName(e.target.value)} />
      </label>
      {listed ? <OptionsEditor options={options} onChange={setOptions} /> : null}
      <div className="row">
        <button type="submit" className="button primary" disabled={saving}>
          Save field
        </button>
        <button type="button" className="button quiet" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
