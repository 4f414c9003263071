import { type Kysely, sql } from 'kysely';
import { createUser, findUserByEmail } from '../auth/users.js';
import type { Database } from '../db/schema.js';
import { inTransaction } from '../db/transaction.js';
import { saveSiteProfile } from '../enrich/site-store.js';
import type { Tokens } from '../http/tokens.js';
import { upsertCompanies } from '../identify/companies.js';
import { upsertIpRanges } from '../identify/ip-ranges.js';
import type { TrackedEvent } from '../ingest/body.js';
import type { VisitEvent } from '../ingest/sessionizer.js';
import { storeEvents } from '../ingest/store.js';
import { ensureOrganisations, organisationKey } from '../organisations/store.js';
import { deleteWorkspace } from '../workspaces/purge.js';
import { createWorkspace } from '../workspaces/store.js';
import { demoAddress, demoDescription, demoLogo, demoPhone } from './profiles.js';

// Synthetic but plausible: companies in documentation address ranges (RFC 5737, RFC 3849),
// so nothing here can be mistaken for a real network.
const COMPANIES = [
  ['Northwind Traders', 'Wholesale', '201-500', 'London', 'GB', 51.507, -0.128],
  ['Contoso Pharmaceuticals', 'Pharmaceuticals', '1001-5000', 'Basel', 'CH', 47.559, 7.588],
  ['Fabrikam Robotics', 'Manufacturing', '501-1000', 'Munich', 'DE', 48.137, 11.575],
  ['Tailspin Logistics', 'Logistics', '201-500', 'Rotterdam', 'NL', 51.924, 4.478],
  ['Adatum Analytics', 'Software', '51-200', 'Dublin', 'IE', 53.35, -6.26],
  ['Litware Security', 'Software', '11-50', 'Tel Aviv', 'IL', 32.085, 34.782],
  ['Proseware Health', 'Healthcare', '1001-5000', 'Boston', 'US', 42.36, -71.059],
  ['Wingtip Energy', 'Energy', '5001-10000', 'Houston', 'US', 29.76, -95.37],
  ['Coho Vineyards', 'Food & Beverage', '11-50', 'Napa', 'US', 38.297, -122.286],
  ['Margie Travel', 'Travel', '51-200', 'Barcelona', 'ES', 41.385, 2.173],
  ['Trey Research', 'Research', '201-500', 'Cambridge', 'GB', 52.205, 0.119],
  ['Woodgrove Bank', 'Finance', '10001+', 'Frankfurt am Main', 'DE', 50.11, 8.682],
  ['Lucerne Publishing', 'Media', '51-200', 'Lucerne', 'CH', 47.05, 8.309],
  ['Blue Yonder Airlines', 'Aviation', '1001-5000', 'Seattle', 'US', 47.606, -122.332],
  ['Humongous Insurance', 'Insurance', '10001+', 'Hartford', 'US', 41.764, -72.685],
  ['Alpine Ski House', 'Retail', '11-50', 'Innsbruck', 'AT', 47.269, 11.404],
  ['Relecloud', 'Software', '201-500', 'Stockholm', 'SE', 59.329, 18.068],
  ['Southridge Video', 'Media', '51-200', 'Los Angeles', 'US', 34.052, -118.244],
  ['VanArsdel Foods', 'Food & Beverage', '501-1000', 'Lyon', 'FR', 45.764, 4.835],
  ['Graphic Design Institute', 'Education', '51-200', 'Milan', 'IT', 45.464, 9.19],
  ['Consolidated Messenger', 'Logistics', '1001-5000', 'Chicago', 'US', 41.878, -87.63],
  ['Fourth Coffee', 'Food & Beverage', '11-50', 'Melbourne', 'AU', -37.814, 144.963],
  ['Datum Corporation', 'Software', '501-1000', 'Toronto', 'CA', 43.653, -79.383],
  ['Bellows College', 'Education', '201-500', 'Edinburgh', 'GB', 55.953, -3.188],
  ['Wide World Importers', 'Wholesale', '201-500', 'Hamburg', 'DE', 53.551, 9.994],
  ['Nod Publishers', 'Media', '11-50', 'Copenhagen', 'DK', 55.676, 12.568],
  ['Lamna Healthcare', 'Healthcare', '501-1000', 'Oslo', 'NO', 59.914, 10.752],
  ['Best For You Organics', 'Retail', '51-200', 'Portland', 'US', 45.515, -122.679],
  ['First Up Consultants', 'Consulting', '201-500', 'Paris', 'FR', 48.857, 2.352],
  ['Tailwind Traders', 'Retail', '1001-5000', 'Sydney', 'AU', -33.869, 151.209],
  ['Munson’s Pickles', 'Food & Beverage', '11-50', 'Utrecht', 'NL', 52.091, 5.122],
  ['Baldwin Museum of Science', 'Non-profit', '51-200', 'Vienna', 'AT', 48.208, 16.373],
] as const;

const PAGES = [
  '/',
  '/product',
  '/pricing',
  '/customers',
  '/blog/b2b-attribution',
  '/blog/intent-data',
  '/docs',
  '/integrations',
  '/about',
  '/careers',
];
const REFERRERS = [
  'https://www.google.com/',
  'https://www.linkedin.com/',
  'https://www.bing.com/',
  '',
  '',
  'https://news.ycombinator.com/',
  'https://newsletter.example/issue-42',
];
const SITE = 'https://www.acme-analytics.example';

/** A small seeded generator, so every demo looks the same. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    pick: <T>(list: readonly T[]) => list[Math.floor(next() * list.length)] as T,
    int: (n: number) => Math.floor(next() * n),
  };
}

/** Whether the i-th demo company's homepage was read too (every fourth one). */
const hasSiteProfile = (i: number) => i % 4 === 3;

const slug = (name: string) => name.toLowerCase().replace(/[^a-z0-9]+/g, '');
const uuidFrom = (r: ReturnType<typeof random>) =>
  'xxxxxxxx-xxxx-4xxx-8xxx-xxxxxxxxxxxx'.replace(/x/g, () => r.int(16).toString(16));

/** The address block of the i-th demo company: a /28 of a documentation range. */
function block(i: number): string {
  const ranges = ['192.0.2', '198.51.100', '203.0.113'];
  return `${ranges[Math.floor(i / 16)]}.${(i % 16) * 16}/28`;
}

export interface DemoResult {
  workspaceId: string;
  token: string;
  organisations: number;
  sessions: number;
  events: number;
}

export interface DemoOptions {
  days: number;
  idleMs: number;
  usageLimit: number;
}

/** `footfall demo`: a workspace with synthetic companies and `days` days of their visits. */
export async function createDemo(
  db: Kysely<Database>,
  tokens: Tokens,
  options: DemoOptions & { email: string },
): Promise<DemoResult> {
  const operator =
    (await findUserByEmail(db, options.email)) ?? (await createUser(db, options.email, 'Demo'));
  const filled = await createDemoWorkspace(db, operator.id, options);
  const issued = await tokens.issue(operator.id, 'demo', null);
  return { ...filled, token: issued.token };
}

/**
 * A new workspace owned by `userId`, filled with the demo (the dashboard's "Load demo data",
 * and the CLI's `footfall demo`). A workspace the fill fails in is deleted again.
 */
export async function createDemoWorkspace(
  db: Kysely<Database>,
  userId: string,
  options: DemoOptions,
): Promise<Omit<DemoResult, 'token'>> {
  const workspace = await createWorkspace(db, userId, {
    name: 'Demo: Acme Analytics',
    url: SITE,
    usageLimit: options.usageLimit,
  });
  try {
    const filled = await fillDemoWorkspace(db, workspace.id, options);
    await giveDemoAccounts(db, workspace.id, userId);
    return { workspaceId: workspace.id, ...filled };
  } catch (error) {
    await deleteWorkspace(db, workspace.id);
    throw error;
  }
}

/**
 * Its maker owns a few of the demo's companies ("My accounts") and one of them is already a
 * customer, so the lead feed shows what owners and statuses do (contract §17).
 */
async function giveDemoAccounts(
  db: Kysely<Database>,
  workspaceId: string,
  userId: string,
): Promise<void> {
  await sql`
    WITH mine AS (
      SELECT id, row_number() OVER (ORDER BY domain) AS n FROM organisations
      WHERE workspace_id = ${workspaceId} ORDER BY domain LIMIT 5
    )
    UPDATE organisations o
    SET owner_id = ${userId}, status = CASE WHEN mine.n = 5 THEN 'customer' ELSE 'lead' END
    FROM mine WHERE o.workspace_id = ${workspaceId} AND o.id = mine.id`.execute(db);
}

/**
 * Fills a workspace with the demo's companies and their visits over the last `days` days,
 * ending now (the dashboard's default last-30-days view shows them). Creates no user or token.
 */
export async function fillDemoWorkspace(
  db: Kysely<Database>,
  workspaceId: string,
  options: Pick<DemoOptions, 'days' | 'idleMs'>,
): Promise<Omit<DemoResult, 'token' | 'workspaceId'>> {
  const r = random(20261121);
  const workspace = { id: workspaceId };
  const companies = COMPANIES.map(
    ([name, industry, size, city, country, latitude, longitude], i) => ({
      domain: `${slug(name)}.example`,
      name,
      industry,
      size,
      city,
      country,
      latitude,
      longitude,
      network: block(i),
    }),
  );
  await upsertCompanies(
    db,
    companies.map((c, i) => ({
      domain: c.domain,
      name: c.name,
      website: `https://www.${c.domain}`,
      logo: demoLogo(i),
      founded: String(1950 + r.int(70)),
      size: c.size,
      industry: c.industry,
      phone: demoPhone(c.country, i),
      email: `info@${c.domain}`,
      // Every fourth company's description comes from its homepage (below) instead.
      description: hasSiteProfile(i) ? '' : demoDescription(c.name, c.industry, c.city),
      address: demoAddress(c.city, c.country, c.latitude, c.longitude),
      profiles: [
        {
          name: 'linkedin',
          handle: slug(c.name),
          url: `https://www.linkedin.com/company/${slug(c.name)}`,
        },
      ],
    })),
  );
  // Their homepages were read a few days ago too: the directory wins field by field, the
  // site adds what the directory lacks (a description, more profiles).
  const now = Date.now();
  for (const [i, c] of companies.entries()) {
    if (!hasSiteProfile(i)) continue;
    await saveSiteProfile(
      db,
      c.domain,
      `https://www.${c.domain}/`,
      {
        name: c.name,
        logo: demoLogo(i),
        description: demoDescription(c.name, c.industry, c.city),
        phone: '',
        email: `hello@${c.domain}`,
        founded: '',
        size: c.size,
        address: {},
        profiles: [
          { name: 'github', handle: slug(c.name), url: `https://github.com/${slug(c.name)}` },
          {
            name: 'youtube',
            handle: `@${slug(c.name)}`,
            url: `https://www.youtube.com/@${slug(c.name)}`,
          },
        ],
      },
      new Date(now - (2 + (i % 5)) * 86_400_000),
    );
  }
  await upsertIpRanges(
    db,
    companies.map((c) => ({ network: c.network, domain: c.domain, name: c.name })),
  );
  const { ids } = await inTransaction(db, (tx) =>
    ensureOrganisations(
      tx,
      companies.map((c) => ({
        workspaceId: workspace.id,
        domain: c.domain,
        name: c.name,
        identification: {
          method: 'ip_range' as const,
          evidence: { source: 'ip-ranges import (CSV)', network: c.network },
        },
      })),
    ),
  );

  const items: VisitEvent[] = [];
  let sessions = 0;
  for (const company of companies) {
    const organisationId = ids.get(organisationKey(workspace.id, company.domain)) ?? null;
    const visitors = 1 + r.int(4);
    for (let v = 0; v < visitors; v++) {
      const visit = {
        workspaceId: workspace.id,
        visitorId: uuidFrom(r),
        browser: r.pick(['Chrome', 'Chrome', 'Edge', 'Firefox', 'Safari']),
        deviceType: r.pick(['desktop', 'desktop', 'desktop', 'mobile', 'tablet']),
        location: {
          country: company.country,
          state: '',
          city: company.city,
          latitude: company.latitude,
          longitude: company.longitude,
        },
        organisationId,
      };
      const visits = 1 + r.int(Math.max(1, Math.round(options.days / 4)));
      for (let s = 0; s < visits; s++) {
        sessions++;
        let at = now - r.next() * options.days * 86_400_000;
        const events: TrackedEvent[] = [];
        const add = (type: TrackedEvent['type'], url: string, data: Record<string, unknown>) =>
          events.push({ type, ts: new Date(at), url, data });
        const views = 1 + r.int(6);
        let url = `${SITE}${r.pick(PAGES)}`;
        add('pageview', url, { referrer: r.pick(REFERRERS), title: 'Acme Analytics' });
        for (let p = 1; p < views; p++) {
          at += (10 + r.int(240)) * 1000;
          if (r.next() < 0.15)
            add('download', url, {
              href: `${SITE}/files/buyers-guide.pdf`,
              text: 'Buyer’s guide (PDF)',
            });
          url = `${SITE}${r.pick(PAGES)}`;
          add('pageview', url, { referrer: '', title: 'Acme Analytics' });
        }
        if (r.next() < 0.2) {
          at += 60_000;
          url = `${SITE}/demo`;
          add('pageview', url, { referrer: '', title: 'Book a demo' });
          at += 45_000;
          add('form_submit', url, {
            form_id: 'demo-request',
            form_name: 'demo',
            time_spent: 20 + r.int(60),
            fields: [
              { name: 'email', value: `buyer${v}@${company.domain}` },
              { name: 'company', value: company.name },
              { name: 'team_size', value: company.size },
            ],
          });
          add('custom', url, {
            name: 'demo_requested',
            properties: { plan: r.pick(['starter', 'pro', 'enterprise']) },
          });
        }
        add('page_leave', url, { time_on_page: 5 + r.int(120) });
        for (const event of events) items.push({ visit, event });
      }
    }
  }
  const anonymous = anonymousVisits(r, workspace.id, now, options.days);
  sessions += anonymous.sessions;
  items.push(...anonymous.items);
  await storeEvents(db, items, options.idleMs);
  return {
    organisations: companies.length,
    sessions,
    events: items.length,
  };
}

/**
 * Visitors nobody can name (home and mobile networks, no e-mail given), three for each
 * company, as on a real B2B site, where most visitors stay anonymous: the Overview's match
 * rate is then a plausible figure instead of 100 %.
 */
function anonymousVisits(
  r: ReturnType<typeof random>,
  workspaceId: string,
  now: number,
  days: number,
): { items: VisitEvent[]; sessions: number } {
  const items: VisitEvent[] = [];
  let sessions = 0;
  for (let v = 0; v < COMPANIES.length * 3; v++) {
    const company = r.pick(COMPANIES);
    const visit = {
      workspaceId,
      visitorId: uuidFrom(r),
      browser: r.pick(['Chrome', 'Chrome', 'Safari', 'Firefox', 'Edge']),
      deviceType: r.pick(['desktop', 'mobile', 'mobile', 'tablet']),
      location: {
        country: company[4],
        state: '',
        city: company[3],
        latitude: company[5],
        longitude: company[6],
      },
      organisationId: null,
    };
    const visits = 1 + r.int(2);
    for (let s = 0; s < visits; s++) {
      sessions++;
      let at = now - r.next() * days * 86_400_000;
      const views = 1 + r.int(3);
      for (let p = 0; p < views; p++) {
        const event: TrackedEvent = {
          type: 'pageview',
          ts: new Date(at),
          url: `${SITE}${r.pick(PAGES)}`,
          data: { referrer: p === 0 ? r.pick(REFERRERS) : '', title: 'Acme Analytics' },
        };
        items.push({ visit, event });
        at += (10 + r.int(120)) * 1000;
      }
    }
  }
  return { items, sessions };
}
