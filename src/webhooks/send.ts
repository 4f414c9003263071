import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

export interface Sent {
  status: number | null;
  error: string;
}

/**
 * POSTs `body` to `url` within `timeoutMs`, connecting to `address` when given (the one the
 * address guard checked, so no second lookup can point elsewhere). Redirects are not
 * followed: a 3xx is an answer like any other non-2xx.
 */
export function post(
  url: URL,
  body: string,
  headers: Record<string, string>,
  options: { address?: string; timeoutMs: number },
): Promise<Sent> {
  const pinned: LookupFunction | undefined = options.address
    ? (_host, lookupOptions, callback) => {
        const address = options.address as string;
        const family = ipaddr.parse(address).kind() === 'ipv6' ? 6 : 4;
        if ((lookupOptions as { all?: boolean }).all) {
          (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(
            null,
            [{ address, family }],
          );
        } else {
          callback(null, address, family);
        }
      }
    : undefined;
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    const request = client.request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
        timeout: options.timeoutMs,
        ...(pinned && { lookup: pinned }),
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode ?? null, error: '' }));
        response.on('error', (error) =>
          resolve({ status: response.statusCode ?? null, error: error.message }),
        );
      },
    );
    request.on('timeout', () =>
      request.destroy(new Error(`no answer within ${options.timeoutMs / 1000} s`)),
    );
    request.on('error', (error) => resolve({ status: null, error: error.message }));
    request.end(body);
  });
}
