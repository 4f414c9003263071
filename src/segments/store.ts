import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.js';
import { isUuid } from '../http/validation.js';
import { type Condition, type Group, hasRelativeDates } from './filters.js';
import { refreshSegment } from './membership.js';

export async function listSegments(db: Kysely<Database>, workspaceId: string) {
  return db
    .selectFrom('segments')
    .select(['id', 'name'])
    .where('workspace_id', '=', workspaceId)
    .orderBy('name')
    .orderBy('id')
    .execute();
}

/** Whether the workspace has this segment; false for an id that is no UUID at all. */
export async function segmentExists(
  db: Kysely<Database>,
  workspaceId: string,
  segmentId: string,
): Promise<boolean> {
  if (!isUuid(segmentId)) return false;
  const row = await db
    .selectFrom('segments')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', segmentId)
    .executeTakeFirst();
  return row !== undefined;
}

export async function findSegment(db: Kysely<Database>, workspaceId: string, id: string) {
  return db
    .selectFrom('segments')
    .select(['id', 'name', 'filters'])
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** A checked filter as it is stored and shown: the grammar's keys only, units spelled out. */
export function serialiseFilters(group: Group): unknown {
  const item = (entry: Condition | Group): unknown =>
    entry.type === 'group'
      ? serialiseFilters(entry)
      : {
          field: entry.field.name,
          comparison: entry.comparison,
          ...(entry.value !== null && { value: entry.value }),
          ...(entry.comparison.endsWith('_units_ago') && { unit: entry.unit }),
        };
  return { operator: group.operator, conditions: group.conditions.map(item) };
}

/**
 * Saves a segment (new, or with new filters) and computes its members in the same
 * transaction, so it is never seen without them.
 */
export async function saveSegment(
  db: Kysely<Database>,
  workspaceId: string,
  segment: { id?: string; name?: string; filters?: Group },
): Promise<{ id: string; name: string; filters: unknown } | undefined> {
  return db.transaction().execute(async (trx) => {
    const filters = segment.filters && {
      filters: JSON.stringify(serialiseFilters(segment.filters)),
      relative_dates: hasRelativeDates(segment.filters),
      refreshed_at: sql<Date>`now()`,
      // New filters, a fresh start: no back-off left from the old ones.
      failures: 0,
      retry_at: null,
    };
    const saved = segment.id
      ? await trx
          .updateTable('segments')
          .set({ ...(segment.name !== undefined && { name: segment.name }), ...filters })
          .where('workspace_id', '=', workspaceId)
          .where('id', '=', segment.id)
          .returning(['id', 'name', 'filters'])
          .executeTakeFirst()
      : await trx
          .insertInto('segments')
          .values({
            workspace_id: workspaceId,
            id: randomUUID(),
            name: segment.name ?? '',
            filters: '{}',
            ...filters,
          })
          .returning(['id', 'name', 'filters'])
          .executeTakeFirst();
    if (saved && segment.filters) {
      await refreshSegment(
        trx,
        { workspaceId, id: saved.id, filters: segment.filters },
        { notify: false },
      );
    }
    return saved;
  });
}

/** Deletes a segment (its memberships go with it); false when there was none. */
export async function deleteSegment(
  db: Kysely<Database>,
  workspaceId: string,
  id: string,
): Promise<boolean> {
  const result = await db
    .deleteFrom('segments')
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}
