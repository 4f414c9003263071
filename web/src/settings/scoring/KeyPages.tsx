import { type DraftKeyPage, KEY_PAGE_POINTS, newKeyPage } from './draft';
import { PointsField } from './PointsField';

/** At most this many key pages (the server's limit). */
const MAX_KEY_PAGES = 50;

/** Pages whose viewing says a visitor is buying, each with the points it gives. */
export function KeyPages({
  pages,
  errors,
  onChange,
}: {
  pages: DraftKeyPage[];
  errors: Record<string, string[]> | undefined;
  onChange: (pages: DraftKeyPage[]) => void;
}) {
  const replace = (id: number, next: DraftKeyPage | null) =>
    onChange(pages.flatMap((page) => (page.id === id ? (next ? [next] : []) : [page])));
  return (
    <>
      {pages.length === 0 ? <p className="muted small">No key pages.</p> : null}
      <ul className="key-pages">
        {pages.map((page, index) => {
          const problems = Object.entries(errors ?? {})
            .filter(([key]) => key.startsWith(`key_pages.${index}.`))
            .flatMap(([, messages]) => messages);
          return (
            <li key={page.id}>
              <fieldset className="key-page">
                <legend className="visually-hidden">Key page {index + 1}</legend>
                <label className="key-page-url">
                  URL contains
                  <input
                    value={page.url}
                    required
                    maxLength={2048}
                    placeholder="/pricing"
                    aria-invalid={problems.length > 0 || undefined}
                    onChange={(event) => replace(page.id, { ...page, url: event.target.value })}
                  />
                </label>
                <PointsField
                  value={page.points}
                  range={KEY_PAGE_POINTS}
                  onChange={(points) => replace(page.id, { ...page, points })}
                />
                <button
                  type="button"
                  className="button small quiet danger"
                  onClick={() => replace(page.id, null)}
                >
                  Remove<span className="visually-hidden"> key page {index + 1}</span>
                </button>
                {problems.map((problem) => (
                  <p key={problem} className="form-error small">
                    {problem}
                  </p>
                ))}
              </fieldset>
            </li>
          );
        })}
      </ul>
      {pages.length < MAX_KEY_PAGES ? (
        <div>
          <button
            type="button"
            className="button small"
            onClick={() => onChange([...pages, newKeyPage()])}
          >
            Add key page
          </button>
        </div>
      ) : null}
    </>
  );
}
