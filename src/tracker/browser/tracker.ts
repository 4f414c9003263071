// The Footfall tracker, bundled by esbuild and served at /t/{tracking_script_id}.js with
// the workspace's settings in __FOOTFALL__. It must never throw into the host page.
// Every byte is served on every page (at most 2,500 gzipped, docs/performance.md), so it is
// written for gzip after minifying: globals used often are read into locals the minifier
// can shorten, and a phrase used twice is often cheaper repeated than made a helper.
import {
  hasCardNumber,
  MAX_VALUE_LENGTH,
  redactUrl,
  SENSITIVE_AUTOCOMPLETE,
  sensitiveName,
} from '../../ingest/sensitive.js';
import type { TrackerSettings } from '../settings.js';

declare const __FOOTFALL__: TrackerSettings;

type Call = (command: string, a?: unknown, b?: unknown) => unknown;
interface Footfall extends Call {
  q?: ArrayLike<unknown>[];
  loaded?: boolean;
}

const IDLE_MS = 18e5; // 30 minutes
// The quiet time after the last change of address before a page view is recorded.
const SETTLE_MS = 500;
// Documents, sheets, slides, archives, installers and video: what B2B sites link to. Other
// files count when their link has `download`.
const DOWNLOAD = /\.(pdf|(doc|xls|ppt)x?|csv|zip|dmg|exe)$/i;
// Password, hidden, file, submit, button, reset and image inputs, by the start of their type
// (no other type starts so; fieldsets have no value), and an unchecked box or radio button:
// read with `checked` after the type.
const SKIPPED_INPUTS = /^(pa|h|fi|su|bu|res|im|(che|rad)\w+false)/;

const win = window as unknown as Window & { footfall?: Footfall };
const doc = document;
const settings = __FOOTFALL__;
const now = Date.now;

// biome-ignore lint/suspicious/noExplicitAny: wraps any handler
const safe = <F extends (...args: any[]) => unknown>(fn: F) =>
  ((...args: Parameters<F>) => {
    try {
      return fn(...args);
    } catch {}
  }) as F;

// At most `max` characters (code points), never half a surrogate pair (half an emoji): the
// collector refuses a batch holding one, so the whole visit would be lost.
const cut = (text: string, max: number) => [...text].slice(0, max).join('');

// A random (version 4) UUID, lower case. crypto.randomUUID needs a secure context; on http
// pages a blob URL ends in one (File API), in every browser, 46 bytes less than building it
// from getRandomValues. Each empty blob lives with the page.
const uuid = (): string => crypto.randomUUID?.() || URL.createObjectURL(new Blob()).slice(-36);

// First-party storage for the ids and the unsent events. Where it is refused (it throws, or
// is null in some privacy modes), they last as long as the page.
let store: Record<string, string> = {};
// Events not yet answered by the collector, oldest first, at most 100; those in flight stay
// too (until a 202, or a refusal that sending again cannot mend). They start with what a page
// before this one left (contract §19); missing or unreadable, the parse throws: none.
let queue: object[] = [];
try {
  store = localStorage || store;
  queue = JSON.parse(store.ff_q as string);
} catch {}

function start(stub: Footfall | undefined) {
  // Paths (a server without PUBLIC_URL) are relative to this script's own address.
  const here = (doc.currentScript as HTMLScriptElement).src;
  const endpoint = new URL(settings.endpoint, here);
  // A browser sending Global Privacy Control, where the workspace honours it, is never tracked.
  const optedOut =
    settings.gpc && (navigator as { globalPrivacyControl?: boolean }).globalPrivacyControl;
  let consent = !optedOut && !doc.querySelector('[data-wait-for-consent]');
  // Hash-routed sites opt in on the snippet's tag: each `#/route` is then a page of its own.
  const hashRouting = doc.querySelector('[data-hash-routing]') as unknown as boolean;
  // A request is being answered (1), or the wait after a failure is on (its timer).
  let busy: unknown = 0;
  let failures = 0;
  // The requests until the queue is stored: Spotter asks after them.
  let sent: Promise<unknown> = Promise.resolve();
  let spotted: Promise<unknown> | undefined;
  // The page being shown, as recorded, and since when.
  let pageUrl = '';
  let pageStart = 0;
  // When the address first changed since the page was recorded (0: nothing pending); for
  // the landing page, when it was asked for: a slow first load is time on it too.
  let changedAt = performance.timeOrigin;
  let settling: ReturnType<typeof setTimeout> | undefined;
  let hidden = false;
  const startedForms = new Map<HTMLFormElement, number>();

  // Visitor id kept for good; session id rotated after 30 idle minutes.
  const ids = () => {
    store.ff_v ||= uuid();
    // `{uuid}.{time}`; missing, its time reads as 0, long ago.
    const session = store.ff_s || '';
    const current =
      now() - (session.slice(37) as unknown as number) < IDLE_MS ? session.slice(0, 36) : uuid();
    store.ff_s = `${current}.${now()}`;
    return { anonymous_id: store.ff_v, session_uuid: current };
  };

  // Stored as it changes (with consent only; a full storage must not stop the tracker): what
  // is not answered yet is what the next page load sends.
  const keep = safe(() => {
    if (consent) store.ff_q = JSON.stringify(queue);
  });

  // One request at a time, of at most 50 events (the collector takes 100); what comes while
  // it is answered goes with the next.
  const send = (beacon?: boolean): unknown => {
    const events = queue.slice(0, 50);
    if (consent && events[0] && (beacon || !busy)) {
      const body = JSON.stringify({
        tracking_script_id: settings.id,
        ...ids(),
        events,
      });
      // A beacon (the page is going) cannot say how it fared: its events leave this page's
      // queue but stay stored (until the queue is stored again: the page lived on), for the
      // next page load to send again, which their ids make harmless. Past 50, they wait.
      if (beacon && navigator.sendBeacon(endpoint, body)) queue.splice(0, 50);
      else {
        busy = 1;
        // Spotter waits for this, and so for every event queued until now.
        sent = fetch(endpoint, { method: 'POST', body, keepalive: true })
          .then((response) => {
            // 429 and up, rate limited (429) or overloaded (503, any 5xx): later. Any other
            // answer is final, a refusal (400, 404, 410, 413) too.
            if (response.status > 428) throw response.headers.get('retry-after');
            busy = failures = 0;
            queue = queue.filter((event) => !events.includes(event));
            keep();
            return send();
          })
          .catch((retryAfter) => {
            // Retry-After when the collector gives one (and lets it be read), else 1 s doubling
            // up to 30 s; then up to as long again at random, so visitors turned away together
            // come back apart.
            busy = setTimeout(
              safe(() => {
                busy = 0;
                send();
              }),
              (+retryAfter || Math.min(30, 2 ** failures++)) * (1 + Math.random()) * 1e3,
            );
          });
        return sent;
      }
    }
  };

  // What is pending goes now: the page that has settled so far, then the queue.
  const flush = () => {
    settle();
    send();
  };

  const push = (
    type: string,
    fields: object,
    url = redactUrl(location.href, hashRouting),
    ts = now(),
  ) => {
    // Sent once the task that queued it is over, with the events it queued after; or with
    // the next request, or the next retry. Past 100, the oldest goes.
    if (queue.push({ id: uuid(), type, ts, url, ...fields }) > 100) queue.shift();
    keep();
    setTimeout(safe(send));
  };

  const formEvent = (type: string, form: HTMLFormElement, url?: string) => {
    if (!settings.forms) return;
    const fields: { name: string; value: string }[] = [];
    for (const element of form.elements as unknown as Iterable<HTMLInputElement>) {
      const name = element.name || element.id;
      const type = element.type;
      // Fieldsets and objects have no value.
      const value: string = element.value || '';
      if (
        name &&
        !SKIPPED_INPUTS.test(type + element.checked) &&
        !sensitiveName(`${name} ${element.id}`) &&
        !SENSITIVE_AUTOCOMPLETE.test(element.getAttribute('autocomplete') || '') &&
        !hasCardNumber(value)
      ) {
        fields.push({ name, value: cut(value, MAX_VALUE_LENGTH) });
      }
    }
    push(
      type,
      {
        // Read as attributes: a field named `id` or `name` shadows the form's own properties.
        form_id: form.getAttribute('id') || '',
        form_name: form.getAttribute('name') || '',
        time_spent: (now() - (startedForms.get(form) || now())) / 1e3,
        fields,
      },
      url,
    );
    startedForms.delete(form);
  };

  // Leaving the recorded page: its time carries its own address (once, however often
  // hidden), and so do the forms begun on it (before the address changed) and left unsent.
  const leave = (forms?: boolean, at = now()) => {
    for (const [form, since] of startedForms) {
      if (forms && since <= at) formEvent('form_abandon', form, pageUrl);
    }
    if (pageUrl && !hidden) {
      push('page_leave', { time_on_page: (at - pageStart) / 1e3 }, pageUrl, at);
    }
  };

  // The address changed. Routers set the title after pushState, redirect with replaceState
  // and undo blocked popstates, so the page is recorded once all is quiet.
  const changed = () => {
    changedAt ||= now();
    clearTimeout(settling);
    settling = setTimeout(safe(settle), SETTLE_MS);
  };

  // Run early (flush, pagehide), it leaves the timer nothing to do.
  const settle = () => {
    const at = changedAt;
    const url = redactUrl(location.href, hashRouting);
    changedAt = 0;
    if (at && url !== pageUrl) {
      leave(true, at);
      push('pageview', { referrer: pageUrl || redactUrl(doc.referrer), title: doc.title }, url, at);
      pageUrl = url;
      pageStart = at;
    }
  };

  // Only strings, numbers and booleans are kept: the collector refuses other properties, and a
  // queued event that cannot be sent as JSON (a cycle, a BigInt) would hold up the rest.
  const scalars = (object: unknown) => {
    const kept: Record<string, unknown> = {};
    for (const key in object as object) {
      const value = (object as Record<string, unknown>)[key];
      // string, symbol (left out by JSON), number, boolean; not bigint
      if (/^(s|n|bo)/.test(typeof value)) kept[key] = value;
    }
    return kept;
  };

  const commands: Record<string, (a?: unknown, b?: unknown) => unknown> = {
    track(name, props) {
      push('custom', { name: `${name}`, properties: scalars(props) });
    },
    identify(email, traits) {
      push('identify', { email: `${email}`, traits: scalars(traits) });
      flush();
    },
    // The visitor's organisation, asked once per page, once what is pending is stored, and
    // only with consent; null otherwise.
    spotter(callback) {
      flush();
      const answer = sent
        .then(() => {
          if (!consent) return null;
          spotted ??= fetch(new URL(`${settings.spotter}?visitor=${ids().anonymous_id}`, here))
            .then((response) => response.json())
            .then((body) => body.data.organisation);
          return spotted;
        })
        .catch(() => null);
      // safe() also stands for a callback that is no function.
      answer.then(safe(callback as (o: unknown) => void));
      return answer;
    },
    consent(given) {
      consent = !optedOut && given !== false;
      if (consent) flush();
      else {
        queue = [];
        delete store.ff_v;
        delete store.ff_s;
        delete store.ff_q;
      }
    },
  };
  const api: Footfall = safe((command: string, a?: unknown, b?: unknown) =>
    (commands[command] as Call)(a, b),
  );
  api.loaded = true;
  win.footfall = api;

  // On window, capturing: the page's own handlers cannot stop an event before it is seen
  // (visibilitychange, fired at the document, bubbles up to window too).
  const listen = (type: string, handler: (event: Event) => void) =>
    win.addEventListener(type, safe(handler), true);

  // Runs `first` (safely) before one of the page's own methods, which then works as it did.
  const before = <T extends object>(target: T, method: string, first: (self: T) => void) => {
    const original = target[method as keyof T] as (...args: unknown[]) => unknown;
    (target as Record<string, unknown>)[method] = function (this: T, ...args: unknown[]) {
      safe(first)(this);
      return original.apply(this, args);
    };
  };
  // Routers change the address with these; it is read once the change has settled.
  before(history, 'pushState', changed);
  before(history, 'replaceState', changed);
  // A form sent by script (form.submit()) fires no submit event.
  before(HTMLFormElement.prototype, 'submit', (form) => formEvent('form_submit', form));
  listen('popstate', changed);
  listen('input', (event) => {
    const form = (event.target as HTMLInputElement).form;
    if (form) startedForms.set(form, startedForms.get(form) || now());
  });
  listen('submit', (event) => formEvent('form_submit', event.target as HTMLFormElement));
  // A reset form is back to its defaults: nothing the visitor typed is left to abandon.
  listen('reset', (event) => startedForms.delete(event.target as HTMLFormElement));
  listen('click', (event) => {
    const link = (event.target as Element).closest('a[href]') as HTMLAnchorElement | null;
    const download = link && (link.hasAttribute('download') || DOWNLOAD.test(link.pathname));
    if (link && (download ? settings.downloads : settings.clicks && link.host !== location.host)) {
      push(download ? 'download' : 'click', {
        href: redactUrl(link.href, hashRouting),
        // Cut by the collector (1,000 characters), as it cuts titles.
        text: link.innerText,
      });
      flush();
    }
  });
  // Hidden may be for good (the tab closed, the page left or cached): send what is pending.
  // Mostly the page lives on (another tab), so a fetch, whose answer it can read; keepalive
  // carries it through an unload. Shown again, a page back from the back-forward cache (left
  // below) is a view of its own; from another tab, the same view.
  listen('visibilitychange', () => {
    if (doc.hidden) {
      settle();
      leave();
      hidden = true;
      send();
    } else {
      hidden = false;
      changed();
    }
  });
  // pagehide, never unload, which would keep the page out of the back-forward cache. A page
  // left also abandons its unsent forms. By beacon, however long the collector asked to wait:
  // it is the last chance of a visitor whose storage is refused.
  listen('pagehide', () => {
    settle();
    leave(true);
    hidden = true;
    send(true);
    // Shown again, from the back-forward cache, it is a view of its own.
    pageUrl = '';
  });

  changed();
  for (const args of stub?.q ?? []) api(...(args as [string, unknown, unknown]));
}

safe(() => {
  // Included twice: the first copy does the work.
  if (!win.footfall?.loaded) start(win.footfall);
})();
