import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchHomepage, type HomepageOptions, USER_AGENT } from '../../src/enrich/site-fetch.js';
import { configuredDns } from '../../src/http/outbound/dns.js';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.js';
import { type Homepages, html, redirect, startHomepages } from '../helpers/homepages.js';

// The homepages live on 127.0.0.61 port 80; the test's DNS server names them. Nothing else
// on the machine is reached: 127.0.0.63 has no server (connections are refused).
const SITES = '127.0.0.61';
const NOBODY = '127.0.0.63';
const HOSTS = [
  'acme-pumpen.de',
  'www.acme-pumpen.de',
  'hooli.example',
  'other-company.example',
  'loop.example',
  'www.loop.example',
  'big.example',
  'bigger.example',
  'slow.example',
  'feed.example',
  'zipped.example',
  'latin.example',
];
const PAGE = '<!doctype html><title>Acme Pumpen GmbH</title>';
const FIVE_MB = 5 * 1024 * 1024;

let dns: TestDnsServer;
let sites: Homepages;
let options: HomepageOptions;
// Whether the server got to write the whole of its big answers (it should not).
const finished: Record<string, boolean> = {};

/** A page of `size` bytes, announced with Content-Length or sent in chunks without it. */
const bigPage =
  (name: string, announced: boolean) =>
  (_request: unknown, response: import('node:http').ServerResponse) => {
    finished[name] = false;
    response.writeHead(200, {
      'content-type': 'text/html',
      ...(announced && { 'content-length': String(FIVE_MB) }),
    });
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let sent = 0;
    const more = () => {
      while (sent < FIVE_MB) {
        sent += chunk.length;
        if (!response.write(chunk)) return void response.once('drain', more);
      }
      response.end(() => {
        finished[name] = true;
      });
    };
    response.on('error', () => {});
    more();
  };

beforeAll(async () => {
  dns = await startDnsServer({
    addresses: {
      ...Object.fromEntries(HOSTS.map((host) => [host, [SITES]])),
      'refused.example': [NOBODY],
    },
  });
  sites = await startHomepages(SITES, {
    'acme-pumpen.de': redirect('http://www.acme-pumpen.de/'),
    'www.acme-pumpen.de': html(PAGE),
    'hooli.example': redirect('http://other-company.example/welcome', 302),
    'other-company.example': html('<title>Other</title>'),
    'loop.example': redirect('http://www.loop.example/1'),
    'www.loop.example': (request, response) => {
      const n = Number(request.url?.slice(1)) || 0;
      response.writeHead(302, { location: `/${n + 1}` }).end();
    },
    'big.example': bigPage('big.example', true),
    'bigger.example': bigPage('bigger.example', false),
    'slow.example': (_request, response) => {
      // Headers at once, then a byte a second: a page that never quite ends.
      response.writeHead(200, { 'content-type': 'text/html' });
      const timer = setInterval(() => response.write('<p>'), 1_000);
      response.on('close', () => clearInterval(timer));
    },
    'feed.example': (_request, response) =>
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"name":"Feed"}'),
    'zipped.example': (_request, response) =>
      response
        .writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' })
        .end(gzipSync('<title>Zipped AG</title>')),
    'latin.example': (_request, response) =>
      response
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          Buffer.from(
            '<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"><title>Müller Söhne</title>',
            'latin1',
          ),
        ),
  });
  options = {
    allowPrivate: true,
    resolve: configuredDns({ dnsServers: [dns.server] }).resolver,
  };
});
afterAll(async () => {
  await sites.close();
  await dns.close();
});

describe('reading a company homepage', () => {
  it('tries https, then http, and follows a redirect within the domain (www.)', async () => {
    const page = await fetchHomepage('acme-pumpen.de', options);
    expect(page).toEqual({ ok: true, url: 'http://www.acme-pumpen.de/', html: PAGE });
    // https found no server on port 443; http redirected to www.
    expect(sites.requests.filter((r) => r.includes('acme-pumpen.de'))).toEqual([
      'acme-pumpen.de /',
      'www.acme-pumpen.de /',
    ]);
  });

  it('names itself with a User-Agent that says Footfall', async () => {
    let seen = '';
    sites.sites['www.acme-pumpen.de'] = (request, response) => {
      seen = request.headers['user-agent'] ?? '';
      html(PAGE)(request, response);
    };
    await fetchHomepage('acme-pumpen.de', options);
    expect(seen).toBe(USER_AGENT);
    expect(seen).toContain('Footfall');
  });

  it('refuses a redirect to another domain, and never asks it', async () => {
    const page = await fetchHomepage('hooli.example', options);
    expect(page).toEqual({
      ok: false,
      error: expect.stringContaining(
        'a redirect to another domain (other-company.example) refused',
      ),
    });
    expect(sites.count('other-company.example')).toBe(0);
  });

  it('follows 3 redirects at most', async () => {
    const page = await fetchHomepage('loop.example', options);
    expect(page).toEqual({ ok: false, error: expect.stringContaining('more than 3 redirects') });
    expect(sites.count('loop.example') + sites.count('www.loop.example')).toBe(4);
  });

  it('refuses a 5 MB page that says so, without reading it', async () => {
    const page = await fetchHomepage('big.example', options);
    expect(page).toEqual({
      ok: false,
      error: expect.stringContaining('the page is larger than 1024 KB'),
    });
    expect(finished['big.example']).toBe(false);
  });

  it('refuses a 5 MB page sent without Content-Length, once 1 MB has come', async () => {
    const page = await fetchHomepage('bigger.example', options);
    expect(page).toEqual({
      ok: false,
      error: expect.stringContaining('the page is larger than 1024 KB'),
    });
    expect(finished['bigger.example']).toBe(false);
  });

  it('cuts a slow site at the 5 s deadline, the whole read included', async () => {
    const started = performance.now();
    const page = await fetchHomepage('slow.example', options);
    const seconds = (performance.now() - started) / 1000;
    expect(page).toEqual({
      ok: false,
      error: 'https: connection refused; http: no answer within 5 s',
    });
    expect(seconds).toBeGreaterThan(4.9);
    expect(seconds).toBeLessThan(6.5);
  });

  it('takes HTML only', async () => {
    const page = await fetchHomepage('feed.example', options);
    expect(page).toEqual({
      ok: false,
      error: expect.stringContaining('not an HTML page (application/json)'),
    });
  });

  it('reads compressed pages and pages in a declared older charset', async () => {
    expect(await fetchHomepage('zipped.example', options)).toMatchObject({
      ok: true,
      html: '<title>Zipped AG</title>',
    });
    const latin = await fetchHomepage('latin.example', options);
    expect(latin.ok && latin.html).toContain('<title>Müller Söhne</title>');
  });

  it('says why it failed without naming the address it connected to', async () => {
    const page = await fetchHomepage('refused.example', options);
    expect(page).toEqual({
      ok: false,
      error: 'https: connection refused; http: connection refused',
    });
    expect(JSON.stringify(page)).not.toContain(NOBODY);
  });

  it('asks nobody at a private address unless ALLOW_PRIVATE_WEBHOOKS allows it', async () => {
    const before = sites.requests.length;
    const page = await fetchHomepage('acme-pumpen.de', { ...options, allowPrivate: false });
    expect(page).toEqual({
      ok: false,
      error:
        'https: The host acme-pumpen.de resolves to a non-public address; http: The host acme-pumpen.de resolves to a non-public address',
    });
    expect(sites.requests.length).toBe(before);
  });
});
