import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * A `lookup` for node:http(s) that answers `address` whatever the name: the request then
 * connects to the address the address guard checked, and no second lookup (DNS rebinding)
 * can point it elsewhere. The URL keeps its name, so TLS still checks the certificate for it.
 */
export function pinnedLookup(address: string): LookupFunction {
  const family = ipaddr.parse(address).kind() === 'ipv6' ? 6 : 4;
  return (_host, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all) {
      (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
        { address, family },
      ]);
    } else {
      callback(null, address, family);
    }
  };
}
