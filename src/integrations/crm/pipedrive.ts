import type { Limit } from './bucket.js';
import { type CrmContext, CrmError, type CrmRequest, crmCall, type Dialect } from './call.js';
import type { CompanyFields, CrmClient, Setup } from './client.js';

/**
 * Pipedrive's API (v1: organizations, organizationFields, persons, notes) with a personal
 * API token, sent in the `x-api-token` header so it never sits in a URL. Pipedrive has no
 * batch calls for these, so a batch is sent one call at a time, under the rate limit.
 * Plain HTTP rather than the `pipedrive` package: see docs/integrations.md.
 */

// Documented burst limit of the lowest plan: 20 calls per rolling 2 s per token, and the
// search endpoints 10 per 2 s on every plan. In any 2 s these let through at most
// 4 + 7 × 2 = 18 calls, of which 1 + 3.5 × 2 = 8 searches.
export const PIPEDRIVE_LIMITS: Record<string, Limit> = {
  requests: { burst: 4, perSecond: 7 },
  search: { burst: 1, perSecond: 3.5 },
};

const dialect: Dialect = {
  label: 'Pipedrive',
  headers: (token) => ({ 'x-api-token': token }),
  errorText: (body) => {
    const error = (body as { error?: unknown } | undefined)?.error;
    return typeof error === 'string' ? error.slice(0, 300) : undefined;
  },
  refusedHint: 'Copy the API token from Personal preferences → API in Pipedrive and connect again.',
};

/** The organization fields the sync writes, by what they hold; found by name or created. */
const FIELDS = {
  domain: { name: 'Domain', field_type: 'varchar' },
  phone: { name: 'Phone', field_type: 'phone' },
  industry: { name: 'Industry', field_type: 'varchar' },
  score: { name: 'Footfall score', field_type: 'double' },
  lastSeen: { name: 'Footfall last seen', field_type: 'date' },
  sessions: { name: 'Footfall sessions', field_type: 'double' },
  status: { name: 'Footfall status', field_type: 'varchar' },
  url: { name: 'Footfall page', field_type: 'varchar' },
} as const;
type FieldKeys = Record<keyof typeof FIELDS, string>;

interface Answer<T> {
  success: boolean;
  data: T;
  additional_data?: { pagination?: { more_items_in_collection?: boolean; next_start?: number } };
}
interface Found {
  items: { item: { id: number } }[];
}

export function pipedriveClient(ctx: CrmContext): CrmClient {
  const call = async <T>(request: CrmRequest, buckets?: string[]) =>
    (await crmCall<Answer<T>>(ctx, dialect, PIPEDRIVE_LIMITS, request, buckets)).body.data;
  let keys: FieldKeys | null = null;

  /** The id of the first item an exact search for `term` in `fields` finds. */
  async function findOne(kind: 'organizations' | 'persons', term: string, fields: string) {
    const found = await call<Found>(
      {
        method: 'GET',
        path: `/v1/${kind}/search`,
        query: { term, fields, exact_match: true, limit: 10 },
      },
      ['requests', 'search'],
    );
    const first = found.items[0]?.item.id;
    return first === undefined ? undefined : String(first);
  }

  function organization(fields: CompanyFields): Record<string, unknown> {
    if (!keys) throw new Error('Pipedrive fields are not set up');
    const address = [fields.city, fields.country].filter(Boolean).join(', ');
    const known: Record<string, string> = {
      [keys.domain]: fields.domain,
      [keys.phone]: fields.phone,
      [keys.industry]: fields.industry,
      address,
    };
    return {
      name: fields.name,
      ...Object.fromEntries(Object.entries(known).filter(([, value]) => value !== '')),
      [keys.score]: fields.score,
      // A date field takes YYYY-MM-DD.
      [keys.lastSeen]: fields.lastSeen.slice(0, 10),
      [keys.sessions]: fields.sessions,
      [keys.status]: fields.status,
      [keys.url]: fields.url,
    };
  }

  return {
    perCreate: 1,

    async check() {
      // Before the connection exists: no bucket of its own to take from yet.
      await call({ method: 'GET', path: '/v1/users/me' }, []);
    },

    async setUp(setup: Setup) {
      const kept = setup.fields as FieldKeys | undefined;
      if (kept && Object.keys(FIELDS).every((field) => field in kept)) {
        keys = kept;
        return setup;
      }
      const existing: { key: string; name: string }[] = [];
      for (let start = 0; ; ) {
        const page = await crmCall<Answer<{ key: string; name: string }[]>>(
          ctx,
          dialect,
          PIPEDRIVE_LIMITS,
          { method: 'GET', path: '/v1/organizationFields', query: { start, limit: 500 } },
        );
        existing.push(...(page.body.data ?? []));
        const pagination = page.body.additional_data?.pagination;
        if (!pagination?.more_items_in_collection) break;
        start = pagination.next_start ?? start + 500;
      }
      const byName = new Map(existing.map((field) => [field.name.toLowerCase(), field.key]));
      const found: Partial<FieldKeys> = {};
      for (const [field, definition] of Object.entries(FIELDS) as [
        keyof FieldKeys,
        (typeof FIELDS)[keyof FieldKeys],
      ][]) {
        found[field] =
          byName.get(definition.name.toLowerCase()) ??
          (
            await call<{ key: string }>({
              method: 'POST',
              path: '/v1/organizationFields',
              body: definition,
            })
          ).key;
      }
      keys = found as FieldKeys;
      return { ...setup, fields: keys };
    },

    async findCompanies(domains) {
      const found = new Map<string, string>();
      for (const domain of domains) {
        const id = await findOne('organizations', domain, 'custom_fields');
        if (id) found.set(domain, id);
      }
      return found;
    },

    async createCompanies(companies) {
      const created = new Map<string, string>();
      for (const fields of companies) {
        const data = await call<{ id: number }>({
          method: 'POST',
          path: '/v1/organizations',
          body: organization(fields),
        });
        created.set(fields.domain, String(data.id));
      }
      return created;
    },

    async updateCompanies(companies) {
      const missing: string[] = [];
      for (const { id, fields } of companies) {
        try {
          await call({
            method: 'PUT',
            path: `/v1/organizations/${id}`,
            body: organization(fields),
          });
        } catch (error) {
          if (error instanceof CrmError && error.status === 404) missing.push(id);
          else throw error;
        }
      }
      return missing;
    },

    async findContacts(emails) {
      const found = new Map<string, string>();
      for (const email of emails) {
        const id = await findOne('persons', email, 'email');
        if (id) found.set(email, id);
      }
      return found;
    },

    async createContacts(contacts) {
      const created = new Map<string, string>();
      for (const contact of contacts) {
        const data = await call<{ id: number }>({
          method: 'POST',
          path: '/v1/persons',
          body: {
            name: contact.name || contact.email,
            email: [{ value: contact.email, primary: true, label: 'work' }],
            org_id: Number(contact.companyId),
          },
        });
        created.set(contact.email, String(data.id));
      }
      return created;
    },

    async linkContacts(links) {
      for (const link of links) {
        await call({
          method: 'PUT',
          path: `/v1/persons/${link.contactId}`,
          body: { org_id: Number(link.companyId) },
        });
      }
    },

    async addNotes(notes) {
      for (const note of notes) {
        await call({
          method: 'POST',
          path: '/v1/notes',
          body: {
            content: note.html,
            org_id: Number(note.companyId),
            add_time: note.at.toISOString().slice(0, 19).replace('T', ' '),
          },
        });
      }
    },
  };
}
