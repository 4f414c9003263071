// The shape of src/ as a rule (docs/architecture.md, "Layout"): the ground (config.ts, db/,
// http/, mail/, outbox/) imports no feature, and no two top-level folders or files reach each other
// through imports (no cycle between them). `npm run lint` runs this file; the test in
// test/scripts/import-graph.test.ts shows it passing on src/ and failing on a tree that
// breaks it.
//
// Until the untangling of src/ is finished, the imports that still break the rule are
// listed in import-graph-baseline.txt: a new one fails, and so does a listed one that is
// gone (take it off the list), so the list only shrinks.

import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The top-level parts of src/ everything else stands on. */
export const GROUND = new Set(['config.ts', 'db', 'http', 'mail', 'outbox']);

/** One import between two top-level parts: the files on each side. */
export interface CrossImport {
  from: string;
  to: string;
  fromFile: string;
  toFile: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) return sourceFiles(full);
      return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [full] : [];
    });
}

/** The top-level part of src/ a file belongs to: its first folder, or the file itself. */
const partOf = (root: string, file: string) => path.relative(root, file).split(path.sep)[0] ?? '';

/** Every relative import (static, dynamic, re-export) that crosses from one part to another. */
export function crossImports(root: string): CrossImport[] {
  const found: CrossImport[] = [];
  for (const file of sourceFiles(root)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = path.resolve(path.dirname(file), fileName).replace(/\.js$/, '.ts');
      if (!target.startsWith(root + path.sep)) continue;
      const [from, to] = [partOf(root, file), partOf(root, target)];
      if (from !== to) {
        found.push({
          from,
          to,
          fromFile: path.relative(root, file),
          toFile: path.relative(root, target),
        });
      }
    }
  }
  return found;
}

/** Imports from the ground to a feature, and the parts that reach each other, with why. */
export function violations(root: string): string[] {
  const imports = crossImports(root);
  const problems = imports
    .filter(({ from, to }) => GROUND.has(from) && !GROUND.has(to))
    .map((i) => `the ground imports a feature: ${i.fromFile} → ${i.toFile}`);
  const next = new Map<string, Set<string>>();
  for (const { from, to } of imports) next.set(from, (next.get(from) ?? new Set()).add(to));
  const reaches = (start: string, goal: string) => {
    const seen = new Set<string>();
    const pending = [...(next.get(start) ?? [])];
    while (pending.length > 0) {
      const part = pending.pop() as string;
      if (part === goal) return true;
      if (seen.has(part)) continue;
      seen.add(part);
      pending.push(...(next.get(part) ?? []));
    }
    return false;
  };
  // An import closes a cycle when its target reaches back to its source; each one is named.
  const seen = new Set<string>();
  for (const i of imports) {
    if (seen.has(`${i.from} ${i.to}`) || !reaches(i.to, i.from)) continue;
    seen.add(`${i.from} ${i.to}`);
    problems.push(`${i.from} and ${i.to} reach each other: ${i.fromFile} → ${i.toFile}`);
  }
  return problems;
}

/** Against the baseline: the problems not listed, and the listed ones no longer found. */
export function againstBaseline(
  problems: string[],
  baseline: string[],
): { added: string[]; gone: string[] } {
  const listed = new Set(baseline);
  const found = new Set(problems);
  return {
    added: problems.filter((problem) => !listed.has(problem)),
    gone: baseline.filter((problem) => !found.has(problem)),
  };
}

export const BASELINE = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  'import-graph-baseline.txt',
);

const BASELINE_HEADER =
  '# Imports of src/ that still break its layout (scripts/import-graph.ts --write-baseline); the list only shrinks.';

export function readBaseline(file = BASELINE): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src');
  if (process.argv.includes('--write-baseline')) {
    const lines = violations(root).sort();
    writeFileSync(BASELINE, `${[BASELINE_HEADER, ...lines].join('\n')}\n`);
    console.log(`${lines.length} imports listed in ${path.basename(BASELINE)}`);
    process.exit(0);
  }
  const { added, gone } = againstBaseline(violations(root), readBaseline());
  for (const problem of added) console.error(`new: ${problem}`);
  for (const problem of gone)
    console.error(`fixed, take it off ${path.basename(BASELINE)}: ${problem}`);
  if (added.length > 0 || gone.length > 0) {
    console.error('the imports of src/ break its layout (docs/architecture.md, "Layout")');
    process.exitCode = 1;
  }
}
