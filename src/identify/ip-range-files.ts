import { copyFile, mkdir, readdir, rename, stat } from 'node:fs/promises';
import path from 'node:path';
import ipaddr from 'ipaddr.js';
import maxmind, { type Reader, type Response } from 'maxmind';
import { registrableDomain } from './companies.js';
import type { OrganisationHint } from './ip-ranges.js';
import { atMostEvery } from './rescan.js';

/** Where imported `.mmdb` range files live: DATA_DIR/ip-ranges. */
export const rangeFilesDir = (dataDir: string) => path.join(dataDir, 'ip-ranges');

type Record_ = {
  organization?: unknown;
  name?: unknown;
  domain?: unknown;
  autonomous_system_organization?: unknown;
};

/**
 * What a range record says: MaxMind's `organization` (GeoIP2 ISP/Enterprise) or our own
 * `name`, and `domain` when given. Without a domain the organisation is keyed by its name.
 */
export function hintOf(record: Record_ | null): OrganisationHint | null {
  if (!record) return null;
  const name = [record.organization, record.name]
    .find((v): v is string => typeof v === 'string' && v.trim() !== '')
    ?.trim();
  const domain = typeof record.domain === 'string' ? registrableDomain(record.domain) : null;
  if (domain) return { domain, name: name ?? domain };
  return name ? { domain: `name:${name.toLowerCase()}`, name } : null;
}

/**
 * The operator's `.mmdb` range files, looked up in file-name order. The directory is
 * re-read at most every RESCAN_MS: a new or replaced file takes effect without a restart.
 */
export class IpRangeFiles {
  static readonly RESCAN_MS = 2_000;
  private readers: { file: string; mtime: number; reader: Reader<Response> }[] = [];
  private readonly rescanned = atMostEvery(IpRangeFiles.RESCAN_MS, () => this.rescan());

  constructor(private readonly dir: string) {}

  async lookup(ip: string): Promise<OrganisationHint | null> {
    await this.rescanned();
    if (!ipaddr.isValid(ip)) return null;
    const address = ipaddr.process(ip);
    for (const { file, reader } of this.readers) {
      // An IPv4-only file would read an IPv6 address's first 32 bits as an IPv4 address.
      if (address.kind() === 'ipv6' && reader.metadata.ipVersion === 4) continue;
      const [record, prefixLength] = reader.getWithPrefixLength(address.toString());
      const hint = hintOf(record as Record_ | null);
      if (hint) {
        const family = address.kind() === 'ipv4' ? ipaddr.IPv4 : ipaddr.IPv6;
        const first = family.networkAddressFromCIDR(`${address}/${prefixLength}`);
        return {
          ...hint,
          identification: {
            method: 'ip_range',
            evidence: { source: path.basename(file), network: `${first}/${prefixLength}` },
          },
        };
      }
    }
    return null;
  }

  private async rescan(): Promise<void> {
    let names: string[];
    try {
      names = (await readdir(this.dir)).filter((name) => name.endsWith('.mmdb')).sort();
    } catch {
      this.readers = [];
      return;
    }
    const next: typeof this.readers = [];
    for (const name of names) {
      const file = path.join(this.dir, name);
      try {
        const mtime = (await stat(file)).mtimeMs;
        const known = this.readers.find((r) => r.file === file && r.mtime === mtime);
        next.push(known ?? { file, mtime, reader: await maxmind.open(file) });
      } catch {
        // A file being replaced or not an .mmdb: skipped until the next scan.
      }
    }
    this.readers = next;
  }
}

/**
 * `footfall import ip-ranges FILE.mmdb`: checks that the file opens as a MaxMind DB and
 * installs it (atomically) into DATA_DIR/ip-ranges, where servers pick it up.
 */
export async function installRangeFile(dataDir: string, file: string): Promise<string> {
  const reader = await maxmind.open(file).catch(() => {
    throw new Error(`${file} is not a MaxMind DB (.mmdb) file.`);
  });
  const dir = rangeFilesDir(dataDir);
  await mkdir(dir, { recursive: true });
  const target = path.join(dir, path.basename(file));
  const temporary = `${target}.${process.pid}.tmp`;
  await copyFile(file, temporary);
  await rename(temporary, target);
  return `installed ${path.basename(file)} (${reader.metadata.databaseType}); servers use it within ${IpRangeFiles.RESCAN_MS / 1000} s`;
}
