import { count } from './format';

/**
 * Previous / next paging for the API's page envelopes (contract §3), the one page navigation
 * of the dashboard: `total` items in pages of `size`; `noun` in the singular.
 */
export function Pager({
  page,
  size,
  total,
  noun,
  onPage,
}: {
  page: number;
  size: number;
  total: number;
  noun: string;
  onPage: (page: number) => void;
}) {
  const lastPage = Math.max(1, Math.ceil(total / size));
  return (
    <nav className="pager" aria-label={`Pages of ${noun}s`}>
      <button
        type="button"
        className="button"
        disabled={page <= 1}
        onClick={() => onPage(page - 1)}
      >
        Previous
      </button>
      <span className="muted small">
        Page {page.toLocaleString('en')} of {lastPage.toLocaleString('en')} · {count(total, noun)}
      </span>
      <button
        type="button"
        className="button"
        disabled={page >= lastPage}
        onClick={() => onPage(page + 1)}
      >
        Next
      </button>
    </nav>
  );
}
