/**
 * What the sync asks of a CRM, whichever it is (contract §18). Each vendor client speaks
 * its documented REST API; batches are as large as the vendor takes in one call (HubSpot:
 * 100) or sent one by one (Pipedrive), all under the vendor's rate limit.
 */

/** An organisation as a CRM company holds it. */
export interface CompanyFields {
  domain: string;
  name: string;
  website: string;
  phone: string;
  city: string;
  country: string;
  industry: string;
  score: number;
  /** ISO 8601. */
  lastSeen: string;
  sessions: number;
  status: string;
  /** Its page in the dashboard. */
  url: string;
}

export interface ContactFields {
  email: string;
  name: string;
}

export interface NoteFields {
  companyId: string;
  /** The note as HTML (both CRMs show notes as rich text). */
  html: string;
  at: Date;
}

/** What the client set up in the CRM once (custom fields, properties), kept per connection. */
export type Setup = Record<string, unknown>;

export interface CrmClient {
  /** How many objects one create call takes: what is created is recorded after each. */
  perCreate: number;
  /** One cheap authenticated call: throws CrmError 'refused' for a bad token. */
  check(): Promise<void>;
  /** Creates what the sync writes to (the footfall_* properties, the domain field) once. */
  setUp(setup: Setup): Promise<Setup>;
  /** The CRM companies with these domains (lower case), by domain. */
  findCompanies(domains: string[]): Promise<Map<string, string>>;
  /** Creates companies; their ids by domain. */
  createCompanies(companies: CompanyFields[]): Promise<Map<string, string>>;
  /** Updates companies; the ids the CRM no longer has (deleted there). */
  updateCompanies(companies: { id: string; fields: CompanyFields }[]): Promise<string[]>;
  /** The CRM contacts with these e-mail addresses (lower case), by address. */
  findContacts(emails: string[]): Promise<Map<string, string>>;
  /** Creates contacts linked to their company; their ids by e-mail address. */
  createContacts(contacts: (ContactFields & { companyId: string })[]): Promise<Map<string, string>>;
  /** Links existing contacts to companies. */
  linkContacts(links: { contactId: string; companyId: string }[]): Promise<void>;
  addNotes(notes: NoteFields[]): Promise<void>;
}

/** The most a client takes per call of the interface above (the worker's batch size). */
export const BATCH = 100;
