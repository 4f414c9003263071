import type { Collected } from './body.js';
import type { BacklogGauge } from './inbox.js';
import type { DropReason, IngestMetrics } from './metrics.js';
import { type IngestContext, runPipeline, type Step } from './pipeline.js';
import { recordOf } from './record.js';
import type { ScriptDirectory, TrackingScript } from './scripts.js';
import type { IngestOutcome, IngestSink } from './sink.js';
import type { IngestTally } from './tally.js';

export interface CollectorParts {
  scripts: ScriptDirectory;
  metrics: IngestMetrics;
  /** The pipeline (pipeline.ts), which turns a request into a record. */
  steps: Step[];
  /** Where records go (sink.ts). */
  sink: IngestSink;
  /** Events stored and dropped per workspace, counted once the sink has taken them. */
  tally: IngestTally;
  /** Unprocessed events waiting; above the limit, collect answers 503 (contract §19). */
  backlog: BacklogGauge;
}

/** The collector: a request through the pipeline, its record to the sink, the answer back. */
export function createCollector({ scripts, metrics, steps, sink, tally, backlog }: CollectorParts) {
  return {
    scripts,
    metrics,
    backlog,
    /**
     * Runs the pipeline and resolves once the sink has taken what it kept: the number
     * stored, or why the script no longer takes events (nothing of the request is stored).
     */
    async ingest(
      script: TrackingScript,
      collected: Collected,
      client: { ip: string; userAgent: string | undefined; gpc: boolean },
    ): Promise<IngestOutcome> {
      metrics.received.inc(collected.events.length);
      const context: IngestContext = {
        script,
        visitorId: collected.visitorId,
        ...client,
        events: collected.events,
      };
      const dropped: [DropReason, number][] = [];
      await runPipeline(steps, context, metrics, (reason, events) =>
        dropped.push([reason, events]),
      );
      // Even a request whose events were all dropped goes to the sink, whose write checks
      // that its script is still active: it is answered as it should be.
      const [outcome] = await sink.add([recordOf(context)]);
      if (!outcome) throw new Error('the ingest sink gave no outcome for a record');
      if ('refused' in outcome) return outcome;
      for (const [reason, events] of dropped) tally.add(script.workspaceId, reason, events);
      tally.add(script.workspaceId, '', outcome.stored);
      return outcome;
    },
    /** Waits for every acknowledged write and the counts of what arrived (at shutdown). */
    flush: async () => {
      await sink.flush();
      await tally.flush();
    },
  };
}
export type Collector = ReturnType<typeof createCollector>;
