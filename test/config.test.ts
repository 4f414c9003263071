import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { runFootfall } from './helpers/process.js';

describe('settings', () => {
  it('has the contract’s defaults', () => {
    const config = loadConfig({}, '/srv/footfall');
    expect(config).toMatchObject({
      port: 3000,
      dataDir: '/srv/footfall/data',
      databaseUrl: null,
      publicUrl: null,
      trustProxy: false,
      sessionsOrganisationLimit: 10000,
      defaultUsageLimit: 10000,
      sessionIdleSeconds: 1800,
      webhookRetrySeconds: [60, 300, 1800, 7200],
      allowPrivateWebhooks: false,
      rateLimitPerMinute: 600,
      logLevel: 'info',
      metricsToken: null,
      statementTimeoutMs: 30_000,
      onlineLookups: true,
      dnsServers: null,
      rdapUrl: null,
    });
  });

  it('reads the online lookup settings and refuses bad ones', () => {
    expect(
      loadConfig({
        ONLINE_LOOKUPS: 'OFF',
        DNS_SERVERS: '127.0.0.1:5353, [::1]:53,9.9.9.9',
        RDAP_URL: 'http://127.0.0.1:8080/rdap',
      }),
    ).toMatchObject({
      onlineLookups: false,
      dnsServers: ['127.0.0.1:5353', '[::1]:53', '9.9.9.9'],
      rdapUrl: 'http://127.0.0.1:8080/rdap/',
    });
    expect(() => loadConfig({ ONLINE_LOOKUPS: 'maybe' })).toThrow(/ONLINE_LOOKUPS/);
    expect(() => loadConfig({ DNS_SERVERS: 'dns.example.com' })).toThrow(/DNS_SERVERS/);
    expect(() => loadConfig({ RDAP_URL: 'ftp://rdap.example' })).toThrow(/RDAP_URL/);
  });

  it('reads the metrics token and the statement timeout', () => {
    const config = loadConfig({
      METRICS_TOKEN: ' 0123456789abcdef-token ',
      STATEMENT_TIMEOUT_MS: '0',
    });
    expect(config).toMatchObject({
      metricsToken: '0123456789abcdef-token',
      statementTimeoutMs: 0,
    });
  });

  it('reads the read replica, and never echoes its URL in an error', () => {
    expect(loadConfig({})).toMatchObject({ databaseReadUrl: null, replicaMaxLagSeconds: 10 });
    const config = loadConfig({
      DATABASE_URL: 'postgres://app@primary.example/footfall',
      DATABASE_READ_URL: 'postgres://app:s3cret@replica.example/footfall',
      REPLICA_MAX_LAG_SECONDS: '5',
    });
    expect(config).toMatchObject({
      databaseReadUrl: 'postgres://app:s3cret@replica.example/footfall',
      replicaMaxLagSeconds: 5,
    });
    expect(() =>
      loadConfig({ DATABASE_READ_URL: 'postgres://app:s3cret@replica.example/footfall' }),
    ).toThrow(/^Invalid setting DATABASE_READ_URL: needs DATABASE_URL/);
    const wrong = () =>
      loadConfig({
        DATABASE_URL: 'postgres://app@primary.example/footfall',
        DATABASE_READ_URL: 'mysql://app:s3cret@replica.example/footfall',
      });
    expect(wrong).toThrow(/^Invalid setting DATABASE_READ_URL:/);
    expect(wrong).not.toThrow(/s3cret/);
  });

  it('reads every kind of value', () => {
    const config = loadConfig({
      PORT: '8080',
      PUBLIC_URL: 'https://footfall.example.org/',
      TRUST_PROXY: '10.0.0.0/8, 127.0.0.1',
      WEBHOOK_RETRY_SECONDS: '1,2,3',
      ALLOW_PRIVATE_WEBHOOKS: 'true',
      LOG_LEVEL: 'DEBUG',
    });
    expect(config).toMatchObject({
      port: 8080,
      publicUrl: 'https://footfall.example.org',
      trustProxy: ['10.0.0.0/8', '127.0.0.1'],
      webhookRetrySeconds: [1, 2, 3],
      allowPrivateWebhooks: true,
      logLevel: 'debug',
    });
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PUBLIC_URL', 'footfall.example.org'],
    ['DATABASE_URL', 'mysql://localhost/footfall'],
    ['TRUST_PROXY', 'everyone'],
    ['SESSIONS_ORGANISATION_LIMIT', '0'],
    ['DEFAULT_USAGE_LIMIT', '-5'],
    ['SESSION_IDLE_SECONDS', '1.5'],
    ['WEBHOOK_RETRY_SECONDS', '60,soon'],
    ['ALLOW_PRIVATE_WEBHOOKS', 'maybe'],
    ['LOG_LEVEL', 'loud'],
    ['TOKEN_SECRET', 'short'],
    ['RATE_LIMIT_PER_MINUTE', '0'],
    ['METRICS_TOKEN', 'too-short'],
    ['METRICS_TOKEN', 'long enough but with spaces'],
    ['STATEMENT_TIMEOUT_MS', '-1'],
    ['STATEMENT_TIMEOUT_MS', '30s'],
    ['REPLICA_MAX_LAG_SECONDS', '0'],
  ])('refuses %s=%s and names the setting', (setting, value) => {
    expect(() => loadConfig({ [setting]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [setting]: value })).toThrow(
      new RegExp(`^Invalid setting ${setting}:`),
    );
  });

  it('stops start-up with a message naming the bad setting', async () => {
    const result = await runFootfall(['serve'], { SESSION_IDLE_SECONDS: 'forever' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Invalid setting SESSION_IDLE_SECONDS');
    expect(result.stderr).not.toMatch(/at .*\.ts:\d+/); // a message, not a stack trace
  });
});
