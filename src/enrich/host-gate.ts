// Politeness towards the servers the lookups ask (contract §16): a deadline per question,
// a few questions at a time per host, and rest for a host that asked for it.

/** An RDAP server answered 429: its host is left alone for `retryAfterMs`. */
export class RateLimited extends Error {
  constructor(readonly retryAfterMs: number) {
    super(`rate limited for ${Math.ceil(retryAfterMs / 1000)} s`);
    this.name = 'RateLimited';
  }
}

/** A question that outlived its deadline. */
export class DeadlinePassed extends Error {}

/** Runs `work` with an abort signal that fires, and a rejection, after `ms`. */
export async function withDeadline<T>(
  ms: number,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new DeadlinePassed());
    }, ms);
  });
  try {
    return await Promise.race([work(controller.signal), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** At most `perHost` requests at once to one host; a host that answered 429 rests a while. */
export class HostGate {
  private readonly busy = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();
  private readonly restUntil = new Map<string, number>();

  constructor(private readonly perHost: number) {}

  pause(host: string, ms: number): void {
    this.restUntil.set(host, Math.max(this.restUntil.get(host) ?? 0, Date.now() + ms));
  }

  private resting(host: string): number {
    const left = (this.restUntil.get(host) ?? 0) - Date.now();
    if (left <= 0) this.restUntil.delete(host);
    return Math.max(0, left);
  }

  async run<T>(host: string, work: () => Promise<T>): Promise<T> {
    if (this.resting(host) > 0) throw new RateLimited(this.resting(host));
    const busy = this.busy.get(host) ?? 0;
    if (busy < this.perHost) this.busy.set(host, busy + 1);
    // A finishing request hands its place over, so a newcomer cannot slip in between.
    else await new Promise<void>((resolve) => this.queueOf(host).push(resolve));
    try {
      const rest = this.resting(host);
      if (rest > 0) throw new RateLimited(rest);
      return await work();
    } finally {
      const next = this.waiting.get(host)?.shift();
      if (next) next();
      else if ((this.busy.get(host) ?? 1) <= 1) this.busy.delete(host);
      else this.busy.set(host, (this.busy.get(host) ?? 1) - 1);
    }
  }

  private queueOf(host: string): (() => void)[] {
    let queue = this.waiting.get(host);
    if (!queue) {
      queue = [];
      this.waiting.set(host, queue);
    }
    return queue;
  }
}
