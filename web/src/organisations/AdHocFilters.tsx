import { useState } from 'react';
import { FilterBuilder } from '../segments/FilterBuilder';
import { type DraftGroup, fromFilters, newGroup, toFilters } from '../segments/model';
import { useBuilderFields } from '../segments/queries';
import '../segments/segments.css';

function parse(json: string | undefined): DraftGroup | undefined {
  if (!json) return undefined;
  try {
    return fromFilters(JSON.parse(json));
  } catch {
    return undefined;
  }
}

/**
 * Filters with the segment grammar's fields, for this list only (kept in the URL as JSON);
 * saving them as a segment is a click away on the Segments page.
 */
export function AdHocFilters({
  workspace,
  value,
  onApply,
}: {
  workspace: string;
  value: string | undefined;
  onApply: (filters: string | undefined) => void;
}) {
  const fields = useBuilderFields(workspace);
  const [open, setOpen] = useState(Boolean(value));
  const [group, setGroup] = useState<DraftGroup>(() => parse(value) ?? newGroup('AND'));
  const active = parse(value)?.items.length ?? 0;
  return (
    <div className="adhoc">
      <button
        type="button"
        className="button small"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
      >
        {open ? 'Hide filters' : active > 0 ? `Filters (${active})` : 'More filters'}
      </button>
      {open ? (
        <div className="stack" style={{ marginTop: 8 }}>
          <FilterBuilder group={group} fields={fields} onChange={setGroup} />
          <div className="row">
            <button
              type="button"
              className="button primary small"
              onClick={() => onApply(JSON.stringify(toFilters(group, fields)))}
            >
              Apply filters
            </button>
            {value ? (
              <button
                type="button"
                className="button quiet small"
                onClick={() => {
                  setGroup(newGroup('AND'));
                  onApply(undefined);
                }}
              >
                Clear filters
              </button>
            ) : null}
          </div>
        </div>
      ) : null}
    </div>
  );
}
