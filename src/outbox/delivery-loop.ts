import { runPeriodically } from '../db/periodic.js';

/**
 * What an outbox hands the delivery loop: how to claim, attempt, renew and hand back its
 * items. The loop knows nothing of what is delivered, or to whom.
 */
export interface Outbox<T> {
  /** Attempts in flight in one server, and at most this many of them for one tenant. */
  inFlight: number;
  perTenant: number;
  tenantOf(item: T): string;
  /**
   * Claims and leases up to `free` due items, none for a tenant beyond `perTenant` counting
   * `busy` (the tenants' attempts in flight in this server).
   */
  claim(free: number, busy: ReadonlyMap<string, number>): Promise<T[]>;
  /**
   * One attempt. `signal` aborts when the server stops or the item's lease was lost; an
   * attempt cut short without an outcome answers 'unfinished' and writes nothing.
   */
  attempt(item: T, signal: AbortSignal): Promise<'done' | 'unfinished'>;
  /** Hands claimed items back, due at once and their attempt not counted. */
  release(items: T[]): Promise<void>;
  /** Extends the leases of the items in flight, answering those whose lease was lost. */
  renew?: { everyMs: number; run(items: T[]): Promise<T[]> };
  /** Work done before each poll's claim (the webhook outbox queues ended sessions). */
  beforeClaim?(): Promise<unknown>;
  /** Reports an error of an attempt (with its item) or of the loop's own work. */
  failed(error: Error, item?: T): void;
}

export class LeaseLost extends Error {
  constructor() {
    super('the lease was lost: another worker holds the delivery');
    this.name = 'LeaseLost';
  }
}

/**
 * Runs an outbox's deliveries, each on its own: nothing waits for an attempt but its own
 * bookkeeping. Every `pollMs`, and whenever an attempt ends while claims were waiting for a
 * slot, it claims due items into the free slots (one claimer at a time, so the caps are
 * counted right). `stop` aborts the attempts in flight and hands back those cut short.
 */
export function startDeliveryLoop<T>(outbox: Outbox<T>, pollMs: number): { stop(): Promise<void> } {
  const perTenant = new Map<string, number>();
  const running = new Map<T, { done: Promise<void>; abort: AbortController }>();
  const stopping = new AbortController();
  let filling: Promise<void> | null = null;
  // Set when the last fill ran out of slots, so a finished attempt makes room for the next.
  let more = false;

  const start = (item: T) => {
    const tenant = outbox.tenantOf(item);
    perTenant.set(tenant, (perTenant.get(tenant) ?? 0) + 1);
    const abort = new AbortController();
    const stop = () => abort.abort(stopping.signal.reason);
    stopping.signal.addEventListener('abort', stop, { once: true });
    const done = outbox
      .attempt(item, abort.signal)
      .then(async (outcome) => {
        // Cut short by the stop (not by a lost lease): back to the queue, uncounted.
        if (outcome === 'unfinished' && !(abort.signal.reason instanceof LeaseLost)) {
          await outbox.release([item]);
        }
      })
      .catch((error) => outbox.failed(error as Error, item))
      .finally(() => {
        stopping.signal.removeEventListener('abort', stop);
        running.delete(item);
        const left = (perTenant.get(tenant) ?? 1) - 1;
        if (left > 0) perTenant.set(tenant, left);
        else perTenant.delete(tenant);
        if (more) fill();
      });
    running.set(item, { done, abort });
  };

  const claimWhileFree = async () => {
    for (;;) {
      const free = outbox.inFlight - running.size;
      more = free === 0;
      if (free === 0) return;
      const claimed = await outbox.claim(free, perTenant);
      if (stopping.signal.aborted) return outbox.release(claimed);
      for (const item of claimed) start(item);
      if (claimed.length === 0) return;
    }
  };
  const fill = (): Promise<void> => {
    if (stopping.signal.aborted) return Promise.resolve();
    filling ??= claimWhileFree()
      .catch((error) => outbox.failed(error as Error))
      .finally(() => {
        filling = null;
      });
    return filling;
  };

  const polls = runPeriodically(async () => {
    try {
      await outbox.beforeClaim?.();
    } catch (error) {
      outbox.failed(error as Error);
    }
    await fill();
  }, pollMs);

  // An attempt whose lease is lost is aborted: it must stop before another worker's starts.
  const renewals =
    outbox.renew &&
    runPeriodically(async () => {
      if (running.size === 0 || !outbox.renew) return;
      try {
        for (const item of await outbox.renew.run([...running.keys()])) {
          running.get(item)?.abort.abort(new LeaseLost());
        }
      } catch (error) {
        outbox.failed(error as Error);
      }
    }, outbox.renew.everyMs);

  return {
    async stop() {
      await polls.stop();
      stopping.abort(new Error('the server stopped during the attempt'));
      await filling;
      await Promise.all([...running.values()].map((attempt) => attempt.done));
      await renewals?.stop();
    },
  };
}

/**
 * A deadline for one attempt (or one message): a signal that aborts after `seconds` with
 * `no answer within N s`, or when `parent` aborts. `clear` once the work is over.
 */
export function deadline(
  parent: AbortSignal,
  seconds: number,
): { signal: AbortSignal; clear(): void } {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new Error(`no answer within ${seconds} s`)),
    seconds * 1000,
  );
  const stop = () => controller.abort(parent.reason);
  if (parent.aborted) stop();
  parent.addEventListener('abort', stop, { once: true });
  return {
    signal: controller.signal,
    clear() {
      clearTimeout(timer);
      parent.removeEventListener('abort', stop);
    },
  };
}
