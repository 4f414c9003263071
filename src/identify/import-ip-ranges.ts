import { createReadStream } from 'node:fs';
import { parse } from 'csv-parse';
import ipaddr from 'ipaddr.js';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { type IpRangeRow, upsertIpRanges } from './ip-ranges.js';

export interface ImportSummary {
  taken: number;
  refused: { line: number; reason: string }[];
}

const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** Checks one CSV record `network,domain,name`; the row to store, or why it is refused. */
export function ipRangeRow(record: string[]): IpRangeRow | string {
  const [network = '', domain = '', name = ''] = record.map((cell) => cell.trim());
  let cidr: string;
  try {
    const [address, bits] = ipaddr.parseCIDR(network);
    // Store the network address itself: 10.1.2.3/8 means 10.0.0.0/8.
    const base =
      address.kind() === 'ipv4'
        ? ipaddr.IPv4.networkAddressFromCIDR(network)
        : ipaddr.IPv6.networkAddressFromCIDR(network);
    cidr = `${base.toString()}/${bits}`;
  } catch {
    return `"${network}" is not a CIDR network such as 192.0.2.0/24 or 2001:db8::/32`;
  }
  const host = domain.toLowerCase().replace(/^www\./, '');
  if (!DOMAIN.test(host)) return `"${domain}" is not a domain name`;
  return { network: cidr, domain: host, name: name || host };
}

/** `footfall import ip-ranges FILE.csv`: upserts by network, in batches; refuses bad rows. */
export async function importIpRangesCsv(
  db: Kysely<Database>,
  file: string,
  onProgress: (rows: number) => void = () => {},
): Promise<ImportSummary> {
  const summary: ImportSummary = { taken: 0, refused: [] };
  const parser = createReadStream(file).pipe(
    parse({ relax_column_count: true, skip_empty_lines: true, trim: true, comment: '#' }),
  );
  let batch: IpRangeRow[] = [];
  let line = 0;
  for await (const record of parser as AsyncIterable<string[]>) {
    line++;
    if (line === 1 && record[0]?.toLowerCase() === 'network') continue; // header
    const row = ipRangeRow(record);
    if (typeof row === 'string') summary.refused.push({ line, reason: row });
    else batch.push(row);
    if (batch.length >= 5000) {
      await upsertIpRanges(db, batch);
      summary.taken += batch.length;
      onProgress(summary.taken);
      batch = [];
    }
  }
  await upsertIpRanges(db, batch);
  summary.taken += batch.length;
  onProgress(summary.taken);
  return summary;
}
