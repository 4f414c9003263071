import { type FormEvent, useId, useState } from 'react';
import { ChangeFailed } from '../ui/states';
import { useTagChanges } from './queries';

/** The organisation's tags: remove one, or add one (new names join the workspace's list). */
export function Tags({
  workspace,
  organisation,
  tags,
  available,
}: {
  workspace: string;
  organisation: string;
  tags: string[];
  available: string[];
}) {
  const [adding, setAdding] = useState(false);
  const [name, setName] = useState('');
  const listId = useId();
  const { add, remove } = useTagChanges(workspace, organisation, () => {
    setName('');
    setAdding(false);
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    if (name.trim()) add.mutate(name.trim());
  }
  const failure = add.error ?? remove.error;

  return (
    <section className="card" aria-labelledby="tags-heading">
      <h2 id="tags-heading">Tags</h2>
      <div className="tags">
        {tags.length === 0 ? <span className="muted small">No tags yet.</span> : null}
        {tags.map((tag) => (
          <span className="tag-chip" key={tag}>
            {tag}
            <button
              type="button"
              aria-label={`Remove tag ${tag}`}
              onClick={() => remove.mutate(tag)}
              disabled={remove.isPending}
            >
              ×
            </button>
          </span>
        ))}
        {adding ? null : (
          <button type="button" className="button small" onClick={() => setAdding(true)}>
            Add tag
          </button>
        )}
      </div>
      {adding ? (
        <form className="row" onSubmit={submit} style={{ marginTop: 10 }}>
          <label className="visually-hidden" htmlFor={`${listId}-input`}>
            Tag name
          </label>
          <input
            id={`${listId}-input`}
            list={listId}
            value={name}
            maxLength={255}
            onChange={(event) => setName(event.target.value)}
            placeholder="e.g. Target account"
          />
          <datalist id={listId}>
            {available
              .filter((tag) => !tags.some((t) => t.toLowerCase() === tag.toLowerCase()))
              .map((tag) => (
                <option key={tag} value={tag} />
              ))}
          </datalist>
          <button type="submit" className="button primary small" disabled={add.isPending}>
            Save tag
          </button>
          <button type="button" className="button quiet small" onClick={() => setAdding(false)}>
            Cancel
          </button>
        </form>
      ) : null}
      <ChangeFailed error={failure} />
    </section>
  );
}
