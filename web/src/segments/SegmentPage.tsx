import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { type FormEvent, useEffect, useMemo, useState } from 'react';
import { ApiFailure } from '../api/client';
import { ErrorState, Loading } from '../ui/states';
import { FilterBuilder } from './FilterBuilder';
import {
  type BuilderField,
  type DraftGroup,
  fromFilters,
  isIncomplete,
  newGroup,
  toFilters,
  withMissing,
} from './model';
import {
  useBuilderFieldsQuery,
  useMatchCount,
  useSavedSegment,
  useSegmentChanges,
} from './queries';
import './segments.css';

/** A segment's editor: its name and filters, with a live count of who matches. */
export function SegmentPage() {
  const { workspace, segment } = useParams({ from: '/w/$workspace/segments/$segment' });
  const isNew = segment === 'new';
  const saved = useSavedSegment(workspace, segment, isNew);
  const fields = useBuilderFieldsQuery(workspace);
  if (!isNew && saved.isPending) return <Loading what="the segment" />;
  if (!isNew && saved.isError)
    return <ErrorState what="the segment" error={saved.error} retry={() => void saved.refetch()} />;
  if (fields.isPending) return <Loading what="the workspace's custom fields" />;
  if (fields.error) return <ErrorState what="the workspace's custom fields" error={fields.error} />;
  return (
    <Editor
      key={segment}
      workspace={workspace}
      fields={fields.fields}
      uuid={isNew ? undefined : segment}
      initialName={saved.data?.name ?? ''}
      initial={saved.data ? fromFilters(saved.data.filters) : { ...newGroup('AND') }}
    />
  );
}

function Editor({
  workspace,
  fields: known,
  uuid,
  initialName,
  initial,
}: {
  workspace: string;
  fields: BuilderField[];
  uuid: string | undefined;
  initialName: string;
  initial: DraftGroup;
}) {
  const navigate = useNavigate();
  const [name, setName] = useState(initialName);
  const [group, setGroup] = useState(initial);
  // A saved filter may name a custom field deleted since: keep it visible (it matches nobody).
  const fields = useMemo(() => withMissing(known, initial), [known, initial]);
  const filters = useMemo(() => toFilters(group, fields), [group, fields]);
  const incomplete = isIncomplete(group);
  // The count follows the draft 400 ms after the last change, not on every keystroke.
  const [debounced, setDebounced] = useState({ filters, incomplete });
  useEffect(() => {
    const timer = setTimeout(() => setDebounced({ filters, incomplete }), 400);
    return () => clearTimeout(timer);
  }, [filters, incomplete]);
  const count = useMatchCount(workspace, debounced.filters, !debounced.incomplete);
  // Between a change and its count, the number shown is the previous draft's: say so.
  const stale = !incomplete && (debounced.filters !== filters || count.isFetching);
  const { save, remove } = useSegmentChanges(workspace, uuid, () =>
    navigate({ to: '/w/$workspace/segments', params: { workspace } }),
  );

  function submit(event: FormEvent) {
    event.preventDefault();
    save.mutate({ name: name.trim(), filters });
  }
  const countError = count.error instanceof ApiFailure ? count.error : undefined;
  const saveError = save.error instanceof ApiFailure ? save.error : undefined;

  return (
    <form onSubmit={submit} className="stack">
      <p className="small back-link">
        <Link to="/w/$workspace/segments" params={{ workspace }}>
          ← Segments
        </Link>
      </p>
      <div className="page-header">
        <h1>{uuid ? initialName || 'Segment' : 'New segment'}</h1>
        <div className="live-count-wrap">
          <p className={`live-count${stale ? ' stale' : ''}`} role="status">
            {countText(debounced.incomplete, count.isError, countError, count.data)}
          </p>
          {stale && count.data !== undefined ? (
            <span className="counting muted small" aria-hidden="true">
              Counting…
            </span>
          ) : null}
        </div>
      </div>
      <label className="field">
        <span>Name</span>
        <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={255} />
        {saveError?.field('name') ? (
          <small className="form-error">{saveError.field('name')}</small>
        ) : null}
      </label>
      <FilterBuilder
        group={group}
        fields={fields}
        onChange={setGroup}
        errors={countError?.body?.errors ?? saveError?.body?.errors}
      />
      <div className="row">
        <button type="submit" className="button primary" disabled={save.isPending}>
          Save segment
        </button>
        {uuid ? (
          <>
            <Link
              className="button"
              to="/w/$workspace/organisations"
              params={{ workspace }}
              search={{ segment: uuid }}
            >
              View organisations
            </Link>
            <button
              type="button"
              className="button quiet danger"
              onClick={() =>
                window.confirm('Delete this segment? Alerts that use it stop.') && remove.mutate()
              }
            >
              Delete segment
            </button>
          </>
        ) : null}
      </div>
      {remove.error ? (
        <p className="form-error" role="alert">
          Could not delete the segment: {remove.error.message}
        </p>
      ) : null}
      {saveError && !saveError.body?.errors ? (
        <p className="form-error" role="alert">
          {saveError.message}
        </p>
      ) : null}
    </form>
  );
}

/** What the live count says: the number, why there is none yet, or the server's objection. */
function countText(
  incomplete: boolean,
  failed: boolean,
  failure: ApiFailure | undefined,
  total: number | undefined,
): string {
  if (incomplete) return 'Fill in every condition to count matching organisations.';
  if (failure) {
    const first = Object.values(failure.body?.errors ?? {})[0]?.[0];
    return `No count: ${first ?? failure.message}`;
  }
  if (failed) return 'The count could not be loaded.';
  if (total === undefined) return 'Counting…';
  return `${total.toLocaleString('en')} ${total === 1 ? 'organisation matches' : 'organisations match'}`;
}
