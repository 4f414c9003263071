import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type RdapClient,
  RdapError,
  rdapClient,
  registryForAddress,
  registryForAsn,
} from '../../src/enrich/rdap.js';
import { readNetwork } from '../../src/enrich/rdap-record.js';
import {
  autnumDomain,
  parentOf,
  type RegistrationContext,
  registrationSignal,
} from '../../src/enrich/registration.js';
import { systemResolver } from '../../src/http/outbound/address-guard.js';
import { allNetworks, arin, autnums, ripe } from '../helpers/rdap-fixtures.js';
import { startRdapServer, type TestRdapServer } from '../helpers/rdap-server.js';

describe('registration data (RDAP) of the visitor network', () => {
  let registry: TestRdapServer;
  let rdap: RdapClient;
  beforeAll(async () => {
    registry = await startRdapServer({
      networks: allNetworks,
      autnums: { 64500: autnums.isp, 64501: autnums.enterprise },
    });
    rdap = rdapClient({ rdapUrl: registry.url, allowPrivate: true, resolve: systemResolver });
  });
  afterAll(() => registry.close());

  /** Asks the registry as the lookup queue does: the network, then its parent when it names someone. */
  async function judge(address: string, context: RegistrationContext = {}) {
    const url = rdap.networkUrl(address);
    const record = url && (await rdap.network(url));
    if (!record) throw new Error(`no record for ${address}`);
    const first = registrationSignal(record, context);
    if (first.verdict !== 'organisation' && first.verdict !== 'weak') return first;
    const parent = parentOf(record);
    return registrationSignal(record, {
      ...context,
      parent: parent && (await rdap.network(parent.url)),
    });
  }

  it('names the business an ISP sub-assigned a network to, by its own e-mail domain', async () => {
    registry.requests.length = 0;
    expect(await judge('192.0.2.7')).toEqual({
      signal: 'registration',
      value: 'ACME-NET (ACME GmbH)',
      verdict: 'organisation',
      domain: 'acme-gmbh.de',
      name: 'ACME GmbH',
    });
    // The record, then the allocation above it (the /26 holding the /27 belongs to no one else).
    expect(registry.requests).toEqual(['/ip/192.0.2.7', '/ip/192.0.2.0/26']);
  });

  it('names an ARIN-style reassignment to a business, following its up link', async () => {
    registry.requests.length = 0;
    expect(await judge('198.51.100.9')).toMatchObject({
      value: 'GLOBEX-CORP-1 (Globex Corporation)',
      verdict: 'organisation',
      domain: 'globex-corp.com',
      name: 'Globex Corporation',
    });
    expect(registry.requests).toEqual(['/ip/198.51.100.9', '/ip/198.51.100.0/24']);
  });

  it('names the business on its IPv6 assignment too', async () => {
    expect(await judge('2001:db8:ac3e::25')).toMatchObject({
      verdict: 'organisation',
      domain: 'acme-gmbh.de',
    });
  });

  it('calls a customer pool the provider, whoever it names', async () => {
    expect(await judge('192.0.2.70')).toEqual({
      signal: 'registration',
      value: 'EXAMPLE-ISP-DIAL (Example ISP GmbH)',
      verdict: 'provider',
    });
  });

  it('calls a block the provider reassigned to itself the provider once the parent shows it', async () => {
    const record = await rdap.network(rdap.networkUrl('198.51.100.130') ?? '');
    if (!record) throw new Error('no record');
    // Alone, the block reads like a customer's; its parent is held by the same organisation.
    expect(registrationSignal(record).verdict).toBe('organisation');
    expect(await judge('198.51.100.130')).toMatchObject({ verdict: 'provider' });
    // The network owner's name tells the same without the parent.
    expect(
      registrationSignal(record, { asnName: 'EXAMPLE-NETWORKS', networkKind: 'isp' }),
    ).toMatchObject({
      verdict: 'provider',
    });
  });

  it("calls a hoster's virtual-server assignment the provider", async () => {
    expect(await judge('203.0.113.20')).toMatchObject({ verdict: 'provider' });
    expect(await judge('203.0.113.200')).toMatchObject({ verdict: 'provider' });
  });

  it('keeps private persons private: verdict person, and their name nowhere in the signal', async () => {
    for (const address of ['192.0.2.130', '198.51.100.66']) {
      const signal = await judge(address);
      expect(signal).toEqual({
        signal: 'registration',
        value: 'private person',
        verdict: 'person',
      });
    }
    // The provider's organisation as registrant, the customer named in the description.
    const line = await rdap.network(rdap.networkUrl('192.0.2.130') ?? '');
    if (!line) throw new Error('no record');
    const isp = ripe.allocation.entities as unknown[];
    line.entities = readNetwork({ objectClassName: 'ip network', entities: isp }, '', '').entities;
    expect(registrationSignal(line)).toEqual({
      signal: 'registration',
      value: 'private person',
      verdict: 'person',
    });
    // A person's name in the description, however written, without a jCard saying so.
    for (const description of ['Anna Maria Rossi', 'MAX MUSTERMANN', 'Jean-Luc Martin']) {
      const record = await rdap.network(rdap.networkUrl('192.0.2.130') ?? '');
      if (!record) throw new Error('no record');
      record.entities = [];
      record.remarks = [{ title: null, description: [description] }];
      expect(registrationSignal(record)).toMatchObject({
        verdict: 'person',
        value: 'private person',
      });
    }
  });

  it('half-names a business whose only contact is free-mail (weak, no domain)', async () => {
    expect(await judge('192.0.2.161')).toEqual({
      signal: 'registration',
      value: 'WIDGET-WORKS (Widget Works Ltd)',
      verdict: 'weak',
      name: 'Widget Works Ltd',
    });
  });

  it("never takes the provider's domain for the customer's", async () => {
    const record = await rdap.network(rdap.networkUrl('192.0.2.7') ?? '');
    if (!record) throw new Error('no record');
    // The customer's registrant names the provider's domain: nothing of the customer's is left.
    const registrant = record.entities.find((entity) => entity.handle === 'ORG-AG42-RIPE');
    if (!registrant) throw new Error('no registrant');
    const saved = registrant.emails;
    registrant.emails = ['hostmaster@example-isp.de'];
    const jane = record.entities.find((entity) => entity.handle === 'JR1234-RIPE');
    if (jane) jane.emails = [];
    try {
      expect(registrationSignal(record, { providerDomains: ['example-isp.de'] }).verdict).toBe(
        'provider',
      );
    } finally {
      registrant.emails = saved;
    }
  });

  it("leaves out contacts at the provider's domain once the parent shows whose they are", async () => {
    const record = await rdap.network(rdap.networkUrl('192.0.2.180') ?? '');
    if (!record) throw new Error('no record');
    // Alone, the record cannot tell the ISP's NOC from the customer's own.
    expect(registrationSignal(record)).toMatchObject({ domain: 'example-isp.de' });
    expect(await judge('192.0.2.180')).toEqual({
      signal: 'registration',
      value: 'INITECH-NET (Initech AG)',
      verdict: 'weak',
      name: 'Initech AG',
    });
    // As does the provider's domain the caller knows from the network owner.
    expect(registrationSignal(record, { providerDomains: ['example-isp.de'] })).toMatchObject({
      verdict: 'weak',
      name: 'Initech AG',
    });
  });

  it('finds the network owner by its autnum: registrant and contacts, abuse desks last, registries never', async () => {
    const isp = await rdap.autnum(rdap.autnumUrl(64500) ?? '');
    const enterprise = await rdap.autnum(rdap.autnumUrl(64501) ?? '');
    if (!isp || !enterprise) throw new Error('no autnum');
    expect(autnumDomain(isp)).toEqual({ domain: 'example-isp.de', name: 'Example ISP GmbH' });
    // hostmaster@ripe.net is the registry's, acme.noc@gmail.com free-mail: the abuse contact is left.
    expect(autnumDomain(enterprise)).toEqual({ domain: 'acme-gmbh.de', name: 'ACME GmbH' });
  });

  it('answers null for an address no registry holds', async () => {
    expect(await rdap.network(rdap.networkUrl('192.168.1.1') ?? '')).toBeNull();
  });
});

describe('RDAP client', () => {
  it("asks the registry IANA's bootstrap data names, and RDAP_URL when set", () => {
    expect(registryForAddress('193.0.6.139')).toBe('https://rdap.db.ripe.net/');
    expect(registryForAddress('8.8.8.8')).toBe('https://rdap.arin.net/registry/');
    expect(registryForAddress('2001:4200::1')).toBe('https://rdap.afrinic.net/rdap/');
    expect(registryForAddress('2800:1::1')).toBe('https://rdap.lacnic.net/rdap/');
    expect(registryForAsn(3320)).toBe('https://rdap.db.ripe.net/');
    expect(registryForAsn(7018)).toBe('https://rdap.arin.net/registry/');
    expect(registryForAsn(4_294_967_000)).toBeNull();
    const bootstrap = rdapClient({ rdapUrl: null, allowPrivate: false, resolve: systemResolver });
    expect(bootstrap.networkUrl('193.0.6.139')).toBe('https://rdap.db.ripe.net/ip/193.0.6.139');
    expect(bootstrap.autnumUrl(3320)).toBe('https://rdap.db.ripe.net/autnum/3320');
    const local = rdapClient({
      rdapUrl: 'http://rdap.internal/',
      allowPrivate: true,
      resolve: systemResolver,
    });
    expect(local.networkUrl('2001:0db8::7')).toBe('http://rdap.internal/ip/2001:db8::7');
  });

  it('follows redirects between registries, at most three', async () => {
    const arinLike = await startRdapServer();
    const ripeLike = await startRdapServer({ networks: [ripe.acme, ripe.allocation] });
    try {
      arinLike.redirects.set('/ip/192.0.2.7', `${ripeLike.url}ip/192.0.2.7`);
      const client = rdapClient({
        rdapUrl: arinLike.url,
        allowPrivate: true,
        resolve: systemResolver,
      });
      const record = await client.network(client.networkUrl('192.0.2.7') ?? '');
      expect(record).toMatchObject({ name: 'ACME-NET', url: `${ripeLike.url}ip/192.0.2.7` });
      expect(arinLike.requests).toEqual(['/ip/192.0.2.7']);
      expect(ripeLike.requests).toEqual(['/ip/192.0.2.7']);

      // A loop: four hops are refused, and the loop is not followed further.
      arinLike.redirects.set('/ip/192.0.2.8', `${arinLike.url}ip/192.0.2.8`);
      arinLike.requests.length = 0;
      await expect(client.network(`${arinLike.url}ip/192.0.2.8`)).rejects.toThrow(/redirects/);
      expect(arinLike.requests).toHaveLength(4);
    } finally {
      await arinLike.close();
      await ripeLike.close();
    }
  });

  it('passes a 429 on with its Retry-After and host, so the caller backs off', async () => {
    const registry = await startRdapServer({ networks: [arin.globex] });
    try {
      registry.retryAfter = '120';
      const client = rdapClient({
        rdapUrl: registry.url,
        allowPrivate: true,
        resolve: systemResolver,
      });
      const error = await client.network(`${registry.url}ip/198.51.100.9`).catch((e) => e);
      expect(error).toBeInstanceOf(RdapError);
      expect(error).toMatchObject({
        status: 429,
        retryAfterMs: 120_000,
        host: new URL(registry.url).host,
      });
    } finally {
      await registry.close();
    }
  });

  it('gives up on a slow registry at its deadline', async () => {
    const registry = await startRdapServer({ networks: [arin.globex] });
    try {
      registry.delayMs = 3_000;
      const client = rdapClient({
        rdapUrl: registry.url,
        allowPrivate: true,
        resolve: systemResolver,
        timeoutMs: 300,
      });
      const started = performance.now();
      await expect(client.network(`${registry.url}ip/198.51.100.9`)).rejects.toThrow(/in time/);
      expect(performance.now() - started).toBeLessThan(1_500);
      // The caller's own deadline ends it earlier.
      const patient = rdapClient({
        rdapUrl: registry.url,
        allowPrivate: true,
        resolve: systemResolver,
      });
      const early = performance.now();
      await expect(
        patient.network(`${registry.url}ip/198.51.100.9`, AbortSignal.timeout(200)),
      ).rejects.toBeInstanceOf(RdapError);
      expect(performance.now() - early).toBeLessThan(1_500);
    } finally {
      await registry.close();
    }
  });

  it('refuses junk, answers of another kind and answers beyond the size limit with a clear error', async () => {
    const registry = await startRdapServer();
    const client = rdapClient({
      rdapUrl: registry.url,
      allowPrivate: true,
      resolve: systemResolver,
      maxBytes: 64 * 1024,
    });
    const ask = () => client.network(`${registry.url}ip/192.0.2.7`);
    try {
      registry.rawBody = '<html>not rdap</html>';
      await expect(ask()).rejects.toThrow(/other than JSON/);
      registry.rawBody = JSON.stringify({ objectClassName: 'domain', ldhName: 'example.com' });
      await expect(ask()).rejects.toThrow(/not an ip network/);
      registry.rawBody = JSON.stringify([1, 2, 3]);
      await expect(ask()).rejects.toThrow(/not an RDAP object/);
      registry.rawBody = Buffer.alloc(200 * 1024, ' ');
      await expect(ask()).rejects.toThrow(/larger than/);
      // Fields of the wrong type are left out, not trusted.
      registry.rawBody = JSON.stringify({
        objectClassName: 'ip network',
        name: 42,
        entities: [
          { roles: 'registrant', vcardArray: ['vcard', [['fn', {}, 'text', ['x']]]] },
          null,
        ],
        remarks: 'ACME GmbH',
      });
      expect(await ask()).toMatchObject({
        name: null,
        remarks: [],
        entities: [{ roles: [], fn: null }],
      });
    } finally {
      await registry.close();
    }
  });

  it('asks only public https registries unless private ones are allowed', async () => {
    const registry = await startRdapServer({ networks: [arin.globex] });
    try {
      const strict = rdapClient({
        rdapUrl: registry.url,
        allowPrivate: false,
        resolve: systemResolver,
      });
      await expect(strict.network(`${registry.url}ip/198.51.100.9`)).rejects.toThrow(/not https/);
      await expect(
        strict.network(`https://127.0.0.1:${new URL(registry.url).port}/ip/198.51.100.9`),
      ).rejects.toThrow(/not a public address/);
      expect(registry.requests).toEqual([]);
    } finally {
      await registry.close();
    }
  });
});
