import type { ColumnType, Generated } from 'kysely';

/** Row types of every table, for Kysely. Tenant tables key on `workspace_id`. */
export interface Database {
  users: UserTable;
  workspace_members: WorkspaceMemberTable;
  browser_sessions: BrowserSessionTable;
  auth_links: AuthLinkTable;
  invites: InviteTable;
  sign_in_failures: SignInFailureTable;
  sign_in_devices: SignInDeviceTable;
  access_tokens: AccessTokenTable;
  workspaces: WorkspaceTable;
  workspace_usage: WorkspaceUsageTable;
  read_fences: ReadFenceTable;
  tracking_scripts: TrackingScriptTable;
  workspace_tags: WorkspaceTagTable;
  custom_fields: CustomFieldTable;
  segments: SegmentTable;
  webhook_configs: WebhookConfigTable;
  organisations: OrganisationTable;
  ip_ranges: IpRangeTable;
  sessions: SessionTable;
  events: EventTable;
  segment_members: SegmentMemberTable;
  companies: CompanyTable;
  company_sites: CompanySiteTable;
  organisation_tags: OrganisationTagTable;
  custom_field_values: CustomFieldValueTable;
  visitors: VisitorTable;
  webhook_deliveries: WebhookDeliveryTable;
  segment_queue: SegmentQueueTable;
  contacts: ContactTable;
  contact_visitors: ContactVisitorTable;
  scheduled_jobs: ScheduledJobTable;
  stats_organisation_days: StatsOrganisationDayTable;
  organisation_figures: OrganisationFiguresTable;
  zapier_hooks: ZapierHookTable;
  zapier_deliveries: ZapierDeliveryTable;
  crm_connections: CrmConnectionTable;
  crm_records: CrmRecordTable;
  crm_deliveries: CrmDeliveryTable;
  crm_buckets: CrmBucketTable;
  ingest_inbox: IngestInboxTable;
  ingest_quarantine: IngestQuarantineTable;
  ingest_event_ids: IngestEventIdTable;
  organisation_place_months: OrganisationPlaceMonthTable;
  stats_organisation_sources: StatsOrganisationSourceTable;
  stats_source_days: StatsSourceDayTable;
  stats_page_days: StatsPageDayTable;
  stats_workspace_days: StatsWorkspaceDayTable;
  stats_organisation_months: StatsOrganisationMonthTable;
  stats_page_months: StatsPageMonthTable;
  session_lengths: SessionLengthTable;
  stats_visitor_days: StatsVisitorDayTable;
  stats_visitor_counts: StatsVisitorCountTable;
  notification_rules: NotificationRuleTable;
  scoring_settings: ScoringSettingsTable;
  scoring_runs: ScoringRunTable;
  scoring_queue: ScoringQueueTable;
  excluded_domains: ExcludedDomainTable;
  notification_deliveries: NotificationDeliveryTable;
  notification_last_alerts: NotificationLastAlertTable;
  digest_periods: DigestPeriodTable;
  workspace_ingest_hours: WorkspaceIngestHourTable;
  allowance_uses: AllowanceUseTable;
  rdap_networks: RdapNetworkTable;
  rdap_autnums: RdapAutnumTable;
  outbox_events: OutboxEventTable;
}

type CreatedAt = ColumnType<Date, Date | undefined, never>;
type Json<T> = ColumnType<T, string, string>;

export interface UserTable {
  id: string;
  email: string;
  name: string;
  /** argon2id (PHC string); null: no password yet, no browser sign-in. */
  password_hash: string | null;
  password_changed_at: Date | null;
  created_at: CreatedAt;
}

export type Role = 'owner' | 'admin' | 'member';

export interface WorkspaceMemberTable {
  workspace_id: string;
  user_id: string;
  role: Role;
  created_at: CreatedAt;
}

export interface BrowserSessionTable {
  /** SHA-256 of the cookie's secret. */
  id_hash: Buffer;
  user_id: string;
  csrf: string;
  created_at: CreatedAt;
  expires_at: Date;
}

export interface AuthLinkTable {
  secret_hash: Buffer;
  kind: 'setup' | 'reset';
  user_id: string | null;
  created_at: CreatedAt;
  expires_at: Date;
}

export interface InviteTable {
  secret_hash: Buffer;
  workspace_id: string;
  email: string;
  role: 'admin' | 'member';
  invited_by: string | null;
  created_at: CreatedAt;
  expires_at: Date;
}

export interface SignInFailureTable {
  key: Buffer;
  failed_at: CreatedAt;
}

export interface SignInDeviceTable {
  /** SHA-256 of the device cookie's secret. */
  id_hash: Buffer;
  user_id: string;
  created_at: CreatedAt;
  expires_at: Date;
}

export interface AccessTokenTable {
  id: string;
  user_id: string;
  name: string;
  created_at: CreatedAt;
  expires_at: Date | null;
  revoked_at: Date | null;
}

export interface WorkspaceTable {
  id: string;
  name: string;
  url: string;
  usage_limit: number;
  form_tracking: Generated<boolean>;
  click_tracking: Generated<boolean>;
  download_tracking: Generated<boolean>;
  honor_gpc: Generated<boolean>;
  /** CIDR ranges whose visitors are not tracked (the customer's own office). */
  excluded_ip_ranges: ColumnType<string[], string[] | undefined, string[]>;
  /** Hosts whose pages may send events; null: the site URL's host and its www. twin. */
  hostnames: ColumnType<string[] | null, string[] | null | undefined, string[] | null>;
  created_at: CreatedAt;
  /** Set by DELETE; the purge job removes the rows afterwards. */
  deleted_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/**
 * A workspace's organisations created in a calendar month (UTC) that still exist: what its
 * usage limit counts (0031).
 */
/** The primary's WAL position after a user's last write (db/read-routing.ts). */
export interface ReadFenceTable {
  user_id: string;
  /** A pg_lsn, as text: `16/B374D848`. */
  lsn: string;
  written_at: Generated<Date>;
}

export interface WorkspaceUsageTable {
  workspace_id: string;
  /** The month's first day. */
  month: string;
  organisations: number;
}

export interface TrackingScriptTable {
  id: string;
  workspace_id: string;
  created_at: CreatedAt;
  revoked_at: Date | null;
}

export interface WorkspaceTagTable {
  workspace_id: string;
  name: string;
  created_at: CreatedAt;
}

export interface FieldRule {
  type: string;
  config: Record<string, unknown>;
}

export interface FieldOption {
  key: string;
  label: string;
  color: string;
}

export interface CustomFieldTable {
  workspace_id: string;
  key: string;
  identifier: string;
  name: string;
  type: string;
  description: string;
  group: string;
  is_visible: boolean;
  source: string;
  rules: Json<FieldRule[]>;
  is_system: boolean;
  options: Json<FieldOption[]>;
  visible_in_spotter: boolean;
  created_at: CreatedAt;
}

export interface SegmentTable {
  workspace_id: string;
  id: string;
  name: string;
  filters: Json<unknown>;
  created_at: CreatedAt;
  refreshed_at: Date | null;
  relative_dates: Generated<boolean>;
  failures: Generated<number>;
  failed_at: Date | null;
  last_error: Generated<string>;
  retry_at: Date | null;
}

export interface WebhookConfigTable {
  user_id: string;
  url: string | null;
  /** AES-256-GCM: iv ‖ tag ‖ ciphertext. */
  secret_encrypted: Buffer;
  mode: string;
  /** The kinds to send; null: every kind. */
  events: string[] | null;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export interface OrganisationTable {
  workspace_id: string;
  id: string;
  domain: string;
  name: string;
  /** How it was found: {method, evidence} (docs/identification.md). */
  identification: ColumnType<
    { method: string; evidence: Record<string, unknown> },
    string | undefined,
    string
  >;
  created_at: CreatedAt;
  /** The lead score (contract §17), kept by the scoring job (src/scoring/). */
  score: Generated<number>;
  score_reasons: ColumnType<ScoreReason[], string | undefined, string>;
  /** A workspace member who owns the organisation. */
  owner_id: string | null;
  status: Generated<OrganisationStatus>;
  /** The status came from the workspace's excluded domains, not from a person. */
  excluded: Generated<boolean>;
  scored_activity: ColumnType<string, never, number | string>;
}

export const ORGANISATION_STATUSES = ['lead', 'customer', 'competitor', 'hidden'] as const;
export type OrganisationStatus = (typeof ORGANISATION_STATUSES)[number];

/** One line of an organisation's score: a rule's name or a key page, and its points. */
export interface ScoreReason {
  reason: string;
  points: number;
}

/** A workspace's scoring rules and key pages, once an admin saved them. */
export interface ScoringSettingsTable {
  workspace_id: string;
  rules: ColumnType<unknown, string, string>;
  key_pages: ColumnType<unknown, string, string>;
  changed_at: Generated<Date>;
}

/** When a workspace was last scored in full. */
export interface ScoringRunTable {
  workspace_id: string;
  scored_at: Date;
}

/** Organisations whose score may have changed (tags, custom values, owner, profile). */
export interface ScoringQueueTable {
  workspace_id: string;
  organisation_id: string;
}

export interface ExcludedDomainTable {
  workspace_id: string;
  domain: string;
}

export interface IpRangeTable {
  network: string;
  domain: string;
  name: string;
  imported_at: ColumnType<Date, Date | undefined, Date>;
}

export interface SessionTable {
  workspace_id: string;
  id: string;
  visitor_id: string;
  organisation_id: string | null;
  started_at: Date;
  ended_at: Date;
  referrer: string;
  referrer_at: Date | null;
  country: string;
  state: string;
  city: string;
  latitude: number;
  longitude: number;
  browser: string;
  device_type: string;
  /** Traffic source (contract §13): utm_source, the referrer's domain, or `direct`. */
  source: Generated<string>;
  ended_notified: Generated<boolean>;
  pageviews: Generated<number>;
  /** Its page views' URLs, or NULL when they are not all kept here (migration 0041). */
  pages: Generated<string[] | null>;
}

export interface EventTable {
  workspace_id: string;
  session_id: string;
  id: Generated<string>;
  type: string;
  ts: Date;
  url: string;
  data: Json<Record<string, unknown>>;
  /**
   * Whether its session is attributed to an organisation (0023): given by the collector,
   * filled in from the session when left out, kept by a trigger when the session changes.
   * Null only inside the statement that inserted it without one.
   */
  attributed: ColumnType<boolean | null, boolean | null | undefined, boolean>;
}

export interface SegmentMemberTable {
  workspace_id: string;
  segment_id: string;
  organisation_id: string;
}

export interface Address {
  street: string;
  address: string;
  full_address: string;
  city: string;
  state: string;
  street_number: string;
  postal_code: string;
  country: string;
  latitude: string;
  longitude: string;
}

export interface SocialProfile {
  name: string;
  handle: string;
  url: string;
}

export interface CompanyTable {
  domain: string;
  name: string;
  website: string;
  logo: string;
  founded: string;
  size: string;
  industry: string;
  phone: string;
  email: string;
  /** Beyond the seed's fields (0021). */
  description: Generated<string>;
  address: Json<Partial<Address>>;
  profiles: Json<SocialProfile[]>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

/** A profile read from a company's homepage (0021, enrich/); fields "" when not found. */
export interface CompanySiteTable {
  domain: string;
  status: Generated<'pending' | 'ok' | 'failed'>;
  name: Generated<string>;
  logo: Generated<string>;
  description: Generated<string>;
  phone: Generated<string>;
  email: Generated<string>;
  founded: Generated<string>;
  size: Generated<string>;
  address: ColumnType<Partial<Address>, string | undefined, string>;
  profiles: ColumnType<SocialProfile[], string | undefined, string>;
  /** The page the fields were read from, after redirects. */
  url: Generated<string>;
  /** Why the last read failed (short, no addresses). */
  error: Generated<string>;
  /** The last read, good or not. */
  fetched_at: Date | null;
  /** The last good read: when the fields were read. */
  read_at: Date | null;
  next_fetch_at: Generated<Date>;
  lease_until: Date | null;
}

export interface OrganisationTagTable {
  workspace_id: string;
  organisation_id: string;
  name: string;
}

export interface CustomFieldValueTable {
  workspace_id: string;
  organisation_id: string;
  key: string;
  value: Json<unknown>;
  /** When the value was last set (0012). */
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export interface VisitorTable {
  workspace_id: string;
  id: string;
  organisation_id: string | null;
  email: string;
  identified_at: ColumnType<Date, Date | undefined, Date>;
}

/** The attempts of a subscriber's delivery (outbox/delivery-loop.ts), in every deliveries table. */
interface DeliveryAttemptColumns {
  status: Generated<string>;
  attempts: Generated<number>;
  last_status_code: number | null;
  last_error: Generated<string>;
  next_attempt_at: Generated<Date>;
  created_at: CreatedAt;
  delivered_at: Date | null;
}

export interface WebhookDeliveryTable extends DeliveryAttemptColumns {
  id: string;
  user_id: string;
  /** PING_WORKSPACE (the nil UUID) for a test ping only, which belongs to no workspace. */
  workspace_id: string;
  event: string;
  organisation_id: string | null;
  session_id: string | null;
  event_id: string | null;
  segment_id: string | null;
  body: string | null;
  redeliveries: Generated<number>;
  redelivered_at: Date | null;
}

export interface ZapierHookTable {
  workspace_id: string;
  id: string;
  name: Generated<string>;
  hook_url: string;
  event: string;
  created_at: CreatedAt;
}

export interface ZapierDeliveryTable extends DeliveryAttemptColumns {
  id: string;
  workspace_id: string;
  hook_id: string;
  event: string;
  organisation_id: string | null;
  session_id: string | null;
  contact_id: string | null;
  body: string | null;
}

export const CRM_NAMES = ['hubspot', 'pipedrive'] as const;
export type CrmName = (typeof CRM_NAMES)[number];

/** A workspace's connection to a CRM (contract §18); the token is never read back out. */
export interface CrmConnectionTable {
  workspace_id: string;
  name: CrmName;
  token_encrypted: Buffer;
  enabled: Generated<boolean>;
  min_score: number | null;
  segment_id: string | null;
  /** What the CRM was set up with, e.g. Pipedrive's custom field keys. */
  setup: ColumnType<Record<string, unknown>, string | undefined, string>;
  connected_at: Generated<Date>;
  last_synced_at: Date | null;
  last_error: string | null;
  /** Set when the CRM refused the token: nothing is sent until it is replaced. */
  failed_at: Date | null;
  /** Set from a 429's Retry-After: nothing is sent before. */
  paused_until: Date | null;
  backfill_started_at: Date | null;
  backfill_finished_at: Date | null;
  backfill_total: Generated<number>;
}

/** Which CRM object a domain or an e-mail address is; no remote_id: being created. */
export interface CrmRecordTable {
  workspace_id: string;
  integration: CrmName;
  kind: 'company' | 'contact';
  key: string;
  remote_id: string | null;
  creating_until: Date | null;
  synced_at: Date | null;
}

export interface CrmDeliveryTable extends DeliveryAttemptColumns {
  id: Generated<string>;
  workspace_id: string;
  integration: CrmName;
  kind: 'company' | 'note' | 'contact';
  organisation_id: string;
  session_id: string | null;
  contact_id: string | null;
  backfill: Generated<boolean>;
  /** Bumped by each change while the row is pending (at most one pending row per subject). */
  changes: Generated<number>;
}

export interface CrmBucketTable {
  workspace_id: string;
  integration: CrmName;
  bucket: string;
  tokens: number;
  at: Date;
}

/** An acknowledged collect request waiting for a worker (ingest/inbox.ts). */
export interface IngestInboxTable {
  workspace_id: string;
  id: Generated<number>;
  shard: number;
  events: number;
  received_at: Generated<Date>;
  /** JSON: sent as text, read back parsed. */
  record: ColumnType<unknown, string, string>;
}

/** A request processing could not handle, kept with its reason (ingest/quarantine.ts). */
export interface IngestQuarantineTable {
  workspace_id: string;
  id: number;
  shard: number;
  events: number;
  received_at: Date;
  record: ColumnType<unknown, string, string>;
  reason: string;
  detail: Generated<string>;
  quarantined_at: Generated<Date>;
}

export interface IngestEventIdTable {
  workspace_id: string;
  event_id: string;
  seen_on: Generated<string>;
}

export interface SegmentQueueTable {
  workspace_id: string;
  organisation_id: string;
}

export interface ContactTable {
  workspace_id: string;
  id: string;
  email: string;
  organisation_id: string | null;
  traits: Json<Record<string, unknown>>;
  created_at: CreatedAt;
}

export interface ContactVisitorTable {
  workspace_id: string;
  contact_id: string;
  visitor_id: string;
}

export interface ScheduledJobTable {
  name: string;
  last_run_at: Date;
}

/** Daily rollups kept by triggers (migration 0011); read-only to the code. */
/** An organisation's session figures, kept by triggers on sessions (migration 0026). */
export interface OrganisationFiguresTable {
  workspace_id: string;
  organisation_id: string;
  sessions: number;
  pageviews: string;
  /** Time on site in microseconds. */
  micros: string;
  first_seen: Date | null;
  last_seen: Date | null;
}

/**
 * An organisation's ended sessions of one month (by their start) and one place (0050): its
 * places, and what organisation_figures counts, by month.
 */
export interface OrganisationPlaceMonthTable {
  workspace_id: string;
  organisation_id: string;
  /** The month's first day. */
  month: string;
  /** Empty where unknown. */
  city: string;
  country: string;
  sessions: number;
  pageviews: string;
  micros: string;
  first_seen: Date | null;
  last_seen: Date | null;
}

export interface StatsOrganisationDayTable {
  workspace_id: string;
  day: string;
  organisation_id: string;
  sessions: number;
  pageviews: string;
}

export interface StatsOrganisationSourceTable {
  workspace_id: string;
  organisation_id: string;
  day: string;
  source: string;
  sessions: number;
  pageviews: string;
}

export interface StatsSourceDayTable {
  workspace_id: string;
  day: string;
  source: string;
  sessions: number;
}

export interface StatsPageDayTable {
  workspace_id: string;
  day: string;
  url: string;
  pageviews: string;
  /** Views of attributed sessions (0023). */
  attributed_pageviews: string;
}

/** A workspace's day: the sums of its stats_organisation_days rows, and their number (0039). */
export interface StatsWorkspaceDayTable {
  workspace_id: string;
  day: string;
  sessions: string;
  pageviews: string;
  organisations: number;
}

/** An organisation's month: the sums of its stats_organisation_days rows (0039). */
export interface StatsOrganisationMonthTable {
  workspace_id: string;
  /** The month's first day. */
  month: string;
  organisation_id: string;
  sessions: string;
  pageviews: string;
  days: number;
}

/** A page's month: the sums of its stats_page_days rows (0039). */
export interface StatsPageMonthTable {
  workspace_id: string;
  month: string;
  url: string;
  pageviews: string;
  attributed_pageviews: string;
  days: number;
}

/** The workspace's longest session, a bound for reads of sessions overlapping a range (0040). */
export interface SessionLengthTable {
  workspace_id: string;
  /** An interval, as PostgreSQL writes it. */
  longest: string;
}

/** Each visitor's sessions per UTC day they touch, and the attributed ones (0023). */
export interface StatsVisitorDayTable {
  workspace_id: string;
  visitor_id: string;
  day: string;
  sessions: number;
  attributed_sessions: number;
}

/**
 * Visitor-days by the visitor's previous day (previous identified day, for identified
 * ones), so that distinct visitors of any range are a sum (0023).
 */
export interface StatsVisitorCountTable {
  workspace_id: string;
  day: string;
  identified: boolean;
  previous_day: string | null;
  visitors: number;
}

export interface NotificationRuleTable {
  workspace_id: string;
  id: string;
  name: string;
  enabled: Generated<boolean>;
  trigger: string;
  segment_id: string | null;
  url_contains: string | null;
  channel_type: string;
  email_to: Generated<string[]>;
  slack_url_encrypted: Buffer | null;
  webhook_url: string | null;
  webhook_secret_encrypted: Buffer | null;
  timezone: Generated<string>;
  created_at: CreatedAt;
  updated_at: Generated<Date>;
  /** The member who made the rule (`me` of a digest's owner filter). */
  created_by: string | null;
  /** Digests: only organisations this member owns. */
  owner_id: string | null;
  /** E-mail: to the organisation's owner (the addresses in email_to when it has none). */
  email_to_owner: Generated<boolean>;
  /** Owners' addresses that unsubscribed from a to_owner rule. */
  email_unsubscribed: Generated<string[]>;
}

export interface NotificationDeliveryTable extends DeliveryAttemptColumns {
  workspace_id: string;
  id: string;
  rule_id: string;
  kind: string;
  test: Generated<boolean>;
  organisation_id: string | null;
  session_id: string | null;
  segment_id: string | null;
  url: string | null;
  period_start: Date | null;
  period_end: Date | null;
  /** What the alert needs beyond its columns (a digest's figures), as JSON. */
  data: unknown;
  payload: string | null;
  sent_to: Generated<string[]>;
  /** The claim of the attempt in progress (a fresh id each claim); writes are fenced by it. */
  claim_id: string | null;
}

export interface NotificationLastAlertTable {
  workspace_id: string;
  rule_id: string;
  organisation_id: string;
  alerted_at: Date;
}

export interface DigestPeriodTable {
  workspace_id: string;
  rule_id: string;
  trigger: string;
  period_start: Date;
  period_end: Date;
  delivery_id: string | null;
  organisations: number;
  created_at: CreatedAt;
}

/** Events received per workspace and hour: stored (reason '') or dropped, by reason. */
export interface WorkspaceIngestHourTable {
  workspace_id: string;
  hour: Date;
  reason: string;
  events: ColumnType<string, number, number>;
  last_at: Date;
}

/** One use of a rolling allowance (src/http/allowances.ts). */
export interface AllowanceUseTable {
  /** What is counted, for whom: `mail:user`, `mail:workspace`, `notification-test:workspace`, `demo:user`. */
  scope: string;
  subject_id: string;
  amount: number;
  used_at: Date;
}

/** A registered network's RDAP record as judged (src/enrich/cache.ts); never a visitor's address. */
export interface RdapNetworkTable {
  start_address: string;
  end_address: string;
  handle: string;
  /** The registration signal: {signal, value, verdict, domain?, name?}. */
  judged: Json<Record<string, unknown>>;
  fetched_at: ColumnType<Date, Date | undefined, Date>;
}

/** An autonomous system's RDAP record as judged: the domain its registration gives. */
export interface RdapAutnumTable {
  asn: ColumnType<string, number, number>;
  name: string;
  domain: string | null;
  judged: Json<Record<string, unknown>>;
  fetched_at: ColumnType<Date, Date | undefined, Date>;
}

/** A domain event on its way to the subscribers (migration 0024); fanned out and deleted. */
export interface OutboxEventTable {
  id: Generated<string>;
  kind: string;
  workspace_id: string;
  organisation_id: string | null;
  session_id: string | null;
  event_id: string | null;
  segment_id: string | null;
  url: string | null;
  contact_id: string | null;
  created_at: Generated<Date>;
}
