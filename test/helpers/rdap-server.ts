import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import ipaddr from 'ipaddr.js';

/** An RFC 9083 object as a registry sends it (`ip network` with startAddress/endAddress, or `autnum`). */
export type RdapObject = Record<string, unknown>;

export interface TestRdapServer {
  /** `http://127.0.0.1:PORT/`, for RDAP_URL (ends in `/`). */
  url: string;
  /** Registered networks; `ip/…` answers the most specific one holding what was asked. */
  networks: RdapObject[];
  /** Autnum records by AS number. */
  autnums: Map<number, RdapObject>;
  /** Every path asked, in order (`/ip/192.0.2.7`, `/autnum/64500`). */
  requests: string[];
  /** Paths answered with a redirect to the URL given (a registry sending the question on). */
  redirects: Map<string, string>;
  /** Answers wait this long. */
  delayMs: number;
  /** When set, every question is answered 429 with this Retry-After. */
  retryAfter: string | null;
  /** When set, every answer is this body (junk, a huge document), with status 200. */
  rawBody: string | Buffer | null;
  close(): Promise<void>;
}

const RDAP = 'application/rdap+json';

type Range = { first: bigint; last: bigint; v6: boolean };

function toBigInt(address: string): { value: bigint; v6: boolean } {
  const parsed = ipaddr.parse(address);
  const value = parsed.toByteArray().reduce((sum, byte) => (sum << 8n) | BigInt(byte), 0n);
  return { value, v6: parsed.kind() === 'ipv6' };
}

function rangeOf(record: RdapObject): Range | null {
  const { startAddress, endAddress } = record;
  if (typeof startAddress !== 'string' || typeof endAddress !== 'string') return null;
  const first = toBigInt(startAddress);
  return { first: first.value, last: toBigInt(endAddress).value, v6: first.v6 };
}

/** What `ip/{address}` or `ip/{prefix}/{length}` asks for, as a range. */
function askedRange(path: string): Range | null {
  const asked = decodeURIComponent(path.slice('/ip/'.length));
  try {
    if (asked.includes('/')) {
      const [network, length] = ipaddr.parseCIDR(asked);
      const bits = network.kind() === 'ipv6' ? 128 : 32;
      const first = toBigInt(network.toString());
      const size = 1n << BigInt(bits - length);
      const start = first.value - (first.value % size);
      return { first: start, last: start + size - 1n, v6: first.v6 };
    }
    const address = toBigInt(asked);
    return { first: address.value, last: address.value, v6: address.v6 };
  } catch {
    return null;
  }
}

/** The most specific registered network holding the whole range, as a registry answers. */
function mostSpecific(networks: RdapObject[], wanted: Range): RdapObject | null {
  let best: { record: RdapObject; size: bigint } | null = null;
  for (const record of networks) {
    const range = rangeOf(record);
    if (!range || range.v6 !== wanted.v6) continue;
    if (range.first > wanted.first || range.last < wanted.last) continue;
    const size = range.last - range.first;
    if (!best || size < best.size) best = { record, size };
  }
  return best?.record ?? null;
}

const notFound = (description: string) => ({
  errorCode: 404,
  title: 'Not Found',
  description: [description],
});

/**
 * An RDAP server (RFC 9083 JSON over node:http on loopback) answering `ip/{address}`,
 * `ip/{prefix}/{length}` and `autnum/{asn}` from its records like a registry: the most
 * specific network holding what was asked, 404 otherwise. It counts every request, and can
 * redirect, wait, answer 429 with Retry-After, or send any body.
 */
export async function startRdapServer(
  fixtures: { networks?: RdapObject[]; autnums?: Record<number, RdapObject> } = {},
): Promise<TestRdapServer> {
  const state: TestRdapServer = {
    url: '',
    networks: [...(fixtures.networks ?? [])],
    autnums: new Map(Object.entries(fixtures.autnums ?? {}).map(([asn, o]) => [Number(asn), o])),
    requests: [],
    redirects: new Map(),
    delayMs: 0,
    retryAfter: null,
    rawBody: null,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const answer = (response: http.ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, { 'content-type': RDAP });
    response.end(JSON.stringify(body));
  };
  const server = http.createServer(async (request, response) => {
    const path = new URL(request.url ?? '/', 'http://rdap.test').pathname;
    state.requests.push(path);
    if (state.delayMs > 0) await sleep(state.delayMs);
    const redirect = state.redirects.get(path);
    if (redirect) {
      response.writeHead(301, { location: redirect });
      return response.end();
    }
    if (state.retryAfter !== null) {
      response.writeHead(429, { 'content-type': RDAP, 'retry-after': state.retryAfter });
      return response.end(JSON.stringify({ errorCode: 429, title: 'Too Many Requests' }));
    }
    if (state.rawBody !== null) {
      response.writeHead(200, { 'content-type': RDAP });
      return response.end(state.rawBody);
    }
    if (path.startsWith('/ip/')) {
      const wanted = askedRange(path);
      const record = wanted && mostSpecific(state.networks, wanted);
      if (!record) return answer(response, 404, notFound('No network holds this address.'));
      return answer(
        response,
        200,
        withSelf(record, `${state.url}ip/${record.startAddress}`, state.url),
      );
    }
    const autnum = /^\/autnum\/(\d+)$/.exec(path);
    const record = autnum ? state.autnums.get(Number(autnum[1])) : undefined;
    if (!record) return answer(response, 404, notFound('Not found.'));
    return answer(response, 200, withSelf(record, `${state.url}${path.slice(1)}`, state.url));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return state;
}

/**
 * The conformance header and a `self` link, as every registry adds them; a fixture's link
 * written `{rdap}/ip/…` points at this server.
 */
function withSelf(record: RdapObject, self: string, base: string): RdapObject {
  const links = (Array.isArray(record.links) ? record.links : []).map((link: RdapObject) =>
    typeof link.href === 'string' ? { ...link, href: link.href.replace('{rdap}/', base) } : link,
  );
  return {
    rdapConformance: ['rdap_level_0', 'cidr0'],
    ...record,
    links: [{ rel: 'self', href: self, type: RDAP, value: self }, ...links],
  };
}
