/**
 * CSV as RFC 4180 writes it (CRLF line ends, cells with a comma, quote or line break quoted,
 * quotes doubled), made safe to open in a spreadsheet: a text cell starting with `=`, `+`,
 * `-`, `@`, a tab or a carriage return would run as a formula (OWASP "CSV injection"), so it
 * is prefixed with `'`. A spreadsheet that splits cells on `;` or `,` (whatever the quotes
 * say) would find a formula after one too, so there the `'` goes before the formula
 * character and the cell is quoted (contract §15). Numbers are written as numbers.
 */
export type Cell = string | number;

const FORMULA_START = /^[=+\-@\t\r]/;
// A separator, any white space a spreadsheet may trim, then a formula character.
const FORMULA_AFTER_SEPARATOR = /([;,]\s*)([=+\-@])/g;
const NEEDS_QUOTES = /[",\r\n]/;

export function csvCell(value: Cell): string {
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  const inside = value.replace(FORMULA_AFTER_SEPARATOR, "$1'$2");
  const safe = FORMULA_START.test(inside) ? `'${inside}` : inside;
  return NEEDS_QUOTES.test(safe) || inside !== value ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export function csvRow(cells: readonly Cell[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

/** A byte-order mark first, so spreadsheet programs read the file as UTF-8. */
export const BOM = '\uFEFF';
