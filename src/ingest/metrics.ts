import { Counter, Histogram, Registry } from 'prom-client';

/** Why an event was not stored; a label of footfall_events_dropped_total. */
export type DropReason =
  | 'bot'
  | 'feature_disabled'
  | 'gpc'
  | 'excluded_ip_range'
  | 'foreign_hostname';

/** The collector's Prometheus metrics, served at /metrics. */
export function ingestMetrics() {
  const registry = new Registry();
  return {
    registry,
    requests: new Counter({
      name: 'footfall_collect_requests_total',
      help: 'Collect requests by answer status',
      labelNames: ['status'] as const,
      registers: [registry],
    }),
    received: new Counter({
      name: 'footfall_events_received_total',
      help: 'Events in well-formed collect requests for a live tracking script',
      registers: [registry],
    }),
    dropped: new Counter({
      name: 'footfall_events_dropped_total',
      help: 'Events not stored, by pipeline step and reason',
      labelNames: ['step', 'reason'] as const,
      registers: [registry],
    }),
    stored: new Counter({
      name: 'footfall_events_stored_total',
      help: 'Events committed to the database',
      registers: [registry],
    }),
    groupSize: new Histogram({
      name: 'footfall_write_group_events',
      help: 'Events per group-commit transaction',
      buckets: [1, 5, 20, 50, 100, 250, 500, 1000, 2000],
      registers: [registry],
    }),
    groupSeconds: new Histogram({
      name: 'footfall_write_group_seconds',
      help: 'Duration of group-commit transactions',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers: [registry],
    }),
    phaseSeconds: new Histogram({
      name: 'footfall_write_phase_seconds',
      help: 'Duration of each phase of a group write',
      labelNames: ['phase'] as const,
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers: [registry],
    }),
    retries: new Counter({
      name: 'footfall_write_retries_total',
      help: 'Group writes done again after a transient failure, by reason',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    quarantined: new Counter({
      name: 'footfall_ingest_quarantined_total',
      help: 'Acknowledged requests processing could not handle, kept aside by reason (footfall ingest replay)',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    discarded: new Counter({
      name: 'footfall_ingest_discarded_total',
      help: 'Acknowledged requests whose tracking script was deleted or unlinked before processing, by reason',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    duplicates: new Counter({
      name: 'footfall_ingest_duplicate_events_total',
      help: 'Events whose id was already stored (a request sent again), not stored twice',
      registers: [registry],
    }),
    processed: new Counter({
      name: 'footfall_ingest_processed_requests_total',
      help: 'Acknowledged requests processed from the inbox by this worker',
      registers: [registry],
    }),
    splits: new Counter({
      name: 'footfall_write_splits_total',
      help: 'Failed group writes split in two to find the failing requests, by reason',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
  };
}
export type IngestMetrics = ReturnType<typeof ingestMetrics>;
