import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

export type Site = (request: IncomingMessage, response: ServerResponse) => void;

export interface Homepages {
  /** Every request, as `host path` (the Host header without a port), in order. */
  requests: string[];
  /** What each host answers; a host not here answers 404. Tests may change it. */
  sites: Record<string, Site>;
  /** Requests to this host so far. */
  count(host: string): number;
  close(): Promise<void>;
}

/**
 * Company homepages over plain HTTP on `address` port 80 (tests run as root), one server
 * for many hosts told apart by the Host header, as a shared web host is. Counts requests.
 */
export async function startHomepages(
  address: string,
  sites: Record<string, Site> = {},
): Promise<Homepages> {
  const state: Homepages = {
    requests: [],
    sites,
    count: (host) => state.requests.filter((r) => r.startsWith(`${host} `)).length,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = createServer((request, response) => {
    const host = (request.headers.host ?? '').replace(/:\d+$/, '');
    state.requests.push(`${host} ${request.url}`);
    const site = state.sites[host];
    if (site) site(request, response);
    else response.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(80, address, resolve);
  });
  return state;
}

/** A site answering this HTML for every path. */
export const html =
  (body: string, headers: Record<string, string> = {}): Site =>
  (_request, response) =>
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...headers }).end(body);

/** A site redirecting every request to `location`. */
export const redirect =
  (location: string, status = 301): Site =>
  (_request, response) =>
    response.writeHead(status, { location }).end();

/** A homepage fixture of test/enrich/homepages/. */
export const fixture = (name: string) =>
  readFile(new URL(`../enrich/homepages/${name}`, import.meta.url), 'utf8');
