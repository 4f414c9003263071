import type { Organisation } from '../api/types';

export type OrganisationStatus = Organisation['status'];

/** An organisation's status (contract §17) as the dashboard names it, in this order. */
export const STATUS_LABELS: Record<OrganisationStatus, string> = {
  lead: 'Lead',
  customer: 'Customer',
  competitor: 'Competitor',
  hidden: 'Hidden',
};

export const STATUSES = Object.keys(STATUS_LABELS) as OrganisationStatus[];

export const isStatus = (value: string): value is OrganisationStatus =>
  (STATUSES as string[]).includes(value);

/** A URL's `status`: `all`, or statuses the API knows, comma-separated; else undefined. */
export function statusSearch(value: unknown): string | undefined {
  if (value === 'all') return 'all';
  if (typeof value !== 'string') return undefined;
  const known = value.split(',').filter(isStatus);
  return known.length > 0 ? known.join(',') : undefined;
}
