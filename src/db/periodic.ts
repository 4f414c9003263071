/**
 * Runs `tick` every `intervalMs`, one at a time (a slow tick delays the next instead of
 * queueing more), until stopped; `stop` waits for a running tick to end. The timer does
 * not keep the process alive.
 */
export function runPeriodically(
  tick: (stopping: () => boolean) => Promise<void>,
  intervalMs: number,
): { stop(): Promise<void> } {
  let stopped = false;
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    if (stopped || running) return;
    running = tick(() => stopped).finally(() => {
      running = null;
    });
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
