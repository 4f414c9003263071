import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ApiFailure, api, unwrap } from '../api/client';
import { keys } from '../api/queries';
import type { Body } from '../api/types';
import { ErrorState, Loading } from '../ui/states';
import { TableWrap } from '../ui/TableWrap';

type NewField = Body<'/v1/workspaces/{workspaceUuid}/custom-fields', 'post'>;
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

/** Fields the team fills in on organisations; option colours show in lists and Spotter. */
export function CustomFields({ workspace }: { workspace: string }) {
  const queryClient = useQueryClient();
  const key = keys.inWorkspace(workspace, 'custom-fields');
  const fields = useQuery({
    queryKey: key,
    queryFn: async () =>
      (
        await unwrap(
          api.GET('/v1/workspaces/{workspaceUuid}/custom-fields', {
            params: { path: { workspaceUuid: workspace } },
          }),
        )
      ).data,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: keys.workspace(workspace) });
  const [type, setType] = useState<FieldType>('text');
  const [options, setOptions] = useState<{ label: string; color: string }[]>([]);
  const create = useMutation({
    mutationFn: (body: NewField) =>
      unwrap(
        api.POST('/v1/workspaces/{workspaceUuid}/custom-fields', {
          params: { path: { workspaceUuid: workspace } },
          body,
        }),
      ),
    onSuccess: async () => {
      setOptions([]);
      await refresh();
    },
  });
  const patch = useMutation({
    mutationFn: ({ field, visible }: { field: string; visible: boolean }) =>
      unwrap(
        api.PATCH('/v1/workspaces/{workspaceUuid}/custom-fields/{key}', {
          params: { path: { workspaceUuid: workspace, key: field } },
          body: { visible_in_spotter: visible },
        }),
      ),
    onSettled: refresh,
  });
  const remove = useMutation({
    mutationFn: (field: string) =>
      unwrap(
        api.DELETE('/v1/workspaces/{workspaceUuid}/custom-fields/{key}', {
          params: { path: { workspaceUuid: workspace, key: field } },
        }),
      ),
    onSettled: refresh,
  });
  const listed = type === 'select' || type === 'multi_select';

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const name = String(form.get('name')).trim();
    create.mutate({
      key: keyOf(name) || 'field',
      name,
      type,
      ...(listed
        ? {
            options: options
              .filter((o) => o.label.trim())
              .map((o) => ({
                key: keyOf(o.label) || 'option',
                label: o.label.trim(),
                color: o.color,
              })),
          }
        : {}),
    });
    event.currentTarget.reset();
  }
  const failure = create.error ?? patch.error ?? remove.error;

  return (
    <section className="card" id="custom-fields" aria-labelledby="fields-settings-heading">
      <h2 id="fields-settings-heading">Custom fields</h2>
      {fields.isPending ? (
        <Loading what="custom fields" />
      ) : fields.isError ? (
        <ErrorState what="custom fields" error={fields.error} />
      ) : fields.data.length === 0 ? (
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
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {fields.data.map((field) => (
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
                        patch.mutate({ field: field.key, visible: e.target.checked })
                      }
                    />
                  </td>
                  <td>
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
      )}
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
        {listed ? (
          <fieldset>
            <legend style={{ fontWeight: 600 }}>Options</legend>
            {options.map((option, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: rows are edited in place
              <div className="option-row" key={i}>
                <input
                  aria-label={`Option ${i + 1}`}
                  value={option.label}
                  onChange={(e) =>
                    setOptions(
                      options.map((o, j) => (j === i ? { ...o, label: e.target.value } : o)),
                    )
                  }
                />
                <input
                  type="color"
                  aria-label={`Colour of option ${i + 1}`}
                  value={option.color}
                  onChange={(e) =>
                    setOptions(
                      options.map((o, j) => (j === i ? { ...o, color: e.target.value } : o)),
                    )
                  }
                />
                <button
                  type="button"
                  className="button small quiet"
                  onClick={() => setOptions(options.filter((_, j) => j !== i))}
                >
                  Remove<span className="visually-hidden"> option {i + 1}</span>
                </button>
              </div>
            ))}
            <button
              type="button"
              className="button small"
              onClick={() =>
                setOptions([
                  ...options,
                  { label: '', color: PALETTE[options.length % PALETTE.length] as string },
                ])
              }
            >
              Add option
            </button>
          </fieldset>
        ) : null}
        <div>
          <button type="submit" className="button primary" disabled={create.isPending}>
            Add field
          </button>
        </div>
        {failure ? (
          <p className="form-error" role="alert">
            {failure instanceof ApiFailure
              ? (Object.values(failure.body?.errors ?? {}).flat()[0] ?? failure.message)
              : 'The server could not be reached.'}
          </p>
        ) : null}
      </form>
    </section>
  );
}
