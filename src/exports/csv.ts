/**
 * CSV as RFC 4180 writes it (CRLF line ends, cells with a comma, quote or line break quoted,
 * quotes doubled), made safe to open in a spreadsheet: a text cell starting with `=`, `+`,
 * `-`, `@`, a tab or a carriage return would run as a formula (OWASP "CSV injection"), so it
 * is prefixed with `'`. Numbers are written as numbers.
 */
export type Cell = string | number;

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

export function csvCell(value: Cell): string {
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export function csvRow(cells: readonly Cell[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

/** A byte-order mark first, so spreadsheet programs read the file as UTF-8. */
export const BOM = '\uFEFF';
