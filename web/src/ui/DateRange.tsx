import { type DateRangeSearch, rangeOf, utcDay } from './search';

const PRESETS = [
  { days: 7, label: 'Last 7 days' },
  { days: 30, label: 'Last 30 days' },
  { days: 90, label: 'Last 90 days' },
] as const;

/**
 * The date range of a page, kept in the URL (`from`, `to`, UTC days as the API counts them):
 * presets for the common cases and two date inputs for the rest.
 */
export function DateRange({
  search,
  onChange,
}: {
  search: DateRangeSearch;
  onChange: (range: DateRangeSearch) => void;
}) {
  const { from, to } = rangeOf(search);
  const today = utcDay(new Date());
  const preset = (days: number) => ({
    from: utcDay(new Date(Date.now() - (days - 1) * 86_400_000)),
    to: today,
  });
  const active = PRESETS.find((p) => {
    const range = preset(p.days);
    return range.from === from && range.to === to;
  });
  return (
    <fieldset className="date-range">
      <legend className="visually-hidden">Date range</legend>
      <label>
        <span className="visually-hidden">Period</span>
        <select
          aria-label="Period"
          value={active ? String(active.days) : 'custom'}
          onChange={(event) => {
            const days = Number(event.target.value);
            if (days) onChange(days === 30 ? {} : preset(days));
          }}
        >
          {PRESETS.map((p) => (
            <option key={p.days} value={p.days}>
              {p.label}
            </option>
          ))}
          <option value="custom">Custom</option>
        </select>
      </label>
      <label>
        <span className="small muted">From</span>
        <input
          type="date"
          value={from}
          max={to}
          onChange={(event) => event.target.value && onChange({ from: event.target.value, to })}
        />
      </label>
      <label>
        <span className="small muted">To</span>
        <input
          type="date"
          value={to}
          min={from}
          onChange={(event) => event.target.value && onChange({ from, to: event.target.value })}
        />
      </label>
    </fieldset>
  );
}
