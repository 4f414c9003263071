import type { Limit } from './bucket.js';
import { type CrmContext, type CrmRequest, crmCall, type Dialect } from './call.js';
import type { CompanyFields, CrmClient, Setup } from './client.js';

/**
 * HubSpot's CRM API (v3 objects, search, batch and properties; v4 default associations),
 * with a private app's access token. Plain HTTP rather than @hubspot/api-client: see
 * docs/integrations.md, "Why no vendor SDK".
 */

// Documented for private apps: 100 calls per 10 s (the lowest tier), and the search
// endpoints 4 per second. In any 10 s these let through at most 10 + 8 × 10 = 90 calls;
// in any second at most 1 + 2.5 = 3.5 searches.
export const HUBSPOT_LIMITS: Record<string, Limit> = {
  requests: { burst: 10, perSecond: 8 },
  search: { burst: 1, perSecond: 2.5 },
};

const dialect: Dialect = {
  label: 'HubSpot',
  headers: (token) => ({ authorization: `Bearer ${token}` }),
  errorText: (body) => {
    const message = (body as { message?: unknown } | undefined)?.message;
    return typeof message === 'string' ? message.slice(0, 300) : undefined;
  },
  refusedHint:
    'Create a private app token with the crm.objects.companies, crm.objects.contacts and crm.schemas.companies scopes (read and write) and connect again.',
};

// Association types HubSpot defines (v4): note → company, contact → company.
const NOTE_TO_COMPANY = 190;
const CONTACT_TO_COMPANY = 279;

/** The properties Footfall keeps on a company; created once, in HubSpot's company group. */
const FOOTFALL_PROPERTIES = [
  { name: 'footfall_score', label: 'Footfall score', type: 'number', fieldType: 'number' },
  { name: 'footfall_last_seen', label: 'Footfall last seen', type: 'datetime', fieldType: 'date' },
  { name: 'footfall_sessions', label: 'Footfall sessions', type: 'number', fieldType: 'number' },
  { name: 'footfall_status', label: 'Footfall status', type: 'string', fieldType: 'text' },
  { name: 'footfall_url', label: 'Footfall page', type: 'string', fieldType: 'text' },
  // HubSpot's own `industry` takes only its fixed options: an unknown one fails the call.
  { name: 'footfall_industry', label: 'Footfall industry', type: 'string', fieldType: 'text' },
];

interface HubSpotObject {
  id: string;
  properties: Record<string, string | null>;
}
interface Search {
  results: HubSpotObject[];
  paging?: { next?: { after?: string } };
}
interface Batch {
  results: HubSpotObject[];
  errors?: { category?: string; context?: { ids?: string[] } }[];
}

// The search endpoints' largest page (a batch searches at most 100 values).
const SEARCH_PAGE = 200;

export function hubspotClient(ctx: CrmContext): CrmClient {
  const call = <T>(request: CrmRequest, buckets?: string[]) =>
    crmCall<T>(ctx, dialect, HUBSPOT_LIMITS, request, buckets);

  /** Every object of `type` whose `property` is one of `values`, by that value (lower case). */
  async function searchIn(type: string, property: string, values: string[]) {
    const found = new Map<string, string>();
    if (values.length === 0) return found;
    let after: string | undefined;
    do {
      const { body } = await call<Search>(
        {
          method: 'POST',
          path: `/crm/v3/objects/${type}/search`,
          body: {
            filterGroups: [{ filters: [{ propertyName: property, operator: 'IN', values }] }],
            properties: [property],
            sorts: [{ propertyName: 'hs_object_id', direction: 'ASCENDING' }],
            limit: SEARCH_PAGE,
            ...(after ? { after } : {}),
          },
        },
        ['requests', 'search'],
      );
      for (const result of body.results) {
        const value = result.properties[property]?.toLowerCase();
        // The oldest of duplicates already in the CRM.
        if (value && !found.has(value)) found.set(value, result.id);
      }
      after = body.paging?.next?.after;
    } while (after);
    return found;
  }

  /** Created objects by `property`: HubSpot does not promise the inputs' order. */
  const byProperty = (batch: Batch, property: string) =>
    new Map(
      batch.results.map((result) => [result.properties[property]?.toLowerCase() ?? '', result.id]),
    );

  return {
    perCreate: 100,

    async check() {
      // Before the connection exists: no bucket of its own to take from yet.
      await call({ method: 'GET', path: '/crm/v3/objects/companies', query: { limit: 1 } }, []);
    },

    async setUp(setup: Setup) {
      if (setup.properties === true) return setup;
      const { body } = await call<{ results: { name: string }[] }>({
        method: 'GET',
        path: '/crm/v3/properties/companies',
      });
      const have = new Set(body.results.map((property) => property.name));
      const missing = FOOTFALL_PROPERTIES.filter((property) => !have.has(property.name));
      if (missing.length > 0) {
        try {
          await call({
            method: 'POST',
            path: '/crm/v3/properties/companies/batch/create',
            body: {
              inputs: missing.map((property) => ({
                ...property,
                groupName: 'companyinformation',
                description: 'Kept by Footfall (website visits).',
              })),
            },
          });
        } catch (error) {
          // Another server created them first: fine.
          if ((error as { status?: number }).status !== 409) throw error;
        }
      }
      return { ...setup, properties: true };
    },

    findCompanies: (domains) => searchIn('companies', 'domain', domains),

    async createCompanies(companies) {
      const { body } = await call<Batch>({
        method: 'POST',
        path: '/crm/v3/objects/companies/batch/create',
        body: { inputs: companies.map((fields) => ({ properties: companyProperties(fields) })) },
      });
      return byProperty(body, 'domain');
    },

    async updateCompanies(companies) {
      if (companies.length === 0) return [];
      const { body } = await call<Batch>({
        method: 'POST',
        path: '/crm/v3/objects/companies/batch/update',
        body: {
          inputs: companies.map(({ id, fields }) => ({
            id,
            properties: companyProperties(fields),
          })),
        },
      });
      return (body.errors ?? [])
        .filter((error) => error.category === 'OBJECT_NOT_FOUND')
        .flatMap((error) => error.context?.ids ?? []);
    },

    findContacts: (emails) => searchIn('contacts', 'email', emails),

    async createContacts(contacts) {
      const { body } = await call<Batch>({
        method: 'POST',
        path: '/crm/v3/objects/contacts/batch/create',
        body: {
          inputs: contacts.map((contact) => ({
            properties: { email: contact.email, ...nameProperties(contact.name) },
            associations: [association(contact.companyId, CONTACT_TO_COMPANY)],
          })),
        },
      });
      return byProperty(body, 'email');
    },

    async linkContacts(links) {
      if (links.length === 0) return;
      await call({
        method: 'POST',
        path: '/crm/v4/associations/contacts/companies/batch/associate/default',
        body: {
          inputs: links.map((link) => ({
            from: { id: link.contactId },
            to: { id: link.companyId },
          })),
        },
      });
    },

    async addNotes(notes) {
      if (notes.length === 0) return;
      await call({
        method: 'POST',
        path: '/crm/v3/objects/notes/batch/create',
        body: {
          inputs: notes.map((note) => ({
            properties: { hs_timestamp: note.at.toISOString(), hs_note_body: note.html },
            associations: [association(note.companyId, NOTE_TO_COMPANY)],
          })),
        },
      });
    },
  };
}

const association = (id: string, typeId: number) => ({
  to: { id },
  types: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: typeId }],
});

/**
 * A company's properties: what Footfall knows of it, leaving out what it does not know
 * (so a phone number sales typed in is not blanked), and the footfall_* properties.
 */
function companyProperties(fields: CompanyFields): Record<string, string> {
  const known: Record<string, string> = {
    name: fields.name,
    domain: fields.domain,
    website: fields.website,
    phone: fields.phone,
    city: fields.city,
    country: fields.country,
    footfall_industry: fields.industry,
  };
  return {
    ...Object.fromEntries(Object.entries(known).filter(([, value]) => value !== '')),
    footfall_score: String(fields.score),
    footfall_last_seen: fields.lastSeen,
    footfall_sessions: String(fields.sessions),
    footfall_status: fields.status,
    footfall_url: fields.url,
  };
}

function nameProperties(name: string): Record<string, string> {
  const [first = '', ...rest] = name.trim().split(/\s+/);
  const properties: Record<string, string> = {};
  if (first) properties.firstname = first;
  if (rest.length > 0) properties.lastname = rest.join(' ');
  return properties;
}
