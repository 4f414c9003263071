import type { Kysely } from 'kysely';
import type { Address, Database } from '../db/schema.js';
import { nameOf, websiteOf, withProfiles } from '../enrich/profile-sql.js';

/** What a website may learn about its visitor's organisation (Spotter): nothing more. */
export interface PublicProfile {
  name: string;
  website: string;
  logo: string;
  industry: string;
  size: string;
  country: string;
  /** Only the values of custom fields marked `visible_in_spotter`. */
  custom_fields: Record<string, unknown>;
}

/** The workspace's organisation with this domain, as Spotter shows it; null when unknown. */
export async function publicProfile(
  db: Kysely<Database>,
  workspaceId: string,
  domain: string,
): Promise<PublicProfile | null> {
  const row = await withProfiles(db, workspaceId).where('o.domain', '=', domain).executeTakeFirst();
  if (!row) return null;
  const values = await db
    .selectFrom('custom_field_values as v')
    .innerJoin('custom_fields as f', (join) =>
      join.onRef('f.workspace_id', '=', 'v.workspace_id').onRef('f.key', '=', 'v.key'),
    )
    .select(['v.key', 'v.value'])
    .where('v.workspace_id', '=', workspaceId)
    .where('v.organisation_id', '=', row.id)
    .where('f.visible_in_spotter', '=', true)
    .orderBy('v.key')
    .execute();
  return {
    name: nameOf(row),
    website: websiteOf(row),
    logo: row.logo ?? '',
    industry: row.industry ?? '',
    size: row.size ?? '',
    country: String((row.address as Partial<Address> | null)?.country ?? ''),
    custom_fields: Object.fromEntries(values.map((value) => [value.key, value.value])),
  };
}
