import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Waits until `check` holds, polling every 100 ms; fails after `ms` (long enough for a busy
 * machine: a check that holds returns at once however long the limit).
 */
export async function until(check: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await sleep(100);
  }
}
