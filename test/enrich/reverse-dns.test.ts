import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DnsLookupFailed, judgeHostName, reverseDnsSignal } from '../../src/enrich/reverse-dns.js';
import { configuredDns, type Dns } from '../../src/http/outbound/dns.js';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.js';

// Host names modelled on what access providers, hosters and businesses publish, in the
// documentation ranges. Each PTR name is forward-confirmed unless the test says otherwise.
const names: Record<string, string> = {
  // Deutsche Telekom style: the address in hex, "dip" for dial-in pool.
  '192.0.2.7': 'pc0000207.dip0.t-ipconnect.de',
  '203.0.113.7': 'host-203-0-113-7.customer.example-isp.net',
  '198.51.100.9': 'cpe-198-51-100-9.nyc.res.rr.com',
  '198.51.100.10': 'dynamic-198-051-100-010.198.51.pool.example-telco.de',
  '198.51.100.11': '11.100.51.198.static.example-isp.net',
  '198.51.100.12': 'ec2-198-51-100-12.eu-central-1.compute.amazonaws.com',
  '192.0.2.9': 'fw1.acme-gmbh.de',
  '192.0.2.10': 'mail.globex-corp.com',
  '192.0.2.20': 'acme-gmbh.static.example-isp.de',
  '192.0.2.21': 'acme-gmbh-gw.business.example-isp.net',
  '192.0.2.22': 'ae-3.cr1.static.example-isp.de',
  '192.0.2.28': 'acme-gmbh.cust.example-isp.net',
  '192.0.2.29': 'office.cust.example-isp.net',
  '192.0.2.23': 'gw.example-carrier.de',
  '192.0.2.25': 'www.initech.com',
  '192.0.2.26': 'globex-corp.com',
  '192.0.2.27': 'localhost',
  '2001:db8:ac3e::25': 'vpn.acme-gmbh.de',
  '2001:db8:1234:5678::1': '2001-db8-1234-5678-0-0-0-1.dyn.example-isp.net',
  '2001:db8:abcd:1::99': 'home-2001-0db8-abcd-0001.example-isp.net',
};

describe('reverse DNS signal', () => {
  let server: TestDnsServer;
  let dns: Dns;
  beforeAll(async () => {
    const addresses: Record<string, string[]> = {};
    for (const [address, name] of Object.entries(names)) addresses[name] = [address];
    // Not forward-confirmed: the name resolves elsewhere.
    addresses['mail.globex-corp.com'] = ['198.51.100.200'];
    // Confirmed in another spelling of the same IPv6 address.
    addresses['vpn.acme-gmbh.de'] = ['2001:0db8:ac3e:0000:0000:0000:0000:0025'];
    server = await startDnsServer({
      ptr: Object.fromEntries(Object.entries(names).map(([a, n]) => [a, [n]])),
      addresses,
    });
    dns = configuredDns({ dnsServers: [server.server] }, 300);
  });
  afterAll(() => server.close());

  it('names the business behind a forward-confirmed name by its registrable domain', async () => {
    server.questions.length = 0;
    expect(await reverseDnsSignal('192.0.2.9', dns, { networkKind: 'isp' })).toEqual({
      signal: 'reverse_dns',
      value: 'fw1.acme-gmbh.de',
      verdict: 'organisation',
      domain: 'acme-gmbh.de',
      name: 'Acme GmbH',
    });
    expect(server.questions).toEqual([
      'PTR 9.2.0.192.in-addr.arpa',
      'A fw1.acme-gmbh.de',
      'AAAA fw1.acme-gmbh.de',
    ]);
  });

  it('compares IPv6 addresses in any spelling', async () => {
    expect(await reverseDnsSignal('2001:db8:ac3e::25', dns)).toMatchObject({
      verdict: 'organisation',
      domain: 'acme-gmbh.de',
    });
  });

  it('takes a bare registrable domain as the name, and a name without one as nothing', async () => {
    expect(await reverseDnsSignal('192.0.2.26', dns)).toMatchObject({
      verdict: 'organisation',
      domain: 'globex-corp.com',
      name: 'Globex Corp',
    });
    expect(await reverseDnsSignal('192.0.2.27', dns)).toEqual({
      signal: 'reverse_dns',
      value: 'localhost',
      verdict: 'none',
    });
  });

  it('names nobody when the name does not resolve back to the address', async () => {
    expect(await reverseDnsSignal('192.0.2.10', dns)).toEqual({
      signal: 'reverse_dns',
      value: 'mail.globex-corp.com',
      verdict: 'unconfirmed',
    });
  });

  it('says none for an address without a PTR name', async () => {
    expect(await reverseDnsSignal('192.0.2.99', dns)).toEqual({
      signal: 'reverse_dns',
      value: '',
      verdict: 'none',
    });
  });

  it.each([
    ['192.0.2.7', 'p*.dip0.t-ipconnect.de'],
    ['203.0.113.7', 'host-*.customer.example-isp.net'],
    ['198.51.100.9', 'cpe-*.nyc.res.rr.com'],
    ['198.51.100.10', 'dynamic-*.*.pool.example-telco.de'],
    ['198.51.100.11', '*.static.example-isp.net'],
    ['198.51.100.12', 'ec2-*.eu-central-1.compute.amazonaws.com'],
    ['2001:db8:1234:5678::1', '*.dyn.example-isp.net'],
    ['2001:db8:abcd:1::99', 'home-*.example-isp.net'],
  ])('calls %s a provider, with the address masked in evidence', async (address, value) => {
    const signal = await reverseDnsSignal(address, dns);
    expect(signal).toEqual({ signal: 'reverse_dns', value, verdict: 'provider' });
  });

  it("half-names a customer written into a provider's host name (weak, no domain)", async () => {
    const context = {
      providerDomains: ['example-isp.de', 'example-isp.net'],
      networkKind: 'isp' as const,
    };
    expect(await reverseDnsSignal('192.0.2.20', dns, context)).toEqual({
      signal: 'reverse_dns',
      value: 'acme-gmbh.static.example-isp.de',
      verdict: 'weak',
      name: 'Acme GmbH',
    });
    expect(await reverseDnsSignal('192.0.2.21', dns, context)).toMatchObject({
      verdict: 'weak',
      name: 'Acme GmbH',
    });
    // A customer line with pool words names a customer only by a legal form.
    expect(await reverseDnsSignal('192.0.2.28', dns)).toMatchObject({
      verdict: 'weak',
      name: 'Acme GmbH',
    });
    expect(await reverseDnsSignal('192.0.2.29', dns)).toMatchObject({ verdict: 'provider' });
    // Gear and ports are no customer.
    expect(await reverseDnsSignal('192.0.2.22', dns, context)).toMatchObject({
      verdict: 'provider',
    });
  });

  it("calls the network's own provider domain a provider, unless the network is the business's", async () => {
    const carrier = {
      networkName: 'EXAMPLE-CARRIER Example Carrier GmbH',
      networkKind: 'isp' as const,
    };
    expect(await reverseDnsSignal('192.0.2.23', dns, carrier)).toMatchObject({
      verdict: 'provider',
    });
    expect(
      await reverseDnsSignal('192.0.2.23', dns, {
        providerDomains: ['example-carrier.de'],
        networkKind: 'mobile',
      }),
    ).toMatchObject({ verdict: 'provider' });
    expect(
      await reverseDnsSignal('192.0.2.23', dns, {
        ...carrier,
        providerDomains: ['example-carrier.de'],
        networkKind: 'business',
      }),
    ).toMatchObject({ verdict: 'organisation', domain: 'example-carrier.de' });
  });

  it("only half-names a server's name on a hosting network", async () => {
    expect(await reverseDnsSignal('192.0.2.25', dns, { networkKind: 'hosting' })).toEqual({
      signal: 'reverse_dns',
      value: 'www.initech.com',
      verdict: 'weak',
      domain: 'initech.com',
      name: 'Initech',
    });
  });

  it('never puts the visitor address into evidence', async () => {
    for (const address of Object.keys(names)) {
      const signal = await reverseDnsSignal(address, dns, { providerDomains: ['example-isp.de'] });
      const text = JSON.stringify(signal);
      const spellings = address.includes(':')
        ? [address, '2001-db8', '2001-0db8']
        : [address, address.replace(/\./g, '-'), address.split('.').reverse().join('.')];
      for (const spelling of spellings) expect(text).not.toContain(spelling);
    }
  });

  it('tells a DNS that does not answer apart from an address without a name', async () => {
    server.delayMs = Number.POSITIVE_INFINITY;
    try {
      const started = performance.now();
      await expect(reverseDnsSignal('192.0.2.9', dns)).rejects.toBeInstanceOf(DnsLookupFailed);
      expect(performance.now() - started).toBeLessThan(3_000);
    } finally {
      server.delayMs = 0;
    }
  });

  it('guesses a readable name from the domain', () => {
    const guess = (host: string) => judgeHostName(host, '192.0.2.1').name;
    expect(guess('proxy1.sap.com')).toBe('SAP');
    expect(guess('gw.xn--mller-bau-q9a.de')).toBe('Müller Bau');
    expect(guess('mail.stadtwerke-musterstadt.de')).toBe('Stadtwerke Musterstadt');
    expect(guess('vpn.acme-ag.ch')).toBe('Acme AG');
  });
});
