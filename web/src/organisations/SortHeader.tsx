import { nextSort, type Sort, type SortColumn } from './sort';

/** A column header that sorts the list by its column; pressed again, the other way. */
export function SortHeader({
  label,
  column,
  sort,
  onSort,
  className,
}: {
  label: string;
  column: SortColumn;
  sort: Sort;
  onSort: (sort: Sort) => void;
  className?: string;
}) {
  const active = sort.column === column;
  return (
    <th
      scope="col"
      className={className}
      aria-sort={active ? (sort.descending ? 'descending' : 'ascending') : undefined}
    >
      <button
        type="button"
        className={`sort-button${active ? ' active' : ''}`}
        onClick={() => onSort(nextSort(sort, column))}
      >
        {label}
        <span className="sort-arrow" aria-hidden="true">
          {active ? (sort.descending ? '↓' : '↑') : '↕'}
        </span>
      </button>
    </th>
  );
}
