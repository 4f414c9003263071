import { type Kysely, sql } from 'kysely';

/**
 * The rollup functions' clean-up deletes, looked up by key (migrations 0011, 0023, 0030).
 *
 * After taking sessions away, the functions delete the rows that count nothing any more:
 * `DELETE FROM t USING unnest(…) AS d(…) WHERE t.key = d.key … AND t.sessions <= 0`. The
 * planner takes `t.sessions <= 0` for one row, so it scanned the whole rollup table and
 * compared every row with every key (hash and merge joins are off in these functions): at a
 * year of traffic, minutes for a retention batch of a thousand sessions, and seconds for a
 * forgotten person or a session that changed organisation. Each delete now finds its rows
 * from the keys, one index lookup each:
 * `DELETE FROM t WHERE t.ctid = ANY (ARRAY(SELECT x.ctid FROM unnest(…) AS d(…)
 *    CROSS JOIN LATERAL (SELECT t.ctid FROM t WHERE …same condition…) x))`.
 * The functions are rewritten from their current text, so nothing else in them changes.
 */
const FUNCTIONS: Record<string, number> = {
  stats_apply_sessions: 3,
  stats_apply_pages: 1,
  stats_apply_visitors: 2,
  organisation_figures_add: 3,
};

// DELETE FROM <table> <alias>\n USING <unnest …> AS <d>(<columns>)\n WHERE <condition>;
const CLEAN_UP =
  /DELETE FROM (\w+) (\w+)\s+USING (unnest\([^;]*?\)\s+AS \w+\([^)]*\))\s+WHERE ([^;]*?<= 0);/g;

export function byKey(definition: string): { text: string; rewritten: number } {
  let rewritten = 0;
  const text = definition.replace(
    CLEAN_UP,
    (_, table: string, alias: string, keys: string, condition: string) => {
      rewritten += 1;
      return (
        `DELETE FROM ${table} ${alias}\n        WHERE ${alias}.ctid = ANY (ARRAY(\n` +
        `          SELECT x.ctid FROM ${keys}\n` +
        `          CROSS JOIN LATERAL (SELECT ${alias}.ctid FROM ${table} ${alias}\n` +
        `            WHERE ${condition}) x));`
      );
    },
  );
  return { text, rewritten };
}

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [name, deletes] of Object.entries(FUNCTIONS)) {
    const { rows } = await sql<{ definition: string }>`
      SELECT pg_get_functiondef(${name}::regproc) AS definition`.execute(db);
    const { text, rewritten } = byKey(rows[0]?.definition ?? '');
    if (rewritten !== deletes) {
      throw new Error(`${name}: expected ${deletes} clean-up deletes, found ${rewritten}`);
    }
    await sql.raw(text).execute(db);
  }
}
