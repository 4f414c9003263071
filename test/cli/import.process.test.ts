import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IpRangeFiles } from '../../src/identify/ip-range-files.js';
import { IpRanges } from '../../src/identify/ip-ranges.js';
import { client, startTestApp, type TestApp } from '../helpers/app.js';
import { collector, pageview, visit } from '../helpers/collect.js';
import { writeMmdb } from '../helpers/mmdb-writer.js';
import { runFootfall } from '../helpers/process.js';

let t: TestApp;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  t = await startTestApp();
  dir = await mkdtemp(path.join(os.tmpdir(), 'footfall-import-'));
  env = { DATABASE_URL: t.deps.config.databaseUrl as string, DATA_DIR: dir };
});
afterAll(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, text: string | Buffer) {
  const full = path.join(dir, name);
  await writeFile(full, text);
  return full;
}

describe('footfall import ip-ranges', () => {
  it('takes IPv4 and IPv6 networks, refuses bad lines with reasons, and the resolver finds them', async () => {
    const csv = await file(
      'ranges.csv',
      'network,domain,name\n203.0.113.0/24,www.initech.com,Initech\n2001:db8:1234::/48,initech.com,Initech\nnot-a-net,x.com,X\n10.0.0.0/8,not a domain,Y\n',
    );
    const result = await runFootfall(['import', 'ip-ranges', csv], env);
    expect(result.stdout.trim()).toBe('2 ranges taken, 2 refused');
    expect(result.stderr).toContain('line 4: "not-a-net" is not a CIDR network');
    expect(result.stderr).toContain('line 5: "not a domain" is not a domain name');
    const ranges = new IpRanges(t.database.db);
    const found = (network: string) => ({
      domain: 'initech.com',
      name: 'Initech',
      identification: {
        method: 'ip_range',
        evidence: { source: 'ip-ranges import (CSV)', network },
      },
    });
    expect(await ranges.lookup('203.0.113.77')).toEqual(found('203.0.113.0/24'));
    expect(await ranges.lookup('2001:db8:1234:5::1')).toEqual(found('2001:db8:1234::/48'));
    expect(await ranges.lookup('198.51.100.1')).toBeNull();
  });
});

describe('footfall import ip-ranges FILE.mmdb', () => {
  it('installs a MaxMind file whose ranges identify, for IPv4 and IPv6, and a replacement applies without a restart', async () => {
    const app = await startTestApp({ TRUST_PROXY: '127.0.0.1', DATA_DIR: dir });
    try {
      const first = await file(
        'operator.mmdb',
        writeMmdb(
          [
            {
              cidr: '198.18.0.0/24',
              data: { organization: 'Wonka Industries', domain: 'www.wonka.com' },
            },
            {
              cidr: '2001:db8:42::/48',
              data: { name: 'Tyrell Corporation', domain: 'tyrell.com' },
            },
          ],
          'GeoIP2-ISP',
        ),
      );
      const installed = await runFootfall(['import', 'ip-ranges', first], env);
      expect(installed.code, installed.stderr).toBe(0);
      expect(installed.stdout).toContain('installed operator.mmdb');
      const api = client(app.url, (await app.operator()).token);
      const workspace = (await api('POST', '/v1/workspaces', { url: 'https://site.example' })).body
        .data;
      const send = collector(app.url);
      const from = (ip: string) => ({ 'x-forwarded-for': ip });
      const hit = (ip: string) =>
        send(
          visit(workspace.tracking_script_id, [pageview('https://site.example/', Date.now())]),
          from(ip),
        );
      await hit('198.18.0.7');
      await hit('2001:db8:42:1::5');
      const names = async () =>
        (
          await app.database.db
            .selectFrom('organisations')
            .select(['domain', 'name'])
            .where('workspace_id', '=', workspace.uuid)
            .orderBy('domain')
            .execute()
        ).map((o) => `${o.domain} ${o.name}`);
      expect(await names()).toEqual([
        'tyrell.com Tyrell Corporation',
        'wonka.com Wonka Industries',
      ]);

      await writeFile(
        first,
        writeMmdb([{ cidr: '198.18.0.0/24', data: { organization: 'Gringotts' } }], 'GeoIP2-ISP'),
      );
      expect((await runFootfall(['import', 'ip-ranges', first], env)).code).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, IpRangeFiles.RESCAN_MS + 500));
      await hit('198.18.0.9');
      expect(await names()).toContain('name:gringotts Gringotts');
    } finally {
      await app.close();
    }
  });

  it('refuses a file that is not a MaxMind DB', async () => {
    const bad = await file('bad.mmdb', 'not a database');
    const result = await runFootfall(['import', 'ip-ranges', bad], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('is not a MaxMind DB');
  });
});

describe('footfall import companies', () => {
  it('imports CSV, says what it refused and why, and fills the organisation profile', async () => {
    const csv = await file(
      'companies.csv',
      [
        'domain,name,industry,size,founded,city,country,street,linkedin_url',
        'https://www.umbrella.com/about,Umbrella Corp,Pharmaceuticals,"10,001+",1968,Raccoon City,US,Main St,https://www.linkedin.com/company/umbrella',
        'hooli.com,Hooli,Software,501-1000,2004,Palo Alto,US,,',
        'nonsense,Broken,,,,,,,',
      ].join('\n'),
    );
    const result = await runFootfall(['import', 'companies', csv], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe('2 companies taken, 1 refused');
    expect(result.stderr).toContain('line 4: "nonsense" is not a domain name');

    const { token } = await t.operator();
    const api = client(t.url, token);
    const ws = (await api('POST', '/v1/workspaces', { url: 'https://site.example' })).body.data
      .uuid;
    const org = randomUUID();
    await t.database.db
      .insertInto('organisations')
      .values({ workspace_id: ws, id: org, domain: 'umbrella.com', name: '' })
      .execute();
    const { data } = (await api('GET', `/v1/workspaces/${ws}/organisations/${org}`)).body;
    expect(data).toMatchObject({
      name: 'Umbrella Corp',
      industry: 'Pharmaceuticals',
      size: '10,001+',
      founded: '1968',
      profiles: [
        { name: 'linkedin', handle: 'umbrella', url: 'https://www.linkedin.com/company/umbrella' },
      ],
    });
    expect(data.address).toMatchObject({ city: 'Raccoon City', country: 'US', street: 'Main St' });
  });

  it('imports JSONL; importing again changes nothing, a later file updates what it gives', async () => {
    const first = await file(
      'companies.jsonl',
      [
        JSON.stringify({
          domain: 'stark.com',
          name: 'Stark Industries',
          industry: 'Defence',
          address: { city: 'New York', country: 'US' },
          profiles: [{ name: 'twitter', handle: 'stark', url: 'https://x.com/stark' }],
        }),
        '',
        'not json',
        JSON.stringify(['an', 'array']),
      ].join('\n'),
    );
    const once = await runFootfall(['import', 'companies', first], env);
    expect(once.stdout.trim()).toBe('1 companies taken, 2 refused');
    expect(once.stderr).toContain('line 3: not valid JSON');
    expect(once.stderr).toContain('line 4: not a JSON object');
    const read = () =>
      t.database.db
        .selectFrom('companies')
        .selectAll()
        .where('domain', '=', 'stark.com')
        .executeTakeFirstOrThrow();
    const before = await read();
    await runFootfall(['import', 'companies', first], env);
    const again = await read();
    expect({ ...again, updated_at: null }).toEqual({ ...before, updated_at: null });

    const later = await file(
      'later.jsonl',
      JSON.stringify({ domain: 'stark.com', industry: 'Clean energy', address: { state: 'NY' } }),
    );
    await runFootfall(['import', 'companies', later], env);
    const after = await read();
    expect(after).toMatchObject({ name: 'Stark Industries', industry: 'Clean energy' });
    expect(after.address).toEqual({ city: 'New York', country: 'US', state: 'NY' });
    expect(after.profiles).toEqual([
      { name: 'twitter', handle: 'stark', url: 'https://x.com/stark' },
    ]);
  });

  it('takes the later line when a file names a domain twice', async () => {
    const twice = await file(
      'twice.csv',
      'domain,name\nwayne.com,Wayne\nwww.wayne.com,Wayne Enterprises\n',
    );
    const result = await runFootfall(['import', 'companies', twice], env);
    expect(result.code, result.stderr).toBe(0);
    const rows = await t.database.db
      .selectFrom('companies')
      .select('name')
      .where('domain', '=', 'wayne.com')
      .execute();
    expect(rows).toEqual([{ name: 'Wayne Enterprises' }]);
  });

  it('refuses a file that is neither CSV nor JSONL', async () => {
    const other = await file('companies.xlsx', 'binary');
    const result = await runFootfall(['import', 'companies', other], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('.csv');
  });
});
