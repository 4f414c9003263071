/** Domains from pasted text or an uploaded .txt or .csv file, for Settings → Excluded domains. */

/** The server's limit (contract §17). */
export const MAX_EXCLUDED_DOMAINS = 10_000;

/** The textarea's entries: one a line, blank lines left out. */
export function linesOf(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
}

/**
 * The domains in a file's text: every cell of every line that looks like a domain or a
 * web address (a CSV export's other columns and its header row are left out).
 */
export function domainsInFile(text: string): string[] {
  return text
    .split(/\r?\n/)
    .flatMap((line) => line.split(/[,;\t]/))
    .map((cell) => cell.trim().replace(/^["']|["']$/g, ''))
    .filter((cell) => /^[^\s@]+\.[^\s@]+$/.test(cell));
}

/** The list with more entries after it, each once (whatever its case). */
export function merged(list: string[], more: string[]): string[] {
  const seen = new Set(list.map((entry) => entry.toLowerCase()));
  const added = more.filter((entry) => {
    const key = entry.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return [...list, ...added];
}
