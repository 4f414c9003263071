import type { GeoLocator, Location } from '../identify/geo.js';
import { emailsOf } from '../identify/identity.js';
import {
  type ResolvedOrganisation,
  type Resolver,
  resolveOrganisation,
} from '../identify/resolver.js';
import type { TrackedEvent } from './body.js';
import type { DropReason, IngestMetrics } from './metrics.js';
import type { TrackingScript } from './scripts.js';
import { type Agent, parseUserAgent } from './user-agent.js';

/** One collect request on its way through the pipeline; it leaves as a record (record.ts). */
export interface IngestContext {
  script: TrackingScript;
  visitorId: string;
  ip: string;
  userAgent: string | undefined;
  /** The browser sent Global Privacy Control (`Sec-GPC: 1`). */
  gpc: boolean;
  events: TrackedEvent[];
  agent?: Agent;
  location?: Location;
  /** Who the visitor is with; `email` is set when this request identified the visitor. */
  organisation?: ResolvedOrganisation | null;
}

/** A named step; it may enrich the context and drop events with a reason. */
export interface Step {
  name: string;
  run(context: IngestContext, drop: Drop): void | Promise<void>;
}

type Drop = (reason: DropReason, which: (event: TrackedEvent) => boolean) => void;

const FEATURE_OF: Partial<Record<TrackedEvent['type'], keyof TrackingScript['features']>> = {
  form_submit: 'form_tracking',
  form_abandon: 'form_tracking',
  click: 'click_tracking',
  download: 'download_tracking',
};

/** The ingest path, in order. Each step sees only the events the steps before it kept. */
export function ingestSteps(geo: GeoLocator, resolvers: Resolver[]): Step[] {
  return [
    {
      name: 'drop_bots',
      run(context, drop) {
        context.agent = parseUserAgent(context.userAgent);
        if (context.agent.bot) drop('bot', () => true);
      },
    },
    {
      name: 'drop_gpc',
      run(context, drop) {
        if (context.gpc && context.script.honorGpc) drop('gpc', () => true);
      },
    },
    {
      name: 'drop_excluded_ip_ranges',
      run(context, drop) {
        // The customer's own office: its visits are not leads.
        if (context.script.filters.excludes(context.ip)) drop('excluded_ip_range', () => true);
      },
    },
    {
      name: 'drop_foreign_hostnames',
      run(context, drop) {
        // A copied snippet on someone else's site must not fill this workspace (or its limit).
        drop('foreign_hostname', (event) => !context.script.filters.acceptsPage(event.url));
      },
    },
    {
      name: 'drop_switched_off_features',
      run(context, drop) {
        const { features } = context.script;
        drop('feature_disabled', (event) => {
          const feature = FEATURE_OF[event.type];
          return feature !== undefined && !features[feature];
        });
      },
    },
    {
      name: 'locate',
      run(context) {
        context.location = geo.locate(context.ip);
      },
    },
    {
      name: 'resolve_organisation',
      async run(context) {
        context.organisation = await resolveOrganisation(resolvers, {
          ip: context.ip,
          workspaceId: context.script.workspaceId,
          visitorId: context.visitorId,
          emails: emailsOf(context.events),
        });
      },
    },
  ];
}

/** Runs the steps, counting what each drops; stops early when nothing is left. */
export async function runPipeline(
  steps: Step[],
  context: IngestContext,
  metrics: IngestMetrics,
  onDrop?: (reason: DropReason, events: number) => void,
): Promise<void> {
  for (const step of steps) {
    if (context.events.length === 0) return;
    // Most steps are synchronous: awaiting only a promise spares a turn of the queue each.
    const running = step.run(context, (reason, which) => {
      const kept = context.events.filter((event) => !which(event));
      const dropped = context.events.length - kept.length;
      if (dropped > 0) {
        metrics.dropped.inc({ step: step.name, reason }, dropped);
        onDrop?.(reason, dropped);
      }
      context.events = kept;
    });
    if (running) await running;
  }
}
