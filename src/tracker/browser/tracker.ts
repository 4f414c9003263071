// The Footfall tracker, bundled by esbuild and served at /t/{tracking_script_id}.js with
// the workspace's settings in __FOOTFALL__. It must never throw into the host page.
// Every byte is served on every page (at most 2,500 gzipped, docs/performance.md), so it is
// written for gzip after minifying: globals used often are read into locals the minifier
// can shorten, and a phrase used twice is often cheaper repeated than made a helper.
import {
  hasCardNumber,
  MAX_FIELDS,
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
const DOWNLOAD =
  /\.(pdf|docx?|xlsx?|pptx?|csv|txt|rtf|od[tsp]|zip|rar|7z|t?gz|tar|bz2|dmg|exe|msi|pkg|deb|rpm|apk|iso|mp[34]|mov|avi|wav|mkv|webm|epub)$/i;
const SKIPPED_INPUTS = /^(password|hidden|file|submit|button|reset|image)$/;

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

// At most `max` UTF-16 units, never half a surrogate pair (half an emoji): the collector
// refuses a batch holding one, so the whole visit would be lost.
const cut = (text: string, max: number) => text.slice(0, max).replace(/[\ud800-\udbff]$/, '');

// A random (version 4) UUID: a blob URL ends in one (File API), in every browser and on
// http pages too, where crypto.randomUUID is missing. The empty blob lives with the page.
const uuid = () => URL.createObjectURL(new Blob()).slice(-36);

// First-party storage for the ids. Where it is refused (it throws, or is null in some
// privacy modes), they last as long as the page.
let store: Record<string, string> = {};
try {
  store = localStorage || store;
} catch {}

function start(stub: Footfall | undefined) {
  // Paths (a server without PUBLIC_URL) are relative to this script's own address.
  const here = (doc.currentScript as HTMLScriptElement).src;
  const endpoint = new URL(settings.endpoint, here);
  // A browser sending Global Privacy Control, where the workspace honours it, is never tracked.
  const optedOut =
    settings.gpc && (navigator as { globalPrivacyControl?: boolean }).globalPrivacyControl;
  let consent = !optedOut && !doc.querySelector('script[data-wait-for-consent]');
  // Hash-routed sites opt in on the snippet's tag: each `#/route` is then a page of its own.
  const hashRouting = !!doc.querySelector('script[data-hash-routing]');
  let queue: object[] = [];
  // The collect requests in flight: Spotter asks once they are stored.
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
  const ids = (): [string, string] => {
    store.ff_v ||= uuid();
    const [session, last] = (store.ff_s || '').split('.');
    const current = session && now() - +(last as string) < IDLE_MS ? session : uuid();
    store.ff_s = `${current}.${now()}`;
    return [store.ff_v, current];
  };

  // At most 50 events a request (the collector takes 100).
  const send = (beacon?: boolean) => {
    if (consent && queue.length) {
      const [visitor, session] = ids();
      const body = JSON.stringify({
        tracking_script_id: settings.id,
        anonymous_id: visitor,
        session_uuid: session,
        events: queue.splice(0, 50),
      });
      if (!(beacon && navigator.sendBeacon(endpoint, body))) {
        // Spotter waits for every request so far.
        sent = Promise.all([
          sent,
          fetch(endpoint, { method: 'POST', body, keepalive: true }).catch(() => {}),
        ]);
      }
      send(beacon);
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
    // The first event queued sends the batch 300 ms later. A timer still pending after an
    // early send finds nothing left, or what came since.
    if (queue.push({ type, ts, url, ...fields }) === 1) setTimeout(safe(send), 300);
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
        !SKIPPED_INPUTS.test(type) &&
        !(/^(checkbox|radio)$/.test(type) && !element.checked) &&
        !sensitiveName(`${name} ${element.id}`) &&
        !SENSITIVE_AUTOCOMPLETE.test(element.getAttribute('autocomplete') || '') &&
        !hasCardNumber(value) &&
        fields.length < MAX_FIELDS
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
        time_spent: Math.round((now() - (startedForms.get(form) || now())) / 1000),
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
      push('page_leave', { time_on_page: Math.round((at - pageStart) / 1000) }, pageUrl, at);
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

  const commands: Record<string, (a?: unknown, b?: unknown) => unknown> = {
    track(name, props) {
      const properties: Record<string, unknown> = {};
      for (const key in props as object) {
        const value = (props as Record<string, unknown>)[key];
        if (/^(string|number|boolean)$/.test(typeof value)) properties[key] = value;
      }
      push('custom', { name: String(name), properties });
    },
    identify(email, traits) {
      push('identify', { email: String(email), traits: traits || {} });
      flush();
    },
    // The current address, recorded now unless it is the page already recorded.
    page() {
      changed();
      settle();
    },
    // The visitor's organisation, asked once per page, once what is pending is stored, and
    // only with consent; null otherwise.
    spotter(callback) {
      flush();
      const answer = sent
        .then(() => {
          if (!consent) return null;
          spotted ??= fetch(new URL(`${settings.spotter}?visitor=${ids()[0]}`, here))
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
        text: cut(link.innerText.trim(), 200),
      });
      flush();
    }
  });
  // Hidden may be for good (the tab closed, the page left or cached): send what is pending.
  listen('visibilitychange', () => {
    if (doc.hidden) {
      settle();
      leave();
      hidden = true;
      send(true);
    } else hidden = false;
  });
  // pagehide, never unload, which would keep the page out of the back-forward cache. A page
  // left also abandons its unsent forms.
  listen('pagehide', () => {
    settle();
    leave(true);
    hidden = true;
    send(true);
  });
  // Back or Forward restored the page from that cache: it is shown again, a view of its own.
  listen('pageshow', (event) => {
    if ((event as PageTransitionEvent).persisted) {
      pageUrl = '';
      hidden = false;
      changed();
      settle();
    }
  });

  changed();
  for (const args of stub?.q ?? []) api(...(args as [string, unknown, unknown]));
}

safe(() => {
  // Included twice: the first copy does the work.
  if (!win.footfall?.loaded) start(win.footfall);
})();
