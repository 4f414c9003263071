import { Counter, Gauge, type Registry } from 'prom-client';
import type { OrganisationHint } from '../identify/ip-ranges.js';
import {
  type Autnum,
  addressNumber,
  type LookupCaches,
  RETRY_MS,
  type RegisteredNetwork,
} from './cache.js';
import { DeadlinePassed, HostGate, RateLimited, withDeadline } from './host-gate.js';
import type { Signal } from './signals.js';

/** A visitor whose visit waited for a lookup. */
export interface WaitingVisitor {
  workspaceId: string;
  visitorId: string;
}

/** What a visit may wait for: its PTR, its network's registration, its AS's registration. */
export type Need = 'registration' | 'reverse_dns' | 'autnum';
// The registration first: the PTR's judge reads it (the network's own provider domain).
const ORDER: Need[] = ['autnum', 'registration', 'reverse_dns'];
const SIGNAL_OF: Record<Need, string> = {
  autnum: 'network_owner',
  registration: 'registration',
  reverse_dns: 'reverse_dns',
};

/** The outside world as the queue asks it, every answer judged (enrich/ judges). */
export interface OnlineSources {
  /** The address's PTR, judged; throws when the DNS server does not answer. */
  reverseDns(address: string, signal: AbortSignal): Promise<Signal>;
  /** The host of the RDAP server asked about an address or an AS (for politeness). */
  rdapHost(query: { address: string } | { asn: number }): string;
  /** The narrowest registered network holding the address, judged; null when none is. */
  network(address: string, signal: AbortSignal): Promise<RegisteredNetwork | null>;
  /** What the AS's registration says; null when there is none. */
  autnum(asn: number, signal: AbortSignal): Promise<Autnum | null>;
}

/**
 * An error for the log by its kind only: messages of DNS and database errors may carry
 * the address asked about (`queryPtr ETIMEOUT 4.3.2.1.in-addr.arpa`).
 */
const described = (error: unknown): string =>
  (error as { code?: string } | null)?.code ??
  (error instanceof Error ? error.name : 'unknown error');

export interface QueueLimits {
  /** Addresses waiting at most; more are dropped (and counted). */
  addresses: number;
  /** Visitors waiting on one address at most. */
  visitorsPerAddress: number;
  /** Addresses looked up at once. */
  concurrency: number;
  /** Requests at once to one RDAP server. */
  perHost: number;
  dnsDeadlineMs: number;
  rdapDeadlineMs: number;
  /** How long the collector takes to write a visit, at most as a rule. */
  writeMs: number;
  /** The attribution runs again this long after a lookup named someone. */
  settleMs: number;
}

export const DEFAULT_LIMITS: QueueLimits = {
  addresses: 10_000,
  visitorsPerAddress: 100,
  concurrency: 8,
  perHost: 2,
  dnsDeadlineMs: 2_000,
  rdapDeadlineMs: 5_000,
  writeMs: 500,
  settleMs: 3_000,
};

export interface QueueDeps {
  caches: LookupCaches;
  sources: OnlineSources;
  /** The organisation the caches now name for an address (the resolvers that wait on lookups). */
  resolve(address: string): Promise<OrganisationHint | null>;
  /** Names the waiting visitors' unnamed sessions; the number of sessions named. */
  attribute(hint: OrganisationHint, visitors: WaitingVisitor[]): Promise<number>;
  registry: Registry;
  /** A failure worth an operator's eye; never given an address. */
  log(message: string): void;
}

/** One address and everything waiting on it. Held in memory only, never logged. */
interface Entry {
  address: string;
  /** When it was first asked for (Date.now()). */
  since: number;
  needs: Set<Need>;
  asn: number | null;
  /** Visitor ids by workspace: looked up without making a key per visit. */
  visitors: Map<string, Set<string>>;
  /** How many visitors wait, over every workspace. */
  waiting: number;
}

/** The visitors waiting on an entry, as a list. */
const visitorsOf = (entry: Entry): WaitingVisitor[] =>
  [...entry.visitors].flatMap(([workspaceId, ids]) =>
    [...ids].map((visitorId) => ({ workspaceId, visitorId })),
  );

const NO_PTR: Signal = { signal: 'reverse_dns', value: '', verdict: 'none' };

function queueMetrics(registry: Registry, size: () => number) {
  return {
    lookups: new Counter({
      name: 'footfall_lookups_total',
      help: 'Background lookups by signal and outcome (cached: from the database, no request)',
      labelNames: ['signal', 'outcome'] as const,
      registers: [registry],
    }),
    dropped: new Counter({
      name: 'footfall_lookups_dropped_total',
      help: 'Lookups not queued, by reason (the queue or an address’s waiting list was full)',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    attributed: new Counter({
      name: 'footfall_lookup_sessions_attributed_total',
      help: 'Sessions named after their lookups finished',
      registers: [registry],
    }),
    waiting: new Gauge({
      name: 'footfall_lookup_queue_addresses',
      help: 'Addresses waiting for or in a lookup',
      registers: [registry],
      collect() {
        this.set(size());
      },
    }),
  };
}

/** A rough block of an address, so lookups that will meet the same registration queue up. */
function blockOf(address: string): string {
  const number = addressNumber(address);
  if (!number) return address;
  const bits = number.family === 'ipv4' ? 8n : 80n; // a /24, a /48
  return `${number.family} ${number.value >> bits}`;
}

/**
 * The background lookups of contract §16, in the server process that collected: addresses
 * wait in memory (never in the database or a log), at most `addresses` of them, each with
 * the visitors waiting on it. Eight at a time are looked up, two at a time per RDAP
 * server, each question under a deadline, the caches before any outside request; when
 * the answers name an organisation, the waiting visitors are attributed.
 */
export class LookupQueue {
  private readonly pending = new Map<string, Entry>();
  private readonly active = new Map<string, Entry>();
  private readonly inFlight = new Map<string, Promise<boolean>>();
  private readonly hosts: HostGate;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly working = new Set<Promise<void>>();
  private readonly delayed = new Set<Promise<void>>();
  private readonly metrics;
  private state: 'idle' | 'running' | 'stopped' = 'idle';

  constructor(
    private readonly deps: QueueDeps,
    private readonly limits: QueueLimits = DEFAULT_LIMITS,
  ) {
    this.hosts = new HostGate(limits.perHost);
    this.metrics = queueMetrics(deps.registry, () => this.pending.size + this.active.size);
  }

  /**
   * Adds a visitor to an address already waiting for or in its lookups, whose answers are
   * therefore not all in the caches yet; false when the address is not queued.
   */
  join(address: string, visitor: WaitingVisitor | null): boolean {
    const entry = this.active.get(address) ?? this.pending.get(address);
    if (!entry || this.state === 'stopped') return false;
    if (visitor) this.addVisitor(entry, visitor);
    return true;
  }

  private addVisitor(entry: Entry, visitor: WaitingVisitor): void {
    let ids = entry.visitors.get(visitor.workspaceId);
    if (ids?.has(visitor.visitorId)) return;
    if (entry.waiting >= this.limits.visitorsPerAddress) {
      this.metrics.dropped.inc({ reason: 'visitors_full' });
      return;
    }
    if (!ids) {
      ids = new Set();
      entry.visitors.set(visitor.workspaceId, ids);
    }
    ids.add(visitor.visitorId);
    entry.waiting += 1;
  }

  /** Asks for lookups of an address on behalf of a visitor (null: nobody waits for them). */
  want(address: string, needs: Need[], visitor: WaitingVisitor | null, asn?: number): void {
    if (this.state === 'stopped') return;
    let entry = this.active.get(address) ?? this.pending.get(address);
    if (!entry) {
      if (this.pending.size >= this.limits.addresses) {
        this.metrics.dropped.inc({ reason: 'queue_full' });
        return;
      }
      entry = {
        address,
        since: Date.now(),
        needs: new Set(),
        asn: null,
        visitors: new Map(),
        waiting: 0,
      };
      this.pending.set(address, entry);
    }
    for (const need of needs) entry.needs.add(need);
    if (asn !== undefined) entry.asn = asn;
    if (visitor) this.addVisitor(entry, visitor);
    this.pump();
  }

  /** Starts the workers (a background job of the server); `stop` waits for those running. */
  start(): { stop(): Promise<void> } {
    if (this.state === 'idle') this.state = 'running';
    this.pump();
    return { stop: () => this.stop() };
  }

  async stop(): Promise<void> {
    this.state = 'stopped';
    this.pending.clear();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.allSettled([...this.working, ...this.delayed]);
  }

  private pump(): void {
    while (
      this.state === 'running' &&
      this.working.size < this.limits.concurrency &&
      this.pending.size > 0
    ) {
      const [address, entry] = this.pending.entries().next().value as [string, Entry];
      this.pending.delete(address);
      this.active.set(address, entry);
      const job: Promise<void> = this.work(entry)
        .catch((error: unknown) => this.deps.log(`lookups: a lookup failed (${described(error)})`))
        .finally(() => {
          if (this.active.get(address) === entry) this.active.delete(address);
          this.working.delete(job);
          this.pump();
        });
      this.working.add(job);
    }
  }

  private async work(entry: Entry): Promise<void> {
    const done = new Set<Need>();
    let restMs: number | null = null;
    for (let need = this.next(entry, done); need; need = this.next(entry, done)) {
      done.add(need);
      try {
        await this.lookUp(need, entry);
      } catch (error) {
        if (!(error instanceof RateLimited)) throw error;
        restMs = Math.max(restMs ?? 0, error.retryAfterMs);
      }
    }
    if (restMs !== null) {
      // A registry asked us to wait: the address and its visitors come back then (what
      // was answered meanwhile waits in the caches).
      this.later(restMs, () => this.requeue(entry));
      return;
    }
    // From here on a visit from this address is named from the caches, not queued again
    // (and the resolver, which a queued address answers LATER, reads them).
    this.active.delete(entry.address);
    const hint = await this.deps.resolve(entry.address);
    if (!hint) return;
    // A lookup answered from the caches ends before the visit that asked for it is
    // written: the first attribution waits for the writer, a second one catches sessions
    // that were being written while the first ran. On timers, so lookups go on meanwhile.
    const first = Math.max(0, entry.since + this.limits.writeMs - Date.now());
    this.later(first, () => this.attribute(hint, entry));
    this.later(first + this.limits.settleMs, () => this.attribute(hint, entry));
  }

  private next(entry: Entry, done: Set<Need>): Need | undefined {
    return ORDER.find((need) => entry.needs.has(need) && !done.has(need));
  }

  private async attribute(hint: OrganisationHint, entry: Entry): Promise<void> {
    try {
      this.metrics.attributed.inc(await this.deps.attribute(hint, visitorsOf(entry)));
    } catch (error) {
      this.deps.log(`lookups: attribution failed (${described(error)})`);
    }
  }

  private requeue(entry: Entry): void {
    const visitors = visitorsOf(entry);
    const needs = [...entry.needs];
    if (visitors.length === 0) this.want(entry.address, needs, null, entry.asn ?? undefined);
    for (const visitor of visitors)
      this.want(entry.address, needs, visitor, entry.asn ?? undefined);
  }

  /** Runs `run` after `ms` unless stopped first; `stop` waits for one that is running. */
  private later(ms: number, run: () => void | Promise<void>): void {
    if (this.state === 'stopped') return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (this.state === 'stopped') return;
      const running = Promise.resolve(run()).finally(() => this.delayed.delete(running));
      this.delayed.add(running);
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }

  private count(need: Need, outcome: string): void {
    this.metrics.lookups.inc({ signal: SIGNAL_OF[need], outcome });
  }

  /** A failed lookup is counted; a 429 rests its host and is not a failure of the address. */
  private failure(need: Need, error: unknown, query?: { address: string } | { asn: number }): void {
    if (error instanceof RateLimited) {
      if (query) this.hosts.pause(this.deps.sources.rdapHost(query), error.retryAfterMs);
      this.count(need, 'rate_limited');
      throw error;
    }
    this.count(need, error instanceof DeadlinePassed ? 'timeout' : 'failed');
  }

  private async lookUp(need: Need, entry: Entry): Promise<void> {
    const { caches, sources } = this.deps;
    const { address } = entry;
    if (need === 'reverse_dns') {
      if (caches.reverseDns(address) !== undefined) return;
      try {
        const signal = await withDeadline(this.limits.dnsDeadlineMs, (abort) =>
          sources.reverseDns(address, abort),
        );
        caches.rememberReverseDns(address, signal);
        this.count(need, signal.verdict === 'none' ? 'none' : 'answered');
      } catch (error) {
        caches.rememberReverseDns(address, NO_PTR, RETRY_MS);
        this.failure(need, error);
      }
      return;
    }
    if (need === 'registration') {
      await this.once(
        blockOf(address),
        () => caches.network(address) !== undefined,
        () => this.registration(address),
        () => {
          caches.networkFailed(address);
          this.count(need, 'failed');
        },
      );
      return;
    }
    const asn = entry.asn;
    if (asn === null) return;
    await this.once(
      `as ${asn}`,
      () => caches.autnum(asn) !== undefined,
      () => this.autnum(asn),
      () => caches.autnumFailed(asn),
    );
  }

  /** The registration of the address's network; false when the registry failed. */
  private async registration(address: string): Promise<boolean> {
    const { caches, sources } = this.deps;
    if (await caches.storedNetwork(address)) {
      this.count('registration', 'cached');
      return true;
    }
    let answered = false;
    try {
      const network = await this.hosts.run(sources.rdapHost({ address }), () =>
        withDeadline(this.limits.rdapDeadlineMs, (abort) => sources.network(address, abort)),
      );
      if (network) await caches.saveNetwork(network);
      this.count('registration', network ? 'answered' : 'none');
      answered = true;
    } catch (error) {
      this.failure('registration', error, { address });
    }
    // No record, a failure, or a record whose range does not hold the address: asked again
    // in an hour, not by every visit until then.
    if (caches.network(address) === undefined) caches.networkFailed(address);
    return answered;
  }

  /** The registration of an AS; false when the registry failed. */
  private async autnum(asn: number): Promise<boolean> {
    const { caches, sources } = this.deps;
    if (await caches.storedAutnum(asn)) {
      this.count('autnum', 'cached');
      return true;
    }
    try {
      const autnum = await this.hosts.run(sources.rdapHost({ asn }), () =>
        withDeadline(this.limits.rdapDeadlineMs, (abort) => sources.autnum(asn, abort)),
      );
      if (autnum) await caches.saveAutnum(autnum);
      else caches.autnumFailed(asn);
      this.count('autnum', autnum ? 'answered' : 'none');
      return true;
    } catch (error) {
      this.failure('autnum', error, { asn });
      caches.autnumFailed(asn);
      return false;
    }
  }

  /**
   * One lookup at a time per key (a block of addresses, an AS). Those that waited find its
   * answer in the caches; when it failed, they do not ask the failing registry again now
   * (`gaveUp`), so a dead registry costs one deadline per block, not one per address.
   */
  private async once(
    key: string,
    known: () => boolean,
    work: () => Promise<boolean>,
    gaveUp: () => void,
  ): Promise<void> {
    if (known()) return;
    for (let running = this.inFlight.get(key); running; running = this.inFlight.get(key)) {
      const answered = await running;
      if (known()) return;
      if (!answered) return gaveUp();
    }
    const running = work();
    // A registry's 429 is no failure of the others' addresses: they find its host resting.
    const settled = running.catch((error: unknown) => error instanceof RateLimited);
    this.inFlight.set(key, settled);
    try {
      await running;
    } finally {
      if (this.inFlight.get(key) === settled) this.inFlight.delete(key);
    }
  }
}
