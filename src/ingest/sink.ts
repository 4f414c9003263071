import type { IngestRecord } from './record.js';
import type { ScriptGone } from './scripts.js';

/**
 * What became of a record: the number of its events stored, or why its script no longer
 * takes events (found in the write; nothing of the record is then stored).
 */
export type IngestOutcome = { stored: number } | { refused: ScriptGone };

/**
 * Where the collector hands its records. The group commit (group-commit-sink.ts) writes them
 * before it answers; a queue (contract §19) would append them and answer once that is
 * durable. Choosing one happens in one place: `assembleIngest` (assemble.ts).
 */
export interface IngestSink {
  /**
   * Resolves, with an outcome per record in the same order, once the records are durably
   * taken; rejects when they could not be (the tracker is told to send them again).
   */
  add(records: IngestRecord[]): Promise<IngestOutcome[]>;
  /** Waits until everything added so far is taken (at shutdown). */
  flush(): Promise<void>;
}
