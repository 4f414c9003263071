import http from 'node:http';
import https from 'node:https';
import ipaddr from 'ipaddr.js';
import type { Config } from '../config.js';
import { checkedAddress, type Resolver } from '../http/outbound/address-guard.js';
import { configuredDns } from '../http/outbound/dns.js';
import { pinnedLookup } from '../http/outbound/pinned.js';
import asnBootstrap from './data/asn.json' with { type: 'json' };
import ipv4Bootstrap from './data/ipv4.json' with { type: 'json' };
import ipv6Bootstrap from './data/ipv6.json' with { type: 'json' };
import {
  type RdapAutnum,
  RdapError,
  type RdapNetwork,
  readAutnum,
  readNetwork,
} from './rdap-record.js';

export type { RdapAutnum, RdapEntity, RdapNetwork, RdapRemark } from './rdap-record.js';
export { RdapError } from './rdap-record.js';

export interface RdapOptions {
  /** One base URL for every question (RDAP_URL, ending in `/`); null: IANA's bootstrap data. */
  rdapUrl: string | null;
  /** Plain http and private addresses allowed (ALLOW_PRIVATE_WEBHOOKS, for tests). */
  allowPrivate: boolean;
  /** How names of RDAP servers are resolved (DNS_SERVERS or the system's). */
  resolve: Resolver;
  /** Deadline of one question, redirects included. */
  timeoutMs?: number;
  /** Largest answer read. */
  maxBytes?: number;
}

export interface RdapClient {
  /** The URL that asks for the most specific network holding `address`, or null when no registry serves it. */
  networkUrl(address: string): string | null;
  /** The URL that asks for the autonomous system `asn`, or null. */
  autnumUrl(asn: number): string | null;
  /**
   * The network record at `url` (from networkUrl or parentOf); null when the registry has
   * none (404). `abort` ends the question early (the caller's own deadline).
   */
  network(url: string, abort?: AbortSignal): Promise<RdapNetwork | null>;
  /** The autnum record at `url`; null when the registry has none (404). */
  autnum(url: string, abort?: AbortSignal): Promise<RdapAutnum | null>;
}

const TIMEOUT_MS = 5_000;
const MAX_BYTES = 512 * 1024;
const MAX_REDIRECTS = 3;

/** The RDAP client of contract §16 with the server's settings. */
export function configuredRdap(
  config: Pick<Config, 'rdapUrl' | 'allowPrivateWebhooks' | 'dnsServers'>,
): RdapClient {
  return rdapClient({
    rdapUrl: config.rdapUrl,
    allowPrivate: config.allowPrivateWebhooks,
    resolve: configuredDns(config).resolver,
  });
}

export function rdapClient(options: RdapOptions): RdapClient {
  const get = (url: string, abort?: AbortSignal) => getJson(url, options, abort);
  return {
    networkUrl: (address) => {
      const base = options.rdapUrl ?? registryForAddress(address);
      if (!base || !ipaddr.isValid(address)) return null;
      return `${base}ip/${ipaddr.process(address).toString()}`;
    },
    autnumUrl: (asn) => {
      const base = options.rdapUrl ?? registryForAsn(asn);
      return base ? `${base}autnum/${asn}` : null;
    },
    network: async (url, abort) => {
      const answer = await get(url, abort);
      return answer && readNetwork(answer.body, answer.url, hostOf(url));
    },
    autnum: async (url, abort) => {
      const answer = await get(url, abort);
      return answer && readAutnum(answer.body, answer.url, hostOf(url));
    },
  };
}

const hostOf = (url: string): string => {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
};

// IANA's bootstrap data (RFC 9224): which registry serves which addresses and AS numbers.
type Service = [string[], string[]];
const preferHttps = (urls: string[]): string | undefined =>
  urls.find((url) => url.startsWith('https:')) ?? urls[0];

const ipServices = [ipv4Bootstrap, ipv6Bootstrap].flatMap((file) =>
  (file.services as Service[]).flatMap(([ranges, urls]) =>
    ranges.map((range) => ({ range: ipaddr.parseCIDR(range), base: preferHttps(urls) })),
  ),
);

/** The RDAP base URL of the registry holding `address`: the longest matching prefix. */
export function registryForAddress(address: string): string | null {
  if (!ipaddr.isValid(address)) return null;
  const parsed = ipaddr.process(address);
  let best: { length: number; base: string | undefined } | null = null;
  for (const { range, base } of ipServices) {
    if (range[0].kind() !== parsed.kind() || !parsed.match(range)) continue;
    if (!best || range[1] > best.length) best = { length: range[1], base };
  }
  return best?.base ?? null;
}

const asnServices = (asnBootstrap.services as Service[]).flatMap(([ranges, urls]) =>
  ranges.map((range) => {
    const [from = '', to = from] = range.split('-');
    return { from: Number(from), to: Number(to), base: preferHttps(urls) };
  }),
);

/** The RDAP base URL of the registry that assigned AS number `asn`. */
export function registryForAsn(asn: number): string | null {
  return asnServices.find(({ from, to }) => asn >= from && asn <= to)?.base ?? null;
}

/**
 * GETs RDAP JSON from `url`, following up to three redirects (registries send each other's
 * questions on), every hop through the address guard and connected to the address it
 * checked; one deadline for the whole question. Null on 404.
 */
async function getJson(
  url: string,
  options: RdapOptions,
  abort?: AbortSignal,
): Promise<{ body: unknown; url: string } | null> {
  const deadline = AbortSignal.timeout(options.timeoutMs ?? TIMEOUT_MS);
  const signal = abort ? AbortSignal.any([deadline, abort]) : deadline;
  let current = url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const target = parseUrl(current);
    const address = await guarded(target, options, signal);
    const answer = await request(target, address, options.maxBytes ?? MAX_BYTES, signal);
    if (answer.location !== null) {
      current = new URL(answer.location, target).toString();
      continue;
    }
    if (answer.status === 404) return null;
    if (answer.status === 429) {
      throw new RdapError(
        'The registry asks to slow down (429).',
        target.host,
        429,
        answer.retryAfterMs,
      );
    }
    if (answer.status < 200 || answer.status >= 300) {
      throw new RdapError(`The registry answered ${answer.status}.`, target.host, answer.status);
    }
    try {
      return { body: JSON.parse(answer.body.toString('utf8')), url: current };
    } catch {
      throw new RdapError('The registry answered with something other than JSON.', target.host);
    }
  }
  throw new RdapError(`More than ${MAX_REDIRECTS} redirects.`, hostOf(url));
}

function parseUrl(text: string): URL {
  try {
    const url = new URL(text);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url;
  } catch {}
  throw new RdapError('Not an http(s) URL.', hostOf(text));
}

/** The checked address to connect to: https and public only, unless private is allowed. */
async function guarded(url: URL, options: RdapOptions, signal: AbortSignal): Promise<string> {
  try {
    return await checkedAddress(url, { ...options, signal }).catch((error) => {
      throw signal.aborted ? new Error('The registry did not answer in time.') : error;
    });
  } catch (error) {
    if (error instanceof RdapError) throw error;
    throw new RdapError((error as Error).message, url.host);
  }
}

interface Answer {
  status: number;
  location: string | null;
  retryAfterMs: number | null;
  body: Buffer;
}

/** One GET to `address`, on a socket of its own, read up to `maxBytes`. */
function request(
  url: URL,
  address: string,
  maxBytes: number,
  signal: AbortSignal,
): Promise<Answer> {
  const client = url.protocol === 'https:' ? https : http;
  const fail = (message: string) => new RdapError(message, url.host);
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(fail('The registry did not answer in time.'));
    const outgoing = client.request(url, {
      method: 'GET',
      headers: {
        accept: 'application/rdap+json, application/json;q=0.9',
        'user-agent': 'Footfall RDAP client',
        connection: 'close',
      },
      agent: false,
      lookup: pinnedLookup(address),
    });
    const abort = () => outgoing.destroy(fail('The registry did not answer in time.'));
    signal.addEventListener('abort', abort, { once: true });
    const settle = () => signal.removeEventListener('abort', abort);
    outgoing.on('error', (error) => {
      settle();
      reject(error instanceof RdapError ? error : fail(error.message));
    });
    outgoing.on('response', (response) => {
      const status = response.statusCode ?? 0;
      const location = status >= 300 && status < 400 ? (response.headers.location ?? null) : null;
      const retryAfterMs = retryAfter(response.headers['retry-after']);
      if (location !== null || status === 404 || status === 429) {
        settle();
        response.resume();
        outgoing.destroy();
        return resolve({ status, location, retryAfterMs, body: Buffer.alloc(0) });
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) {
          outgoing.destroy(fail(`The answer is larger than ${maxBytes} bytes.`));
          return;
        }
        chunks.push(chunk);
      });
      response.on('end', () => {
        settle();
        resolve({ status, location: null, retryAfterMs, body: Buffer.concat(chunks) });
      });
      response.on('error', (error) => {
        settle();
        reject(error instanceof RdapError ? error : fail(error.message));
      });
    });
    outgoing.end();
  });
}

/** `Retry-After` in milliseconds: seconds, or an HTTP date; null when absent or unreadable. */
function retryAfter(header: string | undefined): number | null {
  if (!header) return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}
