/**
 * `refresh`, run at most every `everyMs`: a caller past that time starts it (or joins the
 * run under way) and waits; the others go on with what the last run left.
 */
export function atMostEvery(everyMs: number, refresh: () => Promise<void>): () => Promise<void> {
  let started = 0;
  let running: Promise<void> | null = null;
  return async () => {
    if (Date.now() - started <= everyMs) return;
    started = Date.now();
    running ??= refresh().finally(() => {
      running = null;
    });
    await running;
  };
}
