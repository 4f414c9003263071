import { STATUS_LABELS, STATUSES } from '../ui/status';

const CHOICES: [value: string, label: string][] = [
  ['', 'Leads'],
  ['customer', 'Customers'],
  ['competitor', 'Competitors'],
  ['hidden', 'Hidden'],
  ['all', 'Every status'],
];

/**
 * Which statuses the list shows: leads (the API's default), or the customers, competitors
 * or hidden organisations it leaves out, or all of them.
 */
export function StatusFilter({
  value,
  onChange,
}: {
  value: string | undefined;
  onChange: (status: string | undefined) => void;
}) {
  const current = value ?? '';
  // A link may name several statuses: offer that choice as it is.
  const listed = CHOICES.some(([choice]) => choice === current);
  const several = current
    .split(',')
    .flatMap((status) => STATUSES.filter((known) => known === status))
    .map((status) => STATUS_LABELS[status])
    .join(', ');
  return (
    <label>
      Status
      <select
        aria-label="Status"
        value={current}
        onChange={(event) => onChange(event.target.value || undefined)}
      >
        {CHOICES.map(([choice, label]) => (
          <option key={choice} value={choice}>
            {label}
          </option>
        ))}
        {listed ? null : <option value={current}>{several}</option>}
      </select>
    </label>
  );
}
