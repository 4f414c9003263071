// npm run bench (second part): `footfall import companies` with 100,000 rows, CSV and JSONL,
// timed end to end as an operator runs it (the real CLI, a fresh database).
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { benchDatabase } from './lib/database.js';

const ROWS = Number(process.env.BENCH_COMPANY_ROWS ?? 100_000);
const INDUSTRIES = ['Software', 'Manufacturing', 'Retail', 'Finance', 'Healthcare', 'Logistics'];
const SIZES = ['1-10', '11-50', '51-200', '201-500', '501-1000', '1001-5000', '5001+'];

function company(i: number) {
  return {
    domain: `company-${i}.com`,
    name: `Company ${i} Ltd`,
    website: `https://www.company-${i}.example`,
    logo: `https://logos.example/${i}.png`,
    founded: String(1900 + (i % 125)),
    size: SIZES[i % SIZES.length] as string,
    industry: INDUSTRIES[i % INDUSTRIES.length] as string,
    phone: `+44 20 7946 ${String(i % 10000).padStart(4, '0')}`,
    email: `hello@company-${i}.example`,
    street: 'High Street',
    street_number: String(1 + (i % 300)),
    city: 'London',
    postal_code: 'EC1A 1BB',
    country: 'GB',
    linkedin_url: `https://www.linkedin.com/company/company-${i}`,
  };
}

async function timeImport(file: string, databaseUrl: string, dataDir: string) {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/main.ts', 'import', 'companies', file],
    {
      env: { ...process.env, DATABASE_URL: databaseUrl, DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  child.stdout.on('data', (chunk) => {
    out += chunk;
  });
  const code = await new Promise((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`import failed (${code}): ${out}`);
  return { seconds: (performance.now() - started) / 1000, summary: out.trim() };
}

const dir = await mkdtemp(path.join(os.tmpdir(), 'footfall-companies-'));
const rows = Array.from({ length: ROWS }, (_, i) => company(i));
const header = Object.keys(rows[0] as object);
const csv = path.join(dir, 'companies.csv');
await writeFile(
  csv,
  `${header.join(',')}\n${rows.map((r) => Object.values(r).join(',')).join('\n')}\n`,
);
const jsonl = path.join(dir, 'companies.jsonl');
await writeFile(
  jsonl,
  `${rows.map(({ street, street_number, city, postal_code, country, linkedin_url, ...rest }) => JSON.stringify({ ...rest, address: { street, street_number, city, postal_code, country }, profiles: [{ name: 'linkedin', handle: '', url: linkedin_url }] })).join('\n')}\n`,
);

const db = await benchDatabase();
console.log(`\n| import of ${ROWS.toLocaleString('en')} companies | seconds | rows/s | result |`);
console.log('|---|---|---|---|');
for (const [label, file] of [
  ['CSV, new rows', csv],
  ['JSONL, same domains (updates)', jsonl],
] as const) {
  const { seconds, summary } = await timeImport(file, db.url, dir);
  console.log(`| ${label} | ${seconds.toFixed(1)} | ${Math.round(ROWS / seconds)} | ${summary} |`);
}
await db.done();
await rm(dir, { recursive: true, force: true });
