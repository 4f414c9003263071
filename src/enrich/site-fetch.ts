import type { IncomingMessage } from 'node:http';
import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { Parser } from 'htmlparser2';
import { getDomain } from 'tldts';
import { abortable } from '../http/outbound/abortable.js';
import {
  addressesOf,
  publicAddressesOf,
  type Resolver,
  UnsafeAddressError,
} from '../http/outbound/address-guard.js';
import { pinnedLookup } from '../http/outbound/pinned.js';

/** A company's homepage as read, or why it could not be. */
export type Homepage = { ok: true; url: string; html: string } | { ok: false; error: string };

export interface HomepageOptions {
  /** ALLOW_PRIVATE_WEBHOOKS: private addresses and pages over plain http are allowed. */
  allowPrivate: boolean;
  /** Names are resolved here (DNS_SERVERS), once per hop; the socket goes to the answer. */
  resolve: Resolver;
  /** The whole read, both schemes and every redirect, must fit in this. */
  deadlineMs?: number;
  maxBytes?: number;
}

export const SITE_DEADLINE_MS = 5_000;
export const SITE_MAX_BYTES = 1024 * 1024;
const MAX_REDIRECTS = 3;
export const USER_AGENT =
  'Mozilla/5.0 (compatible; Footfall/0.1; reads a company homepage for its public profile)';

/** Why a read stopped; `answered` when the site sent an HTTP answer (no point trying http). */
class ReadFailed extends Error {
  constructor(
    message: string,
    readonly answered = false,
  ) {
    super(message);
  }
}

/**
 * Reads `https://{domain}/`, or `http://{domain}/` when https gives no HTTP answer at all
 * (no TLS on the apex is common; its http often redirects to https on `www.`). Redirects
 * stay within the domain's registrable domain, 3 at most; every host passes the address
 * guard and the socket goes to the address checked. Only HTML of at most `maxBytes`
 * (decoded) is taken. Without `allowPrivate`, an http page is only a step to an https one.
 */
export async function fetchHomepage(domain: string, options: HomepageOptions): Promise<Homepage> {
  const deadlineMs = options.deadlineMs ?? SITE_DEADLINE_MS;
  const signal = AbortSignal.timeout(deadlineMs);
  const seconds = `${Math.round(deadlineMs / 100) / 10} s`;
  const errors: string[] = [];
  for (const scheme of ['https', 'http']) {
    try {
      return await follow(new URL(`${scheme}://${domain}/`), domain, options, signal);
    } catch (error) {
      if (signal.aborted) {
        errors.push(`${scheme}: no answer within ${seconds}`);
        break;
      }
      errors.push(`${scheme}: ${reasonOf(error).replace(/\.$/, '')}`);
      if (error instanceof ReadFailed && error.answered) break;
    }
  }
  return { ok: false, error: errors.join('; ') };
}

async function follow(
  start: URL,
  domain: string,
  options: HomepageOptions,
  signal: AbortSignal,
): Promise<Homepage> {
  let url = start;
  for (let hop = 0; ; hop++) {
    const response = await request(url, options, signal);
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (status >= 300 && status < 400 && location) {
      response.destroy();
      if (hop >= MAX_REDIRECTS) throw new ReadFailed(`more than ${MAX_REDIRECTS} redirects`, true);
      url = redirectTarget(url, location, domain);
      continue;
    }
    if (status < 200 || status >= 300) {
      response.destroy();
      throw new ReadFailed(`HTTP ${status}`, true);
    }
    if (url.protocol === 'http:' && !options.allowPrivate) {
      response.destroy();
      throw new ReadFailed('the page is served over plain http only', true);
    }
    const type = String(response.headers['content-type'] ?? '').toLowerCase();
    const mediaType = type.split(';')[0]?.trim() ?? '';
    if (mediaType !== 'text/html' && mediaType !== 'application/xhtml+xml') {
      response.destroy();
      throw new ReadFailed(`not an HTML page (${mediaType.slice(0, 60) || 'no type'})`, true);
    }
    const body = await readBody(response, options.maxBytes ?? SITE_MAX_BYTES, signal);
    return { ok: true, url: url.href, html: decode(body, charsetOf(type)) };
  }
}

/** The redirect's URL, when it stays on http(s) within the domain's registrable domain. */
function redirectTarget(from: URL, location: string, domain: string): URL {
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw new ReadFailed('a redirect to an invalid URL', true);
  }
  if (next.protocol !== 'https:' && next.protocol !== 'http:') {
    throw new ReadFailed(`a redirect to ${next.protocol} refused`, true);
  }
  if (getDomain(next.hostname) !== domain) {
    throw new ReadFailed(
      `a redirect to another domain (${next.hostname.slice(0, 100)}) refused`,
      true,
    );
  }
  return next;
}

/** One GET through the address guard, on its own socket to the address checked. */
async function request(
  url: URL,
  options: HomepageOptions,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  const checking = options.allowPrivate
    ? addressesOf(url, options.resolve)
    : publicAddressesOf(url, options.resolve);
  const [address] = await abortable(checking, signal);
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const outgoing = client.get(url, {
      headers: {
        'user-agent': USER_AGENT,
        accept: 'text/html,application/xhtml+xml;q=0.9',
        'accept-encoding': 'gzip, deflate, br',
        'accept-language': 'en;q=1, *;q=0.5',
        connection: 'close',
      },
      // A fresh agent for this one request: no socket shared with another address.
      agent: false,
      lookup: pinnedLookup(address),
    });
    const abort = () => outgoing.destroy(new Error('deadline'));
    if (signal.aborted) abort();
    signal.addEventListener('abort', abort, { once: true });
    outgoing.on('response', (response) => {
      response.on('close', () => signal.removeEventListener('abort', abort));
      resolve(response);
    });
    outgoing.on('error', (error) => {
      signal.removeEventListener('abort', abort);
      reject(error);
    });
  });
}

/** The body, decompressed, refused as soon as it passes `maxBytes` (announced or not). */
async function readBody(
  response: IncomingMessage,
  maxBytes: number,
  signal: AbortSignal,
): Promise<Buffer> {
  const tooLarge = () =>
    new ReadFailed(`the page is larger than ${Math.round(maxBytes / 1024)} KB`, true);
  const announced = Number(response.headers['content-length']);
  if (Number.isFinite(announced) && announced > maxBytes) {
    response.destroy();
    throw tooLarge();
  }
  const encoding = String(response.headers['content-encoding'] ?? 'identity').toLowerCase();
  const decoders: Record<string, () => Readable> = {
    gzip: () => response.pipe(zlib.createGunzip()),
    'x-gzip': () => response.pipe(zlib.createGunzip()),
    deflate: () => response.pipe(zlib.createInflate()),
    br: () => response.pipe(zlib.createBrotliDecompress()),
    identity: () => response,
  };
  const decoder = decoders[encoding];
  if (!decoder) {
    response.destroy();
    throw new ReadFailed(`an unknown content encoding (${encoding.slice(0, 30)})`, true);
  }
  const stream = decoder();
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) throw tooLarge();
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    if (error instanceof ReadFailed) throw error;
    throw new ReadFailed(`the page could not be read (${reasonOf(error)})`, true);
  } finally {
    response.destroy();
    stream.destroy();
  }
  return Buffer.concat(chunks);
}

function charsetOf(contentType: string): string | null {
  for (const parameter of contentType.split(';').slice(1)) {
    const [key, value] = parameter.split('=').map((part) => part.trim());
    if (key === 'charset' && value) return value.replace(/^"|"$/g, '');
  }
  return null;
}

/** The page as text: the header's charset, else a `<meta>` one in its first 4 KB, else UTF-8. */
function decode(body: Buffer, declared: string | null): string {
  const label = declared ?? metaCharset(body.subarray(0, 4096).toString('latin1'));
  try {
    return new TextDecoder(label ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

function metaCharset(head: string): string | null {
  let found: string | null = null;
  const parser = new Parser({
    onopentag(name, attributes) {
      if (found || name !== 'meta') return;
      if (attributes.charset) found = attributes.charset.trim();
      else if (attributes['http-equiv']?.toLowerCase() === 'content-type')
        found = charsetOf(String(attributes.content ?? '').toLowerCase());
    },
  });
  parser.end(head);
  return found;
}

const NETWORK_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  EPROTO: 'TLS handshake failed',
  HPE_INVALID_CONSTANT: 'not an HTTP answer',
};

/**
 * A short reason that names no address: Node's own messages carry the address connected
 * to (`connect ECONNREFUSED 10.0.0.5:443`), which must not reach the database or output.
 */
function reasonOf(error: unknown): string {
  if (error instanceof ReadFailed || error instanceof UnsafeAddressError) return error.message;
  const code = (error as NodeJS.ErrnoException).code ?? '';
  if (NETWORK_ERRORS[code]) return NETWORK_ERRORS[code];
  if (/CERT|SSL|TLS|SIGNATURE|ISSUER/.test(code)) return `TLS certificate refused (${code})`;
  if (code.startsWith('HPE_')) return 'not a valid HTTP answer';
  return code ? `request failed (${code})` : 'request failed';
}
