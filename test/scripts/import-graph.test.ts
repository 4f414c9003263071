import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { againstBaseline, readBaseline, violations } from '../../scripts/import-graph.js';

const src = path.resolve(import.meta.dirname, '../../src');
const scratch = mkdtempSync(path.join(os.tmpdir(), 'footfall-imports-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A tree of files (path → source) under a fresh folder; its path. */
function tree(name: string, files: Record<string, string>): string {
  const root = path.join(scratch, name);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return root;
}

describe('the layout of src/ (scripts/import-graph.ts, run by npm run lint)', () => {
  it('holds for src/: nothing beyond the listed imports still to untangle, none of them gone', () => {
    expect(againstBaseline(violations(src), readBaseline())).toEqual({ added: [], gone: [] });
  });

  it('finds nothing in a tree whose features stand on the ground side by side', () => {
    const root = tree('clean', {
      'config.ts': 'export const port = 1;\n',
      'db/connect.ts': "import { port } from '../config.js';\nexport const url = port;\n",
      'shop/store.ts': "import { url } from '../db/connect.js';\nexport const items = url;\n",
      'orders/routes.ts': "import { items } from '../shop/store.js';\nexport default items;\n",
    });
    expect(violations(root)).toEqual([]);
  });

  it('names the ground importing a feature, and two features that reach each other', () => {
    const root = tree('tangled', {
      'db/connect.ts': "import type { Item } from '../shop/store.js';\nexport type Row = Item;\n",
      'shop/store.ts':
        "export type Item = string;\nexport const load = () => import('../orders/routes.js');\n",
      'orders/routes.ts': "export { type Item } from '../shop/store.js';\n",
    });
    expect(violations(root).sort()).toEqual([
      'orders and shop reach each other: orders/routes.ts → shop/store.ts',
      'shop and orders reach each other: shop/store.ts → orders/routes.ts',
      'the ground imports a feature: db/connect.ts → shop/store.ts',
    ]);
  });

  it('fails the check when an import from the ground to a feature is added to src/', () => {
    const copy = path.join(scratch, 'src-copy');
    cpSync(src, copy, { recursive: true });
    writeFileSync(
      path.join(copy, 'db/added.ts'),
      "import { storeVisits } from '../ingest/store.js';\nexport const added = storeVisits;\n",
    );
    const { added } = againstBaseline(violations(copy), readBaseline());
    expect(added).toContain('the ground imports a feature: db/added.ts → ingest/store.ts');
  });
});
