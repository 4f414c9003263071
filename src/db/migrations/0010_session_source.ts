import { type Kysely, sql } from 'kysely';
import { getDomain } from 'tldts';

// The source rule as this migration was written (src/ingest/source.ts at the time), frozen
// here: an old migration never imports live code, whose later changes would rewrite what
// an old backfill does.

/** A session's source when neither its landing page nor its referrer names one. */
const DIRECT = 'direct';

/** Longer `utm_source` values are cut: a source is a label, not a place to store text. */
const MAX_SOURCE_LENGTH = 100;

/**
 * The registrable domain of a host (`news.ycombinator.com` → `ycombinator.com`). Private
 * suffixes count (`acme.github.io` stays whole: github.io is not one site); an address or
 * a host without a public suffix (`localhost`) is its own domain.
 */
function registrableDomain(host: string): string {
  const name = host.toLowerCase().replace(/\.$/, '');
  return getDomain(name, { allowPrivateDomains: true }) ?? name;
}

/**
 * The registrable domains that are the site itself: its URL's and those of its accepted
 * hostnames (`*.acme.com` → `acme.com`; `*`, any host, names none).
 */
function siteDomains(siteUrl: string, hostnames: readonly string[] | null): string[] {
  const hosts: string[] = [];
  try {
    hosts.push(new URL(siteUrl).hostname);
  } catch {
    // A workspace URL is validated when saved; an unreadable one names nothing.
  }
  for (const host of hostnames ?? []) {
    if (host !== '*') hosts.push(host.replace(/^\*\./, ''));
  }
  return [...new Set(hosts.filter((host) => host !== '').map(registrableDomain))];
}

const parse = (url: string): URL | null => {
  try {
    return new URL(url);
  } catch {
    return null;
  }
};

/** `utm_source` as a label: trimmed, lower case, at most MAX_SOURCE_LENGTH characters. */
function utmSource(landing: URL | null): string {
  const value = landing?.searchParams.get('utm_source')?.trim().toLowerCase() ?? '';
  // By code points, so a cut never splits a surrogate pair.
  return Array.from(value).slice(0, MAX_SOURCE_LENGTH).join('').trim();
}

/**
 * What a session's first page view says about where the visit came from (contract §13): the
 * landing page's `utm_source`, else the referrer's registrable domain, else DIRECT. A
 * referrer on the site itself (same registrable domain as the landing page, the site URL or
 * an accepted hostname) is no source: the visitor was already on the site, e.g. a tab left
 * idle past the session timeout and then clicked. Then the answer is null, and the caller
 * carries on the visitor's previous source, as analytics products do, or says DIRECT.
 */
function trafficSource(
  landingUrl: string,
  referrer: string,
  ownDomains: readonly string[],
): string | null {
  const landing = parse(landingUrl);
  const utm = utmSource(landing);
  if (utm !== '') return utm;
  const from = parse(referrer.trim());
  if (!from) return DIRECT;
  // Apps (Gmail, LinkedIn on Android) send `android-app://<package>/`: the package names them.
  if (from.protocol === 'android-app:' && from.hostname !== '') return from.hostname.toLowerCase();
  if ((from.protocol !== 'http:' && from.protocol !== 'https:') || from.hostname === '') {
    return DIRECT;
  }
  const domain = registrableDomain(from.hostname);
  const own = landing ? [registrableDomain(landing.hostname), ...ownDomains] : ownDomains;
  return own.includes(domain) ? null : domain;
}

// Visitors per backfill batch: a few thousand sessions in memory at a time.
const BATCH_VISITORS = 2_000;

interface Row {
  workspace_id: string;
  visitor_id: string;
  id: string;
  referrer: string;
  landing: string | null;
  site_url: string;
  hostnames: string[] | null;
}

/**
 * Each session's traffic source (contract §13, docs/api.md): `utm_source` of its landing
 * page, else its referrer's registrable domain, else `direct`. Adding the column is instant
 * (a constant default). Existing sessions are then filled in by the same rule as ingest
 * (src/ingest/source.ts: the public suffix list is not something SQL can apply), a batch of
 * visitors at a time so memory stays flat, each visitor's sessions in time order so a
 * self-referral carries on the previous session's source as it does at ingest.
 * Measured: about 50 s per million sessions (3 page views each), index included, on a
 * 4-core machine with PostgreSQL 15, linear from 200,000 to 1,000,000 sessions. The migration holds the rows it updated until it commits, so the
 * collector waits for sessions of visitors already updated, and dead tuples of one full
 * table pass are left for autovacuum.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE sessions ADD COLUMN source text NOT NULL DEFAULT '';
  `.execute(db);
  const domains = new Map<string, string[]>();
  let after: [string, string] | null = null;
  for (;;) {
    const from: [string, string] = after ?? [
      '00000000-0000-0000-0000-000000000000',
      '00000000-0000-0000-0000-000000000000',
    ];
    const { rows } = await sql<Row>`
      WITH batch AS (
        SELECT DISTINCT workspace_id, visitor_id FROM sessions
        WHERE (workspace_id, visitor_id) > (${from[0]}::uuid, ${from[1]}::uuid)
           OR ${after === null}
        ORDER BY workspace_id, visitor_id LIMIT ${BATCH_VISITORS})
      SELECT s.workspace_id, s.visitor_id, s.id, s.referrer, w.url AS site_url, w.hostnames,
        (SELECT e.url FROM events e
         WHERE e.workspace_id = s.workspace_id AND e.session_id = s.id AND e.type = 'pageview'
         ORDER BY e.ts, e.id LIMIT 1) AS landing
      FROM batch JOIN sessions s USING (workspace_id, visitor_id)
      JOIN workspaces w ON w.id = s.workspace_id
      ORDER BY s.workspace_id, s.visitor_id, s.started_at, s.id`.execute(db);
    if (rows.length === 0) break;
    const ids: string[] = [];
    const workspaces: string[] = [];
    const sources: string[] = [];
    let previous: { visitor: string; source: string } | null = null;
    for (const row of rows) {
      let own = domains.get(row.workspace_id);
      if (!own) {
        own = siteDomains(row.site_url, row.hostnames);
        domains.set(row.workspace_id, own);
      }
      const visitor = `${row.workspace_id} ${row.visitor_id}`;
      const carried: string = previous?.visitor === visitor ? previous.source : DIRECT;
      const source: string =
        row.landing === null ? DIRECT : (trafficSource(row.landing, row.referrer, own) ?? carried);
      previous = { visitor, source };
      workspaces.push(row.workspace_id);
      ids.push(row.id);
      sources.push(source);
    }
    await sql`
      UPDATE sessions s SET source = u.source
      FROM unnest(${workspaces}::uuid[], ${ids}::uuid[], ${sources}::text[])
        AS u(workspace_id, id, source)
      WHERE s.workspace_id = u.workspace_id AND s.id = u.id`.execute(db);
    const last = rows[rows.length - 1] as Row;
    after = [last.workspace_id, last.visitor_id];
  }
  // Built after the backfill (cheaper than keeping it up to date through it). The `source`
  // segment filter finds the organisations with a source by it; text_pattern_ops serves
  // both equality and prefixes (sources are stored in lower case, docs/segments.md).
  await sql`
    CREATE INDEX sessions_source_idx
      ON sessions (workspace_id, source text_pattern_ops, organisation_id);
  `.execute(db);
}
