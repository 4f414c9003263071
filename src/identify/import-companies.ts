import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { parse } from 'csv-parse';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { markScoringStale } from '../outbox/scoring-queue.js';
import { markSegmentsStale } from '../outbox/segment-queue.js';
import { type CompanyRow, companyRow, upsertCompanies } from './companies.js';
import type { ImportSummary } from './import-ip-ranges.js';

const BATCH = 2000;

/**
 * `footfall import companies FILE` (.csv with a header line, or .jsonl): upserts the
 * directory by domain in batches. Reports bytes read as it goes; refused lines say why.
 * Segments are then computed again by the servers' segment workers.
 */
export async function importCompanies(
  db: Kysely<Database>,
  file: string,
  onProgress: (bytesRead: number, totalBytes: number, rows: number) => void = () => {},
): Promise<ImportSummary> {
  const format = /\.jsonl?$/i.test(file) ? 'jsonl' : /\.csv$/i.test(file) ? 'csv' : null;
  if (!format) throw new Error('Give a .csv file (with a header line) or a .jsonl file.');
  const totalBytes = (await stat(file)).size;
  const input = createReadStream(file);
  const summary: ImportSummary = { taken: 0, refused: [] };
  let batch: CompanyRow[] = [];
  const flush = async () => {
    await upsertCompanies(db, batch);
    summary.taken += batch.length;
    batch = [];
    onProgress(input.bytesRead, totalBytes, summary.taken);
  };
  let line = format === 'csv' ? 1 : 0; // the header is line 1
  for await (const record of records(input, format)) {
    line++;
    if (record === null) continue;
    const row = typeof record === 'string' ? record : companyRow(record);
    if (typeof row === 'string') summary.refused.push({ line, reason: row });
    else batch.push(row);
    if (batch.length >= BATCH) await flush();
  }
  await flush();
  // Profiles changed: segments on name, industry, size or country are computed again.
  if (summary.taken > 0) {
    await markSegmentsStale(db);
    await markScoringStale(db);
  }
  return summary;
}

/** Each record of the file, or the reason a line cannot be read. */
async function* records(
  input: NodeJS.ReadableStream,
  format: 'csv' | 'jsonl',
): AsyncGenerator<Record<string, unknown> | string | null> {
  if (format === 'csv') {
    const parser = input.pipe(
      parse({
        columns: (header: string[]) => header.map((h) => h.trim().toLowerCase()),
        skip_empty_lines: true,
        relax_column_count: true,
        bom: true,
      }),
    );
    for await (const record of parser) yield record as Record<string, unknown>;
    return;
  }
  for await (const text of createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })) {
    if (text.trim() === '') {
      yield null; // blank lines are skipped, but still counted
      continue;
    }
    try {
      const value = JSON.parse(text) as unknown;
      yield typeof value === 'object' && value !== null && !Array.isArray(value)
        ? (value as Record<string, unknown>)
        : 'not a JSON object';
    } catch {
      yield 'not valid JSON';
    }
  }
}
