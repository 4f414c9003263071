import type { IngestRecord } from './record.js';
import type { ScriptGone } from './scripts.js';

/**
 * What became of a record: the number of its events stored, or why its script no longer
 * takes events (found in the write; nothing of the record is then stored).
 */
export type IngestOutcome = { stored: number } | { refused: ScriptGone };

/**
 * Where the collector hands its records: the inbox (inbox.ts) appends them, and the
 * collector answers once that is durable (contract §19); workers (drain.ts) process them.
 * Choosing one happens in one place: `assembleIngest` (assemble.ts).
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
