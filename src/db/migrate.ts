import { type Kysely, type Migration, Migrator, sql } from 'kysely';
import * as foundation from './migrations/0001_foundation.js';
import * as tracking from './migrations/0002_tracking.js';
import * as organisations from './migrations/0003_organisations.js';
import * as webhooks from './migrations/0004_webhooks.js';
import * as segments from './migrations/0005_segments.js';
import * as privacy from './migrations/0006_privacy.js';
import * as workerFailures from './migrations/0007_worker_failures.js';
import * as identification from './migrations/0008_identification.js';
import * as accounts from './migrations/0009_accounts.js';
import * as sessionSource from './migrations/0010_session_source.js';
import * as stats from './migrations/0011_stats.js';
import * as customFieldValues from './migrations/0012_custom_field_values.js';
import * as webhookEvents from './migrations/0013_webhook_events.js';
import * as notifications from './migrations/0014_notifications.js';
import * as digests from './migrations/0015_digests.js';
import * as ingestTally from './migrations/0016_ingest_tally.js';
import * as signInDevices from './migrations/0017_sign_in_devices.js';
import * as allowances from './migrations/0018_allowances.js';
import * as notificationClaims from './migrations/0019_notification_claims.js';
import * as scriptLocks from './migrations/0020_script_locks.js';
import * as companySites from './migrations/0021_company_sites.js';
import * as lookupCaches from './migrations/0022_lookup_caches.js';
import * as matchRate from './migrations/0023_match_rate.js';
import * as outboxEvents from './migrations/0024_outbox_events.js';
import * as leadScore from './migrations/0025_lead_score.js';
import * as organisationFigures from './migrations/0026_organisation_figures.js';
import * as zapierHooks from './migrations/0027_zapier_hooks.js';
import * as crmSync from './migrations/0028_crm_sync.js';
import * as ingestInbox from './migrations/0029_ingest_inbox.js';
import * as writerRollups from './migrations/0030_writer_rollups.js';
import * as usageCounter from './migrations/0031_usage_counter.js';
import * as readFences from './migrations/0032_read_fences.js';
import * as distributionKeys from './migrations/0033_distribution_keys.js';
import * as monthPartitions from './migrations/0034_month_partitions.js';
import * as rollupDeletesByKey from './migrations/0035_rollup_deletes_by_key.js';
import * as sessionsWritten from './migrations/0036_sessions_written.js';
import * as inboxWithoutReceivedIndex from './migrations/0037_inbox_without_received_index.js';
import * as scriptAdvisoryLocks from './migrations/0038_script_advisory_locks.js';
import * as monthRollups from './migrations/0039_month_rollups.js';
import * as sessionLengths from './migrations/0040_session_lengths.js';
import * as sessionPages from './migrations/0041_session_pages.js';
import * as visitorsFromSessions from './migrations/0042_visitors_from_sessions.js';
import * as firstSeenFromItsMonth from './migrations/0043_first_seen_from_its_month.js';
import * as rollupsByMonth from './migrations/0044_rollups_by_month.js';
import * as sessionMicrosInFloats from './migrations/0045_session_micros_in_floats.js';
import * as visitorDaysByMonth from './migrations/0046_visitor_days_by_month.js';
import * as figuresFillfactor from './migrations/0047_figures_fillfactor.js';
import * as parallelSafeFunctions from './migrations/0048_parallel_safe_functions.js';
import * as sessionsDueToEnd from './migrations/0049_sessions_due_to_end.js';
import * as organisationPlaceMonths from './migrations/0050_organisation_place_months.js';
import { ensureMonthPartitions, hasMonthPartitions } from './partitions.js';
import type { Database } from './schema.js';

/** Every migration, in order. Names never change once released. */
const migrations: Record<string, Migration> = {
  '0001_foundation': foundation,
  '0002_tracking': tracking,
  '0003_organisations': organisations,
  '0004_webhooks': webhooks,
  '0005_segments': segments,
  '0006_privacy': privacy,
  '0007_worker_failures': workerFailures,
  '0008_identification': identification,
  '0009_accounts': accounts,
  '0010_session_source': sessionSource,
  '0011_stats': stats,
  '0012_custom_field_values': customFieldValues,
  '0013_webhook_events': webhookEvents,
  '0014_notifications': notifications,
  '0015_digests': digests,
  '0016_ingest_tally': ingestTally,
  '0017_sign_in_devices': signInDevices,
  '0018_allowances': allowances,
  '0019_notification_claims': notificationClaims,
  '0020_script_locks': scriptLocks,
  '0021_company_sites': companySites,
  '0022_lookup_caches': lookupCaches,
  '0023_match_rate': matchRate,
  '0024_outbox_events': outboxEvents,
  '0025_lead_score': leadScore,
  '0026_organisation_figures': organisationFigures,
  '0027_zapier_hooks': zapierHooks,
  '0028_crm_sync': crmSync,
  '0029_ingest_inbox': ingestInbox,
  '0030_writer_rollups': writerRollups,
  '0031_usage_counter': usageCounter,
  '0032_read_fences': readFences,
  '0033_distribution_keys': distributionKeys,
  '0034_month_partitions': monthPartitions,
  '0035_rollup_deletes_by_key': rollupDeletesByKey,
  '0036_sessions_written': sessionsWritten,
  '0037_inbox_without_received_index': inboxWithoutReceivedIndex,
  '0038_script_advisory_locks': scriptAdvisoryLocks,
  '0039_month_rollups': monthRollups,
  '0040_session_lengths': sessionLengths,
  '0041_session_pages': sessionPages,
  '0042_visitors_from_sessions': visitorsFromSessions,
  '0043_first_seen_from_its_month': firstSeenFromItsMonth,
  '0044_rollups_by_month': rollupsByMonth,
  '0045_session_micros_in_floats': sessionMicrosInFloats,
  '0046_visitor_days_by_month': visitorDaysByMonth,
  '0047_figures_fillfactor': figuresFillfactor,
  '0048_parallel_safe_functions': parallelSafeFunctions,
  '0049_sessions_due_to_end': sessionsDueToEnd,
  '0050_organisation_place_months': organisationPlaceMonths,
};

/**
 * Applies pending migrations (all, or those up to `upTo`, for tests of a migration on old
 * data; Kysely takes a lock, so concurrent starts are safe), on one
 * connection without the server pool's statement_timeout: rebuilding a large table may
 * take longer than any request should.
 */
export async function migrate(db: Kysely<Database>, upTo?: string): Promise<string[]> {
  const { error, results } = await db.connection().execute(async (connection) => {
    await sql`SET statement_timeout = 0`.execute(connection);
    try {
      const provider = { getMigrations: async () => migrations };
      const migrator = new Migrator({ db: connection, provider });
      return await (upTo ? migrator.migrateTo(upTo) : migrator.migrateToLatest());
    } finally {
      await sql`RESET statement_timeout`.execute(connection);
    }
  });
  if (error) {
    const failed = results?.find((result) => result.status === 'Error');
    throw new Error(
      `Migration ${failed?.migrationName ?? ''} failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  // The month partitions of events and sessions this month and the next are there before any
  // server takes traffic (then the partitions job keeps them ahead).
  if (await hasMonthPartitions(db)) await ensureMonthPartitions(db);
  return (results ?? []).map((result) => result.migrationName);
}
