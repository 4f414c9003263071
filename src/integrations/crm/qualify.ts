import { type RawBuilder, sql } from 'kysely';
import { REAL_DOMAIN } from '../../enrich/site-store.js';

/**
 * Whether organisation `o` qualifies for connection `c` (contract §18): a lead (never a
 * customer, competitor or hidden organisation) with a real domain, at least the minimum
 * score, and in the segment when the connection names one.
 */
export function qualifies(): RawBuilder<unknown> {
  return sql`(o.status = 'lead' AND ${REAL_DOMAIN}
    AND (c.min_score IS NULL OR o.score >= c.min_score)
    AND (c.segment_id IS NULL OR EXISTS (SELECT 1 FROM segment_members m
      WHERE m.workspace_id = o.workspace_id AND m.segment_id = c.segment_id
        AND m.organisation_id = o.id)))`;
}
