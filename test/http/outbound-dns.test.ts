import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configuredDns } from '../../src/http/outbound/dns.js';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.js';

describe('DNS on DNS_SERVERS', () => {
  let dns: TestDnsServer;
  beforeAll(async () => {
    dns = await startDnsServer({
      ptr: { '192.0.2.10': ['fw1.acme-gmbh.de'], '2001:db8::7': ['gw.acme-gmbh.de'] },
      addresses: { 'fw1.acme-gmbh.de': ['192.0.2.10', '2001:db8::10'] },
    });
  });
  afterAll(() => dns.close());

  it('asks the configured server PTR, A and AAAA questions', async () => {
    const client = configuredDns({ dnsServers: [dns.server] });
    expect(await client.reverse('192.0.2.10')).toEqual(['fw1.acme-gmbh.de']);
    expect(await client.reverse('2001:db8::7')).toEqual(['gw.acme-gmbh.de']);
    expect(await client.addresses('fw1.acme-gmbh.de')).toEqual(['192.0.2.10', '2001:db8::10']);
    expect(await client.resolver('fw1.acme-gmbh.de')).toEqual(['192.0.2.10', '2001:db8::10']);
    expect(dns.questions).toContain('PTR 10.2.0.192.in-addr.arpa');
  });

  it('answers nothing for unknown names and addresses', async () => {
    const client = configuredDns({ dnsServers: [dns.server] });
    expect(await client.reverse('192.0.2.99')).toEqual([]);
    expect(await client.addresses('nowhere.example')).toEqual([]);
  });

  it('gives up on a dead server within its deadline', async () => {
    dns.delayMs = Number.POSITIVE_INFINITY;
    try {
      const client = configuredDns({ dnsServers: [dns.server] }, 200);
      const started = performance.now();
      await expect(client.reverse('192.0.2.10')).rejects.toThrow();
      expect(performance.now() - started).toBeLessThan(2_000);
    } finally {
      dns.delayMs = 0;
    }
  });
});
