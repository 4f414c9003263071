/**
 * Runs `tick` every `intervalMs` (and at once with `atStart`), one at a time (a slow tick
 * delays the next instead of queueing more), until stopped; `stop` waits for a running
 * tick to end. The timer does not keep the process alive.
 */
export function runPeriodically(
  tick: (stopping: () => boolean) => Promise<void>,
  intervalMs: number,
  options: { atStart?: boolean } = {},
): { stop(): Promise<void> } {
  let stopped = false;
  let running: Promise<void> | null = null;
  const fire = () => {
    if (stopped || running) return;
    running = tick(() => stopped).finally(() => {
      running = null;
    });
  };
  const timer = setInterval(fire, intervalMs);
  timer.unref();
  if (options.atStart) fire();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
