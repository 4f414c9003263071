import path from 'node:path';

/** The parts a process may serve (`footfall serve --role`, contract §19). */
export const ROLES = ['all', 'collector', 'worker', 'api'] as const;
export type Role = (typeof ROLES)[number];

/** Every setting Footfall reads, parsed and validated once at start-up. */
export interface Config {
  port: number;
  host: string;
  /** Absolute base URL used in pagination links and the tracking snippet; null means "from the request". */
  publicUrl: string | null;
  databaseUrl: string | null;
  /**
   * A streaming replica of DATABASE_URL that lists, exports and stats read from (contract
   * §19); null: every read goes to the primary.
   */
  databaseReadUrl: string | null;
  /** A replica further behind than this many seconds is passed over for the primary. */
  replicaMaxLagSeconds: number;
  dataDir: string;
  /** As Fastify's `trustProxy`. */
  trustProxy: boolean | number | string[];
  sessionsOrganisationLimit: number;
  defaultUsageLimit: number;
  sessionIdleSeconds: number;
  /** How often each server writes its per-workspace event counts (installation status). */
  ingestTallyMs: number;
  /** What this process serves (contract §19): everything, or one part of it. */
  role: Role;
  /** Unprocessed events in the inbox above which collect answers 503 (contract §19). */
  ingestBacklogMax: number;
  /** Batches a worker process processes at once (each one transaction, one lane). */
  ingestWorkers: number;
  /** Requests per batch taken from the inbox. */
  ingestBatch: number;
  /** After a part batch, how long a worker lets requests gather before the next batch. */
  ingestGatherMs: number;
  webhookRetrySeconds: number[];
  /** The whole of one webhook attempt (connect, send, status line) must fit in this. */
  webhookTimeoutSeconds: number;
  /**
   * How long a claimed notification delivery stays with its server unrenewed: renewed every
   * third of it while the attempt runs, so it bounds how soon a crashed server's is retried.
   */
  notificationLeaseSeconds: number;
  /** How often segments with relative-date conditions are computed again. */
  segmentRefreshSeconds: number;
  allowPrivateWebhooks: boolean;
  /** City `.mmdb` files (comma-separated in the setting); null means the bundled DB-IP Lite data. */
  geoipCityDb: string[] | null;
  /** Network-owner CSV files (comma-separated in the setting); null means the bundled data. */
  asnDb: string[] | null;
  /** What the network owner needs to name an organisation: off, strict (name), balanced. */
  networkOwnerStrictness: 'off' | 'strict' | 'balanced';
  /** false: no DNS, RDAP or company-site request at all (contract §16). */
  onlineLookups: boolean;
  /** DNS servers as `host` or `host:port` (IPv6 in brackets); null: the system's resolvers. */
  dnsServers: string[] | null;
  /** One RDAP base URL asked for every address and network; null: IANA's bootstrap data. */
  rdapUrl: string | null;
  /** The CRMs' API bases (contract §18); other than the vendors' only for stand-ins in tests. */
  hubspotApiUrl: string;
  pipedriveApiUrl: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Master secret for token signing and encryption at rest; null means "generate once in DATA_DIR". */
  tokenSecret: string | null;
  /** Requests per minute per access token on the API. */
  rateLimitPerMinute: number;
  /** Collect requests per minute from one client address, and for one tracking script. */
  collectRateLimitPerIp: number;
  collectRateLimitPerScript: number;
  /** Spotter requests per minute from one client address. */
  spotterRateLimitPerIp: number;
  /** Sessions and events older than this many days are deleted daily; 0 keeps them. */
  retentionDays: number;
  /** Bearer token that opens /metrics to any client; null means loopback clients only. */
  metricsToken: string | null;
  /** Longest statement on the server's pool, in ms; 0 means no limit. */
  statementTimeoutMs: number;
  /** `smtp://` or `smtps://` server for invites and alerts; null: links are shown, not mailed. */
  smtpUrl: string | null;
  /** The From of every e-mail. */
  smtpFrom: string;
  /** E-mails (invites, test sends) one user may make the server send in a minute. */
  mailPerUserPerMinute: number;
  /** The same for one workspace, all its members together. */
  mailPerWorkspacePerMinute: number;
}

export const DEFAULT_PORT = 3000;

/** A setting with a bad value; start-up stops with this message. */
export class ConfigError extends Error {
  constructor(
    readonly setting: string,
    problem: string,
  ) {
    super(`Invalid setting ${setting}: ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

function text(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `"${raw}" is not a whole number`);
  const value = Number(raw);
  if (value < min || value > max) {
    throw new ConfigError(name, `${value} is outside ${min}..${max}`);
  }
  return value;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = text(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (['true', '1', 'yes', 'on'].includes(raw)) return true;
  if (['false', '0', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(name, `"${raw}" is not true or false`);
}

const STRICTNESS = ['off', 'strict', 'balanced'] as const;

function oneOf<T extends string>(env: Env, name: string, values: readonly T[], fallback: T): T {
  const raw = text(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (!(values as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `"${raw}" is not one of ${values.join(', ')}`);
  }
  return raw as T;
}

/** An absolute URL setting; `secret` ones (credentials inside) are never echoed in errors. */
function absoluteUrl(env: Env, name: string, protocols: string[], secret = false): string | null {
  const raw = text(env, name);
  if (raw === undefined) return null;
  const shown = secret ? 'the value' : `"${raw}"`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `${shown} is not an absolute URL`);
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(name, `${shown} must use ${protocols.join(' or ')}`);
  }
  return raw;
}

function trustProxy(env: Env): Config['trustProxy'] {
  const raw = text(env, 'TRUST_PROXY');
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  const entries = raw.split(',').map((entry) => entry.trim());
  const addressLike = /^[0-9a-fA-F.:]+(\/\d{1,3})?$|^(loopback|linklocal|uniquelocal)$/;
  for (const entry of entries) {
    if (!addressLike.test(entry)) {
      throw new ConfigError(
        'TRUST_PROXY',
        `"${entry}" is not true, a hop count, an address or a CIDR`,
      );
    }
  }
  return entries;
}

function retrySchedule(env: Env): number[] {
  const raw = text(env, 'WEBHOOK_RETRY_SECONDS');
  if (raw === undefined) return [60, 300, 1800, 7200];
  const parts = raw.split(',').map((part) => part.trim());
  if (parts.length > 20 || parts.some((part) => !/^\d+$/.test(part) || Number(part) < 1)) {
    throw new ConfigError(
      'WEBHOOK_RETRY_SECONDS',
      `"${raw}" must be up to 20 comma-separated whole numbers of seconds, each at least 1`,
    );
  }
  return parts.map(Number);
}

function dnsServers(env: Env): string[] | null {
  const raw = text(env, 'DNS_SERVERS');
  if (raw === undefined) return null;
  const servers = raw.split(',').map((entry) => entry.trim());
  const server =
    /^(\d{1,3}(\.\d{1,3}){3}|\[[0-9a-fA-F:.]+\]|[0-9a-fA-F:]*:[0-9a-fA-F:]*)(:\d{1,5})?$/;
  for (const entry of servers) {
    if (!server.test(entry)) {
      throw new ConfigError('DNS_SERVERS', `"${entry}" is not an address or address:port`);
    }
  }
  return servers;
}

export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  const logLevel = (text(env, 'LOG_LEVEL') ?? 'info').toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `"${logLevel}" is not one of ${LOG_LEVELS.join(', ')}`);
  }
  const tokenSecret = text(env, 'TOKEN_SECRET') ?? null;
  if (tokenSecret !== null && tokenSecret.length < 32) {
    throw new ConfigError('TOKEN_SECRET', 'must be at least 32 characters long');
  }
  const publicUrl = absoluteUrl(env, 'PUBLIC_URL', ['http:', 'https:']);
  const metricsToken = text(env, 'METRICS_TOKEN') ?? null;
  const databaseUrl = absoluteUrl(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  // A password may be in it: never echoed.
  const databaseReadUrl = absoluteUrl(env, 'DATABASE_READ_URL', ['postgres:', 'postgresql:'], true);
  if (databaseReadUrl !== null && databaseUrl === null) {
    // The embedded server has no replica: a read URL without DATABASE_URL is a mistake.
    throw new ConfigError('DATABASE_READ_URL', 'needs DATABASE_URL (the primary) as well');
  }
  if (metricsToken !== null && !/^[\x21-\x7e]{16,}$/.test(metricsToken)) {
    throw new ConfigError('METRICS_TOKEN', 'must be at least 16 printable characters, no spaces');
  }
  return {
    port: integer(env, 'PORT', DEFAULT_PORT, 0, 65535),
    host: text(env, 'HOST') ?? '0.0.0.0',
    publicUrl: publicUrl?.replace(/\/+$/, '') ?? null,
    databaseUrl,
    databaseReadUrl,
    replicaMaxLagSeconds: integer(env, 'REPLICA_MAX_LAG_SECONDS', 10, 1, 3600),
    dataDir: path.resolve(cwd, text(env, 'DATA_DIR') ?? 'data'),
    trustProxy: trustProxy(env),
    sessionsOrganisationLimit: integer(env, 'SESSIONS_ORGANISATION_LIMIT', 10000, 1, 1_000_000),
    defaultUsageLimit: integer(env, 'DEFAULT_USAGE_LIMIT', 10000, 0, 10_000_000),
    sessionIdleSeconds: integer(env, 'SESSION_IDLE_SECONDS', 1800, 1, 86_400),
    ingestTallyMs: integer(env, 'INGEST_TALLY_MS', 5000, 10, 600_000),
    role: oneOf(env, 'ROLE', ROLES, 'all'),
    ingestBacklogMax: integer(env, 'INGEST_BACKLOG_MAX', 1_000_000, 0, 1_000_000_000),
    ingestWorkers: integer(env, 'INGEST_WORKERS', 2, 1, 32),
    ingestBatch: integer(env, 'INGEST_BATCH', 500, 1, 10_000),
    ingestGatherMs: integer(env, 'INGEST_GATHER_MS', 200, 0, 2_000),
    webhookRetrySeconds: retrySchedule(env),
    webhookTimeoutSeconds: integer(env, 'WEBHOOK_TIMEOUT_SECONDS', 10, 1, 30),
    notificationLeaseSeconds: integer(env, 'NOTIFICATION_LEASE_SECONDS', 60, 3, 3600),
    segmentRefreshSeconds: integer(env, 'SEGMENT_REFRESH_SECONDS', 60, 1, 86_400),
    allowPrivateWebhooks: boolean(env, 'ALLOW_PRIVATE_WEBHOOKS', false),
    geoipCityDb:
      text(env, 'GEOIP_CITY_DB')
        ?.split(',')
        .map((file) => path.resolve(cwd, file.trim())) ?? null,
    asnDb:
      text(env, 'ASN_DB')
        ?.split(',')
        .map((file) => path.resolve(cwd, file.trim())) ?? null,
    networkOwnerStrictness: oneOf(env, 'NETWORK_OWNER_STRICTNESS', STRICTNESS, 'balanced'),
    onlineLookups: oneOf(env, 'ONLINE_LOOKUPS', ['on', 'off'], 'on') === 'on',
    dnsServers: dnsServers(env),
    rdapUrl: absoluteUrl(env, 'RDAP_URL', ['http:', 'https:'])?.replace(/\/*$/, '/') ?? null,
    hubspotApiUrl: (
      absoluteUrl(env, 'HUBSPOT_API_URL', ['http:', 'https:']) ?? 'https://api.hubapi.com'
    ).replace(/\/+$/, ''),
    pipedriveApiUrl: (
      absoluteUrl(env, 'PIPEDRIVE_API_URL', ['http:', 'https:']) ?? 'https://api.pipedrive.com'
    ).replace(/\/+$/, ''),
    logLevel: logLevel as Config['logLevel'],
    tokenSecret,
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 600, 1, 1_000_000),
    collectRateLimitPerIp: integer(env, 'COLLECT_RATE_LIMIT_PER_IP', 3000, 1, 100_000_000),
    collectRateLimitPerScript: integer(
      env,
      'COLLECT_RATE_LIMIT_PER_SCRIPT',
      120_000,
      1,
      100_000_000,
    ),
    spotterRateLimitPerIp: integer(env, 'SPOTTER_RATE_LIMIT_PER_IP', 600, 1, 100_000_000),
    retentionDays: integer(env, 'RETENTION_DAYS', 0, 0, 36_500),
    metricsToken,
    statementTimeoutMs: integer(env, 'STATEMENT_TIMEOUT_MS', 30_000, 0, 86_400_000),
    smtpUrl: absoluteUrl(env, 'SMTP_URL', ['smtp:', 'smtps:'], true),
    smtpFrom: text(env, 'SMTP_FROM') ?? 'Footfall <footfall@localhost>',
    mailPerUserPerMinute: integer(env, 'MAIL_PER_USER_PER_MINUTE', 60, 1, 100_000),
    mailPerWorkspacePerMinute: integer(env, 'MAIL_PER_WORKSPACE_PER_MINUTE', 120, 1, 100_000),
  };
}

/**
 * Where people reach this server: PUBLIC_URL, else this machine on PORT, or on `port` when
 * the server knows the one it got (PORT=0), for links in logs and the CLI's hints.
 */
export function publicOrigin(config: Config, port = config.port): string {
  return config.publicUrl ?? `http://localhost:${port}`;
}
