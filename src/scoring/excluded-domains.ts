import { type Kysely, sql } from 'kysely';
import { affectedRows } from '../db/affected.js';
import type { Database } from '../db/schema.js';
import { type FieldErrors, unprocessable } from '../http/errors.js';
import { registrableDomain } from '../identify/companies.js';
import { markScoringStale } from '../outbox/scoring-queue.js';
import { markSegmentsStale } from '../outbox/segment-queue.js';

/**
 * The workspace's excluded domains (contract §17): its own domains, a customer list. An
 * organisation of such a domain, or of a subdomain of one, is stored `hidden` from then
 * on (organisations/store.ts, as it is created) and those already known become hidden
 * now; taking a domain off the list brings back those it hid (not those a person hid).
 */

export const MAX_EXCLUDED_DOMAINS = 10_000;

/**
 * The list as an admin pasted it: domains, `www.` names or URLs, each kept as its
 * registrable domain, lower case, once; 422 naming the entries that are none.
 */
export function checkExcludedDomains(input: string[]): string[] {
  const errors: FieldErrors = {};
  const domains = new Set<string>();
  input.forEach((raw, index) => {
    const domain = registrableDomain(raw);
    if (domain) domains.add(domain);
    else if (Object.keys(errors).length < 20) {
      errors[`domains.${index}`] = [`"${raw.slice(0, 100)}" is not a domain name.`];
    }
  });
  if (Object.keys(errors).length > 0) throw unprocessable(errors);
  return [...domains].sort();
}

export async function listExcludedDomains(
  db: Kysely<Database>,
  workspaceId: string,
): Promise<string[]> {
  const rows = await db
    .selectFrom('excluded_domains')
    .select('domain')
    .where('workspace_id', '=', workspaceId)
    .orderBy('domain')
    .execute();
  return rows.map((row) => row.domain);
}

/**
 * Replaces the list and applies it to the organisations already known, in one
 * transaction; answers how many organisations it hides.
 */
export async function replaceExcludedDomains(
  db: Kysely<Database>,
  workspaceId: string,
  domains: string[],
): Promise<{ hidden: number; shown: number }> {
  return db.transaction().execute(async (trx) => {
    await trx.deleteFrom('excluded_domains').where('workspace_id', '=', workspaceId).execute();
    if (domains.length > 0) {
      await sql`
        INSERT INTO excluded_domains (workspace_id, domain)
        SELECT ${workspaceId}, d FROM unnest(${domains}::text[]) AS d`.execute(trx);
    }
    const excludedNow = sql`EXISTS (SELECT 1 FROM excluded_domains x
      WHERE x.workspace_id = o.workspace_id AND x.domain = ANY(domain_and_parents(o.domain)))`;
    const shown = await sql`
      UPDATE organisations o SET status = 'lead', excluded = false
      WHERE o.workspace_id = ${workspaceId} AND o.excluded AND NOT ${excludedNow}`.execute(trx);
    // Customers and competitors keep what a person said they are.
    const hidden = await sql`
      UPDATE organisations o SET status = 'hidden', excluded = true
      WHERE o.workspace_id = ${workspaceId} AND o.status = 'lead' AND ${excludedNow}`.execute(trx);
    const counts = {
      hidden: affectedRows(hidden),
      shown: affectedRows(shown),
    };
    if (counts.hidden + counts.shown > 0) {
      // Segments and rules may filter by status.
      await markSegmentsStale(trx, workspaceId);
      await markScoringStale(trx, workspaceId);
    }
    return counts;
  });
}
