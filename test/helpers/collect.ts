import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { Answer } from './app.js';

export const CHROME_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';

/**
 * The collector's rate limits count in fixed windows of a clock minute, emptied when the next
 * begins (src/http/rate-limits.ts): hits that straddle that moment start counting again.
 * Waits, when less than `needMs` of the current minute is left, for the next to begin, so
 * that a test's hits all fall in one window.
 */
export async function inOneRateWindow(needMs = 20_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < needMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

/**
 * Waits until the app at `base` has processed every acknowledged event (its inbox is empty,
 * as /metrics says): a 202 means stored, and sessions follow within seconds (contract §19).
 */
export async function processed(
  base: string,
  timeoutMs = 15_000,
  metricsToken?: string,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  const headers: Record<string, string> = metricsToken
    ? { authorization: `Bearer ${metricsToken}` }
    : {};
  for (;;) {
    const response = await fetch(`${base}/metrics`, { headers });
    const text = await response.text();
    const backlog = /^footfall_ingest_backlog_events (\d+)/m.exec(text)?.[1];
    if (backlog === '0') return;
    if (backlog === undefined) throw new Error(`no backlog in /metrics (${response.status})`);
    if (Date.now() > until) throw new Error(`${backlog} events still unprocessed`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Sends a collect request as the tracker does (text/plain, a browser's user agent); after a
 * 202 it waits until the events are processed, as a person reading the API a moment later
 * would find them (`{ wait: false }` answers at the acknowledgement).
 */
export function collector(base: string, options: { wait?: boolean; metricsToken?: string } = {}) {
  return async (body: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
    const response = await fetch(`${base}/t/collect`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain;charset=UTF-8', 'user-agent': CHROME_UA, ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {}
    if (response.status === 202 && options.wait !== false) {
      await processed(base, undefined, options.metricsToken);
    }
    return { status: response.status, headers: response.headers, body: parsed };
  };
}

/** A visit's body: its ids and events (ts in epoch ms). */
export function visit(
  trackingScriptId: string,
  events: Record<string, unknown>[],
  ids: { visitor?: string; session?: string } = {},
) {
  return {
    tracking_script_id: trackingScriptId,
    anonymous_id: ids.visitor ?? randomUUID(),
    session_uuid: ids.session ?? randomUUID(),
    events,
  };
}

export const pageview = (url: string, ts: number, referrer = '') => ({
  type: 'pageview',
  ts,
  url,
  referrer,
  title: 'A page',
});

/** An `identify` event: the visitor gave an email address on `url`. */
export const identify = (
  url: string,
  email: string,
  ts: number,
  traits: Record<string, unknown> = {},
) => ({ type: 'identify', ts, url, email, traits });

/**
 * A visit of yesterday to `site` (so its session ends at once) by a new visitor who gives
 * `email`, then views `paths`; fails the test unless the collector takes it.
 */
export async function visitYesterday(
  base: string,
  trackingScriptId: string,
  site: string,
  email: string,
  paths: string[],
): Promise<void> {
  const ts = Date.now() - 86_400_000;
  const answer = await collector(base)(
    visit(trackingScriptId, [
      identify(`${site}/`, email, ts),
      ...paths.map((path, i) => pageview(`${site}${path}`, ts + (i + 1) * 1000)),
    ]),
  );
  expect(answer.status).toBe(202);
}
