import type { IncomingHttpHeaders } from 'node:http';
import http from 'node:http';
import https from 'node:https';
import { checkedAddress, type Resolver } from './address-guard.js';
import { pinnedLookup } from './pinned.js';

/** An HTTP answer read whole (up to the caller's limit). */
export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface RequestOptions {
  /** ALLOW_PRIVATE_WEBHOOKS: plain http and private addresses allowed (tests, stand-ins). */
  allowPrivate: boolean;
  resolve?: Resolver;
  /** The deadline of the whole request: lookup, connect, sending and reading. */
  signal: AbortSignal;
  /** An answer longer than this is an error, not a truncated body. */
  maxBytes: number;
}

/**
 * One request to an API through the address guard (https and public addresses only,
 * unless `allowPrivate`), on a socket of its own pinned to the address that was checked;
 * the answer is read whole, within `signal` and `maxBytes`. Redirects are not followed.
 * Throws when no answer came (refused address, network, deadline, oversized answer).
 */
export async function requestChecked(
  url: URL,
  init: { method: string; headers: Record<string, string>; body?: string },
  options: RequestOptions,
): Promise<Answer> {
  const address = await checkedAddress(url, options);
  return send(url, init, address, options);
}

function send(
  url: URL,
  init: { method: string; headers: Record<string, string>; body?: string },
  address: string,
  { signal, maxBytes }: RequestOptions,
): Promise<Answer> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Error(reason(signal)));
    const headers: Record<string, string | number> = { ...init.headers, connection: 'close' };
    if (init.body !== undefined) headers['content-length'] = Buffer.byteLength(init.body);
    const request = client.request(url, {
      method: init.method,
      headers,
      // No keep-alive and no pool: no socket is shared between targets.
      agent: false,
      lookup: pinnedLookup(address),
    });
    const abort = () => request.destroy(new Error(reason(signal)));
    signal.addEventListener('abort', abort, { once: true });
    const settle = () => signal.removeEventListener('abort', abort);
    request.on('error', (error) => {
      settle();
      reject(error);
    });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) {
          request.destroy(new Error(`The answer is longer than ${maxBytes} bytes.`));
          return;
        }
        chunks.push(chunk);
      });
      response.on('error', (error) => {
        settle();
        reject(error);
      });
      response.on('end', () => {
        settle();
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
      });
    });
    request.end(init.body);
  });
}

function reason(signal: AbortSignal): string {
  return signal.reason instanceof Error ? signal.reason.message : String(signal.reason);
}
