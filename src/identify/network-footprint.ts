import type { GeoLocator } from './geo.js';
import { ipv4Text, type NetworkTable } from './network-table.js';

/**
 * Where a network's addresses geolocate: nowhere known, one place (city and country), or
 * spread over several (a second place seen; the walk stops there).
 */
export type Footprint =
  | { places: 0 }
  | { places: 1; city: string; country: string }
  | { places: 2; city: string; country: string; second: string };

// Upper bound on block lookups for one network (a /16 in /24 blocks is 256): past it the
// places seen so far stand.
const MAX_BLOCKS = 4096;

/**
 * The network's footprint in the city data: its IPv4 ranges block by block, then the
 * first address of each IPv6 range. A company, university or agency sits in one place; a
 * carrier or hoster spreads, which usually shows within the first few blocks.
 */
export function footprintOf(table: NetworkTable, network: number, geo: GeoLocator): Footprint {
  let first: { city: string; country: string } | null = null;
  let blocks = 0;
  // True when this place differs from the first: the walk is over.
  const seen = (city: string, country: string): boolean => {
    if (!country) return false;
    if (!first) {
      first = { city, country };
      return false;
    }
    return first.city !== city || first.country !== country;
  };
  const spread = (city: string, country: string): Footprint => {
    const at = first as { city: string; country: string };
    return { places: 2, ...at, second: [city, country].filter(Boolean).join(', ') };
  };
  for (const [start, end] of table.ipv4Ranges(network)) {
    let ip = start;
    while (ip <= end && blocks < MAX_BLOCKS) {
      const { location, prefixLength } = geo.locateBlock(ipv4Text(ip));
      blocks++;
      if (location && seen(location.city, location.country)) {
        return spread(location.city, location.country);
      }
      const size = 2 ** (32 - prefixLength);
      ip = Math.floor(ip / size) * size + size;
    }
  }
  for (const ip of table.ipv6RangeStarts(network)) {
    if (blocks++ >= MAX_BLOCKS) break;
    const { location } = geo.locateBlock(ip);
    if (location && seen(location.city, location.country)) {
      return spread(location.city, location.country);
    }
  }
  const only = first as { city: string; country: string } | null;
  return only ? { places: 1, ...only } : { places: 0 };
}
