import type { IpRangeFiles } from './ip-range-files.js';
import type { IpRanges, OrganisationHint } from './ip-ranges.js';

/** Who is visiting, as far as the request alone can tell. */
export interface VisitClues {
  ip: string;
  workspaceId: string;
  /** "" when the caller gave none (Spotter without a visitor id). */
  visitorId: string;
  /** Email addresses the request carries (identify calls, form fields). */
  emails: string[];
}

/**
 * A resolver's answer that it will know once a background lookup ends (contract §16): the
 * chain stops there, the visit is stored unattributed and named when the lookup finishes.
 */
export const LATER = Symbol('later');

/** One way of naming the organisation behind a visit; null when it cannot tell. */
export interface Resolver {
  name: string;
  resolve(clues: VisitClues): Promise<OrganisationHint | null | typeof LATER>;
}

/** The operator's IP ranges: the imported CSV rows first, then the installed `.mmdb` files. */
export const ipRangeResolver = (ranges: IpRanges, files: IpRangeFiles): Resolver => ({
  name: 'ip_ranges',
  resolve: async (clues) => (await ranges.lookup(clues.ip)) ?? (await files.lookup(clues.ip)),
});

/**
 * The organisation a chain named: the winning resolver's name as `source`, and `email` when
 * the visitor identified themselves with a business address.
 */
export type ResolvedOrganisation = OrganisationHint & { source: string; email?: string };

/** Asks each resolver in turn; the first that answers wins (one that answers LATER: nobody yet). */
export async function resolveOrganisation(
  resolvers: Resolver[],
  clues: VisitClues,
): Promise<ResolvedOrganisation | null> {
  for (const resolver of resolvers) {
    const hint = await resolver.resolve(clues);
    if (hint === LATER) return null;
    if (hint) return { ...hint, source: resolver.name };
  }
  return null;
}
