// npm run bench, identification part: the network owner's judgement of labelled autonomous
// systems, at each strictness. The labels are measuring data kept outside the repository:
// NETWORKS_LABELLED names the file (default ../shared/identification/networks-dev.json
// beside this checkout); without it the benchmark says so and skips.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultCityDatabases, GeoLocator } from '../src/identify/geo.js';
import {
  defaultAsnDatabases,
  isOrganisation,
  NetworkJudge,
  type NetworkJudgement,
  STRICTNESS,
} from '../src/identify/network-owner.js';
import { NetworkTable } from '../src/identify/network-table.js';

const NON_BUSINESS = ['isp', 'mobile', 'hosting'] as const;
const BUSINESS = ['enterprise', 'education', 'government'] as const;
const LARGE = 65_536;

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const file =
  process.env.NETWORKS_LABELLED ??
  path.resolve(root, '..', 'shared', 'identification', 'networks-dev.json');
const labelled = await readFile(file, 'utf8').then(
  (text) => JSON.parse(text) as { entries: { asn: number; kind: string }[] },
  () => null,
);
if (!labelled) {
  console.log(`identification benchmark skipped: no labelled networks at ${file}`);
  process.exit(0);
}

let started = performance.now();
const table = await NetworkTable.load(defaultAsnDatabases());
const geo = await GeoLocator.open(defaultCityDatabases());
const judge = new NetworkJudge(table, geo);
console.log(
  `network data: ${table.count} networks in ${Math.round(performance.now() - started)} ms; ` +
    `${labelled.entries.length} labelled networks from ${path.basename(file)}`,
);
started = performance.now();
const judged: { kind: string; addresses: number; judgement: NetworkJudgement | null }[] = [];
for (const { asn, kind } of labelled.entries) {
  const judgement = await judge.judgeAsn(asn);
  judged.push({ kind, addresses: judgement?.ipv4_addresses ?? 0, judgement });
}
const ms = performance.now() - started;
console.log(
  `judged in ${Math.round(ms)} ms (${((ms / judged.length) * 1000).toFixed(0)} µs a network, footprints included)\n`,
);

const percent = (part: number, whole: number) =>
  whole === 0 ? '–' : `${((100 * part) / whole).toFixed(part === 0 || part === whole ? 0 : 2)} %`;

for (const strictness of STRICTNESS) {
  const called = (row: (typeof judged)[number]) =>
    row.judgement !== null && isOrganisation(row.judgement, strictness);
  console.log(`strictness ${strictness}: non-business networks called an organisation`);
  console.log(
    '| kind | networks | by count | by IPv4 addresses | large networks | large, by IPv4 |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const kind of [...NON_BUSINESS, 'all'] as const) {
    const rows = judged.filter((row) =>
      kind === 'all' ? (NON_BUSINESS as readonly string[]).includes(row.kind) : row.kind === kind,
    );
    const large = rows.filter((row) => row.addresses >= LARGE);
    const sum = (list: typeof rows) => list.reduce((total, row) => total + row.addresses, 0);
    console.log(
      `| ${kind} | ${rows.length} | ${percent(rows.filter(called).length, rows.length)} | ` +
        `${percent(sum(rows.filter(called)), sum(rows))} | ${large.filter(called).length} of ${large.length} | ` +
        `${percent(sum(large.filter(called)), sum(large))} |`,
    );
  }
  console.log(`\nstrictness ${strictness}: business recall`);
  console.log('| kind | networks | recall |');
  console.log('|---|---|---|');
  for (const kind of [...BUSINESS, 'all'] as const) {
    const rows = judged.filter((row) =>
      kind === 'all' ? (BUSINESS as readonly string[]).includes(row.kind) : row.kind === kind,
    );
    console.log(
      `| ${kind} | ${rows.length} | ${percent(rows.filter(called).length, rows.length)} |`,
    );
  }
  console.log('');
}
