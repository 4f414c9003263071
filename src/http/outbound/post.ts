import http from 'node:http';
import https from 'node:https';
import { checkedAddress, type Resolver } from './address-guard.js';
import { pinnedLookup } from './pinned.js';

export interface Sent {
  status: number | null;
  error: string;
}

/**
 * POSTs to `url` through the address guard (https and public addresses only, unless
 * `allowPrivate`), connecting to the address that was checked; the lookup counts against
 * `signal`, the attempt's deadline, like the rest of the attempt.
 */
export async function postChecked(
  url: URL,
  body: string,
  headers: Record<string, string>,
  options: { allowPrivate: boolean; resolve?: Resolver; signal: AbortSignal },
): Promise<Sent> {
  try {
    const address = await checkedAddress(url, options);
    return await post(url, body, headers, { address, signal: options.signal });
  } catch (error) {
    return { status: null, error: (error as Error).message };
  }
}

/**
 * POSTs `body` to `url` and settles on the status line: a receiver's body is never read,
 * so it cannot hold the attempt. `signal` is the attempt's deadline (connect, sending and
 * the status line together). The connection goes to `address` (the one the address guard
 * checked, so no second lookup can point elsewhere) on a socket of its own, never pooled,
 * so no socket is reused for another address. Redirects are not followed:
 * a 3xx is an answer like any other non-2xx.
 */
export function post(
  url: URL,
  body: string,
  headers: Record<string, string>,
  options: { address: string; signal: AbortSignal },
): Promise<Sent> {
  const { address, signal } = options;
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve({ status: null, error: reason(signal) });
      return;
    }
    const request = client.request(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': Buffer.byteLength(body), connection: 'close' },
      // A fresh agent for this one request: no keep-alive, no socket shared between targets.
      agent: false,
      lookup: pinnedLookup(address),
    });
    const abort = () => request.destroy(new Error(reason(signal)));
    signal.addEventListener('abort', abort, { once: true });
    request.on('response', (response) => {
      signal.removeEventListener('abort', abort);
      resolve({ status: response.statusCode ?? null, error: '' });
      response.on('error', () => {});
      request.destroy();
    });
    request.on('error', (error) => {
      signal.removeEventListener('abort', abort);
      resolve({ status: null, error: error.message });
    });
    request.end(body);
  });
}

function reason(signal: AbortSignal): string {
  return signal.reason instanceof Error ? signal.reason.message : String(signal.reason);
}
