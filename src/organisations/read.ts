import { type Kysely, sql } from 'kysely';
import type { Address, Database, SocialProfile } from '../db/schema.js';
import { nameOf, websiteOf, withProfiles } from '../enrich/profile-sql.js';
import { ADDRESS_FIELDS } from '../identify/companies.js';
import { organisationTotals, visitorsAndPlaces } from '../sessions/organisation-figures.js';
import type { Organisation } from './schemas.js';

const countryNames = new Intl.DisplayNames(['en'], { type: 'region' });
const countryName = (code: string) => {
  try {
    return countryNames.of(code) ?? code;
  } catch {
    return code;
  }
};

/** Seconds as H:MM:SS, hours unbounded (contract §7). */
export function hms(totalSeconds: number): string {
  const s = Math.max(0, Math.round(totalSeconds));
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${Math.floor(s / 3600)}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}`;
}

/**
 * The organisations with these ids, as the API shows them: directory profile, tags,
 * segments, custom-field values and the figures of their sessions (./figures.ts), which
 * always match the sessions stored.
 */
export async function loadOrganisations(
  db: Kysely<Database>,
  workspaceId: string,
  ids: string[],
): Promise<Organisation[]> {
  if (ids.length === 0) return [];
  const [rows, stats, tags, segments, values, owners] = await Promise.all([
    withProfiles(db, workspaceId).where('o.id', 'in', ids).execute(),
    sql<{
      organisation_id: string;
      sessions: number;
      visitors: number;
      first_seen: Date;
      last_seen: Date;
      seconds: number;
      pageviews: number;
      locations: string[] | null;
    }>`
      SELECT t.organisation_id, t.sessions, t.pageviews::int AS pageviews, t.first_seen,
        t.last_seen, t.seconds, ${visitorsAndPlaces(workspaceId)}
      FROM ${organisationTotals(workspaceId, ids)} t`.execute(db),
    db
      .selectFrom('organisation_tags')
      .select(['organisation_id', 'name'])
      .where('workspace_id', '=', workspaceId)
      .where('organisation_id', 'in', ids)
      .orderBy(sql`lower(name)`)
      .execute(),
    db
      .selectFrom('segment_members as m')
      .innerJoin('segments as g', (join) =>
        join.onRef('g.workspace_id', '=', 'm.workspace_id').onRef('g.id', '=', 'm.segment_id'),
      )
      .select(['m.organisation_id', 'g.id', 'g.name'])
      .where('m.workspace_id', '=', workspaceId)
      .where('m.organisation_id', 'in', ids)
      .orderBy('g.name')
      .execute(),
    db
      .selectFrom('custom_field_values')
      .select(['organisation_id', 'key', 'value'])
      .where('workspace_id', '=', workspaceId)
      .where('organisation_id', 'in', ids)
      .orderBy('key')
      .execute(),
    db
      .selectFrom('organisations as o')
      .innerJoin('users as u', 'u.id', 'o.owner_id')
      .select(['o.id', 'u.id as uuid', 'u.name', 'u.email'])
      .where('o.workspace_id', '=', workspaceId)
      .where('o.id', 'in', ids)
      .execute(),
  ]);
  const ownerOf = new Map(owners.map(({ id, ...owner }) => [id, owner]));
  const statsOf = new Map(stats.rows.map((row) => [row.organisation_id, row]));
  const group = <T extends { organisation_id: string }>(list: T[]) => {
    const map = new Map<string, T[]>();
    for (const item of list)
      map.set(item.organisation_id, [...(map.get(item.organisation_id) ?? []), item]);
    return map;
  };
  const tagsOf = group(tags);
  const segmentsOf = group(segments);
  const valuesOf = group(values);
  const byId = new Map(rows.map((row) => [row.id, row]));

  return ids.flatMap((id) => {
    const row = byId.get(id);
    if (!row) return [];
    const stat = statsOf.get(id);
    const address = row.address;
    return [
      {
        uuid: row.id,
        name: nameOf(row),
        website: websiteOf(row),
        first_seen: (stat?.first_seen ?? row.created_at).toISOString(),
        last_seen: (stat?.last_seen ?? row.created_at).toISOString(),
        profiles: (row.profiles as SocialProfile[]).map((p) => ({
          name: p.name ?? '',
          handle: p.handle ?? '',
          url: p.url ?? '',
        })),
        tags: (tagsOf.get(id) ?? []).map((tag) => tag.name),
        segments: (segmentsOf.get(id) ?? []).map((segment) => ({
          uuid: segment.id,
          name: segment.name,
        })),
        unique_visitor_count: stat?.visitors ?? 0,
        logo: row.logo,
        address: Object.fromEntries(
          ADDRESS_FIELDS.map((key) => [key, String(address[key] ?? '')]),
        ) as unknown as Address,
        founded: row.founded,
        size: row.size,
        industry: row.industry ?? '',
        phone: row.phone,
        email: row.email,
        total_pageviews: stat?.pageviews ?? 0,
        total_sessions: stat?.sessions ?? 0,
        total_time_on_site: hms(stat?.seconds ?? 0),
        visitor_locations: (stat?.locations ?? []).map((label) => {
          const [city, country] = label.split('|') as [string, string];
          return country ? `${city}, ${countryName(country)}` : city;
        }),
        custom_fields: Object.fromEntries((valuesOf.get(id) ?? []).map((v) => [v.key, v.value])),
        identification: row.identification as Organisation['identification'],
        description: row.description,
        profile_source: {
          directory: row.in_directory,
          website: row.site_url,
          fetched_at: row.site_read_at?.toISOString() ?? null,
        },
        score: row.score,
        score_reasons: row.score_reasons,
        owner: ownerOf.get(id) ?? null,
        status: row.status,
      },
    ];
  });
}
