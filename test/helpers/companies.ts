import type { Kysely } from 'kysely';
import type { Address, Database, SocialProfile } from '../../src/db/schema.js';

/** A directory entry as a test writes it: the domain, and any fields it cares about. */
export interface TestCompany {
  domain: string;
  name?: string;
  website?: string;
  logo?: string;
  founded?: string;
  size?: string;
  industry?: string;
  phone?: string;
  email?: string;
  address?: Partial<Address>;
  profiles?: SocialProfile[];
}

/** Acme's full directory profile, as several tests expect to see it. */
export const ACME: TestCompany = {
  domain: 'acme.com',
  name: 'Acme Corporation',
  website: 'https://www.acme.com',
  logo: 'https://logo.example/acme.png',
  founded: '1947',
  size: '201-500',
  industry: 'Software',
  phone: '+44 20 7946 0000',
  email: 'hello@acme.com',
  address: { city: 'London', country: 'GB', latitude: '51.5', street: 'Baker Street' },
  profiles: [{ name: 'linkedin', handle: 'acme', url: 'https://linkedin.com/company/acme' }],
};

/** Writes company directory entries, as `footfall import companies` would. */
export async function addCompanies(db: Kysely<Database>, companies: TestCompany[]) {
  await db
    .insertInto('companies')
    .values(
      companies.map(({ address = {}, profiles = [], ...fields }) => ({
        name: '',
        website: '',
        logo: '',
        founded: '',
        size: '',
        industry: '',
        phone: '',
        email: '',
        ...fields,
        address: JSON.stringify(address),
        profiles: JSON.stringify(profiles),
      })),
    )
    .execute();
}
