import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ImportSummary } from './import-ip-ranges.js';
import type { NetworkKind } from './network-owner.js';
import { atMostEvery } from './rescan.js';

const KINDS: readonly string[] = ['business', 'isp', 'mobile', 'hosting'];

/** Where the operator's network kinds live: DATA_DIR/network-kinds.csv. */
export const overridesFile = (dataDir: string) => path.join(dataDir, 'network-kinds.csv');

/**
 * Reads `asn,kind` lines (`AS64500` or `64500`; kind business, isp, mobile or hosting); a
 * header line, blank lines and `#` comments are skipped. The last line for an ASN wins.
 */
export function parseOverrides(text: string): {
  kinds: Map<number, NetworkKind>;
  refused: ImportSummary['refused'];
} {
  const kinds = new Map<number, NetworkKind>();
  const refused: ImportSummary['refused'] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || (index === 0 && /^asn\s*,/i.test(line))) return;
    const [asnText = '', kindText = '', ...rest] = line.split(',').map((part) => part.trim());
    const asn = /^(as)?\d{1,10}$/i.test(asnText) ? Number(asnText.replace(/^as/i, '')) : Number.NaN;
    const kind = kindText.toLowerCase();
    if (!Number.isInteger(asn) || asn < 1 || asn > 4_294_967_295) {
      refused.push({ line: index + 1, reason: `"${asnText}" is not an AS number` });
    } else if (!KINDS.includes(kind) || rest.length > 0) {
      refused.push({
        line: index + 1,
        reason: `give two columns, an AS number and one of ${KINDS.join(', ')}`,
      });
    } else kinds.set(asn, kind as NetworkKind);
  });
  return { kinds, refused };
}

/**
 * The operator's network kinds, read from DATA_DIR/network-kinds.csv. The file is looked at
 * again at most every RESCAN_MS, so an import applies without a restart.
 */
export class NetworkOverrides {
  static readonly RESCAN_MS = 2_000;
  private kinds = new Map<number, NetworkKind>();
  private mtime = -1;
  private readonly rescanned = atMostEvery(NetworkOverrides.RESCAN_MS, () => this.rescan());

  constructor(private readonly file: string) {}

  async kindOf(asn: number): Promise<NetworkKind | undefined> {
    await this.rescanned();
    return this.kinds.get(asn);
  }

  private async rescan(): Promise<void> {
    const mtime = await stat(this.file).then(
      (s) => s.mtimeMs,
      () => 0,
    );
    if (mtime === this.mtime) return;
    // The file is replaced by rename, so it is read whole or not at all.
    const text = mtime === 0 ? '' : await readFile(this.file, 'utf8').catch(() => '');
    this.kinds = parseOverrides(text).kinds;
    this.mtime = mtime;
  }
}

/**
 * `footfall import network-kinds FILE`: checks the file and installs it (atomically) as
 * DATA_DIR/network-kinds.csv, replacing the previous overrides. Nothing is installed when a
 * line is refused.
 */
export async function installOverrides(dataDir: string, file: string): Promise<ImportSummary> {
  const { kinds, refused } = parseOverrides(await readFile(file, 'utf8'));
  if (refused.length > 0) return { taken: 0, refused };
  await mkdir(dataDir, { recursive: true });
  const target = overridesFile(dataDir);
  const temporary = `${target}.${process.pid}.tmp`;
  const lines = [...kinds].map(([asn, kind]) => `${asn},${kind}`);
  await writeFile(temporary, ['asn,kind', ...lines, ''].join('\n'));
  await rename(temporary, target);
  return { taken: kinds.size, refused };
}
