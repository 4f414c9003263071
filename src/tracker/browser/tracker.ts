// The Footfall tracker, bundled by esbuild and served at /t/{tracking_script_id}.js with
// the workspace's settings in __FOOTFALL__. It must never throw into the host page.
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
type Queued = IArguments | unknown[];
interface Footfall extends Call {
  q?: Queued[];
  loaded?: boolean;
}

const IDLE_MS = 18e5; // 30 minutes
// The quiet time after the last change of address before a page view is recorded.
const SETTLE_MS = 500;
const DOWNLOAD =
  /\.(pdf|docx?|xlsx?|pptx?|csv|txt|rtf|od[tsp]|zip|rar|7z|t?gz|tar|bz2|dmg|exe|msi|pkg|deb|rpm|apk|iso|mp[34]|mov|avi|wav|mkv|webm|epub)$/i;
const SKIPPED_INPUTS = /^(password|hidden|file|submit|button|reset|image)$/;

const win = window as unknown as { footfall?: Footfall };
const doc = document;
const settings = __FOOTFALL__;
// Paths (a server without PUBLIC_URL) are relative to this script's own address.
const here = (
  (doc.currentScript ||
    doc.querySelector(`script[src*="/t/${settings.id}.js"]`)) as HTMLScriptElement | null
)?.src;
if (here) {
  settings.endpoint = new URL(settings.endpoint, here).href;
  settings.spotter = new URL(settings.spotter, here).href;
}

// biome-ignore lint/suspicious/noExplicitAny: wraps any handler
const safe = <F extends (...args: any[]) => unknown>(fn: F) =>
  ((...args: Parameters<F>) => {
    try {
      return fn(...args);
    } catch {}
  }) as F;

const now = () => Date.now();
const seconds = (since: number, at = now()) => Math.round((at - since) / 1000);

// A random (version 4) UUID; crypto.randomUUID exists only on https pages.
const uuid = () =>
  '10000000-1000-4000-8000-100000000000'.replace(/[018]/g, (c) =>
    (+c ^ ((crypto.getRandomValues(new Uint8Array(1))[0] as number) & (15 >> (+c / 4)))).toString(
      16,
    ),
  );

// Where localStorage is refused (privacy modes), ids last as long as the page.
const memory: Record<string, string> = {};

/** Reads a stored value; with a value, stores it first; with null, removes it. */
function storage(key: string, value?: string | null): string | undefined {
  try {
    if (value === null) delete localStorage[key];
    else if (value) localStorage[key] = value;
    return localStorage[key];
  } catch {
    if (value !== undefined) memory[key] = value as string;
    return memory[key];
  }
}

function start(stub: Footfall | undefined) {
  // A browser sending Global Privacy Control, where the workspace honours it, is never tracked.
  const optedOut =
    settings.gpc && (navigator as { globalPrivacyControl?: boolean }).globalPrivacyControl;
  const tagged = (attribute: string) => doc.querySelector(`script[data-${attribute}]`);
  let consent = !optedOut && !tagged('wait-for-consent');
  // Hash-routed sites opt in on the snippet's tag: each `#/route` is then a page of its own.
  const hashRouting = !!tagged('hash-routing');
  let queue: Record<string, unknown>[] = [];
  let timer: ReturnType<typeof setTimeout> | 0 = 0;
  // The collect requests in flight: Spotter asks once they are stored.
  let sent: Promise<unknown> = Promise.resolve();
  let spotted: Promise<unknown> | undefined;
  // The page being shown, as recorded, and since when.
  let pageUrl = '';
  let pageStart = 0;
  // When the address first changed since the page was recorded (0: nothing pending).
  let changedAt = 0;
  let settling: ReturnType<typeof setTimeout> | undefined;
  let hidden = false;
  const startedForms = new Map<HTMLFormElement, number>();

  const address = () => redactUrl(location.href, hashRouting);

  // Visitor id kept for good; session id rotated after 30 idle minutes.
  function ids(): [string, string] {
    const visitor = storage('ff_v') || (storage('ff_v', uuid()) as string);
    const [session, last] = (storage('ff_s') || '').split('.');
    const current = session && now() - Number(last) < IDLE_MS ? session : uuid();
    storage('ff_s', `${current}.${now()}`);
    return [visitor, current];
  }

  function send(beacon?: boolean) {
    clearTimeout(timer);
    timer = 0;
    if (!consent || !queue.length) return;
    const [visitor, session] = ids();
    const requests: Promise<unknown>[] = [];
    while (queue.length) {
      const body = JSON.stringify({
        tracking_script_id: settings.id,
        anonymous_id: visitor,
        session_uuid: session,
        events: queue.splice(0, 50),
      });
      if (!(beacon && navigator.sendBeacon?.(settings.endpoint, body))) {
        requests.push(
          fetch(settings.endpoint, {
            method: 'POST',
            body,
            keepalive: true,
            credentials: 'omit',
          }).catch(() => {}),
        );
      }
    }
    sent = Promise.all(requests);
  }

  // What is pending goes now: the page that has settled so far, then the queue.
  function flush(beacon?: boolean) {
    settle();
    send(beacon);
  }

  // The visitor's organisation, asked once per page and only with consent; null otherwise.
  function spotter(): Promise<unknown> {
    if (!consent) return Promise.resolve(null);
    flush();
    spotted ??= sent
      .then(() => fetch(`${settings.spotter}?visitor=${ids()[0]}`, { credentials: 'omit' }))
      .then((response) => response.json())
      .then((body) => body.data.organisation)
      .catch(() => null);
    return spotted;
  }

  function push(type: string, fields: object, url = address(), ts = now()) {
    queue.push({ type, ts, url, ...fields });
    timer ||= setTimeout(safe(send), 300);
  }

  function formEvent(type: string, form: HTMLFormElement, url?: string) {
    if (!settings.forms) return;
    const fields: { name: string; value: string }[] = [];
    for (const element of form.elements as unknown as Iterable<HTMLInputElement>) {
      const name = element.name || element.id;
      const type = element.type;
      const value = String(element.value ?? '');
      if (
        !name ||
        SKIPPED_INPUTS.test(type) ||
        ((type === 'checkbox' || type === 'radio') && !element.checked) ||
        sensitiveName(`${name} ${element.id}`) ||
        SENSITIVE_AUTOCOMPLETE.test(element.getAttribute('autocomplete') || '') ||
        hasCardNumber(value) ||
        fields.length >= MAX_FIELDS
      ) {
        continue;
      }
      fields.push({ name, value: value.slice(0, MAX_VALUE_LENGTH) });
    }
    push(
      type,
      {
        form_id: form.getAttribute('id') || '',
        form_name: form.getAttribute('name') || '',
        time_spent: seconds(startedForms.get(form) ?? now()),
        fields,
      },
      url,
    );
    startedForms.delete(form);
  }

  // Leaving the recorded page: its time carries its own address (once, however often hidden).
  function leave(at = now()) {
    if (pageUrl && !hidden) {
      push('page_leave', { time_on_page: seconds(pageStart, at) }, pageUrl, at);
    }
  }

  // Forms begun on the recorded page (before the address changed) and left unsent belong
  // to that page too.
  function abandon(before = now()) {
    for (const [form, since] of startedForms) {
      if (since <= before) formEvent('form_abandon', form, pageUrl);
    }
  }

  // The address changed. Routers set the title after pushState, redirect with replaceState
  // and undo blocked popstates, so the page is recorded once all is quiet.
  function changed() {
    changedAt ||= now();
    clearTimeout(settling);
    settling = setTimeout(safe(settle), SETTLE_MS);
  }

  function settle() {
    clearTimeout(settling);
    const at = changedAt;
    const url = address();
    changedAt = 0;
    if (!at || url === pageUrl) return;
    leave(at);
    abandon(at);
    push('pageview', { referrer: pageUrl || redactUrl(doc.referrer), title: doc.title }, url, at);
    pageUrl = url;
    pageStart = at;
  }

  const commands: Record<string, (a?: unknown, b?: unknown) => unknown> = {
    track(name, props) {
      const properties: Record<string, unknown> = {};
      for (const [key, value] of Object.entries((props as object) || {})) {
        if (/^(string|number|boolean)$/.test(typeof value)) properties[key] = value;
      }
      push('custom', { name: String(name), properties });
    },
    identify(email, traits) {
      push('identify', { email: String(email), traits: traits || {} });
      flush();
    },
    page() {
      changed();
      settle();
    },
    spotter(callback) {
      const answer = spotter();
      if (typeof callback === 'function') answer.then(safe(callback as (o: unknown) => void));
      return answer;
    },
    consent(given) {
      consent = !optedOut && given !== false;
      if (consent) flush();
      else {
        queue = [];
        storage('ff_v', null);
        storage('ff_s', null);
      }
    },
  };
  const api: Footfall = safe((command: string, a?: unknown, b?: unknown) =>
    commands[command]?.(a, b),
  );
  api.loaded = true;
  win.footfall = api;

  const listen = (target: EventTarget, type: string, handler: (event: Event) => void) =>
    target.addEventListener(type, safe(handler), true);

  for (const method of ['pushState', 'replaceState'] as const) {
    const original = history[method];
    history[method] = function (this: History, ...args: Parameters<History['pushState']>) {
      const result = original.apply(this, args);
      safe(changed)();
      return result;
    };
  }
  // A form sent by script (form.submit()) fires no submit event.
  const submit = HTMLFormElement.prototype.submit;
  HTMLFormElement.prototype.submit = function (this: HTMLFormElement) {
    safe(formEvent)('form_submit', this);
    return submit.call(this);
  };
  listen(window, 'popstate', changed);
  listen(doc, 'input', (event) => {
    const form = (event.target as HTMLInputElement).form;
    if (form && !startedForms.has(form)) startedForms.set(form, now());
  });
  listen(doc, 'submit', (event) => formEvent('form_submit', event.target as HTMLFormElement));
  // A reset form is back to its defaults: nothing the visitor typed is left to abandon.
  listen(doc, 'reset', (event) => startedForms.delete(event.target as HTMLFormElement));
  listen(doc, 'click', (event) => {
    const link = (event.target as Element).closest?.('a[href]') as HTMLAnchorElement | null;
    const download = link && (link.hasAttribute('download') || DOWNLOAD.test(link.pathname));
    if (link && (download ? settings.downloads : settings.clicks && link.host !== location.host)) {
      push(download ? 'download' : 'click', {
        href: redactUrl(link.href, hashRouting),
        text: (link.innerText || link.textContent || '').trim().slice(0, 200),
      });
      flush();
    }
  });
  // Hidden may be for good (the tab closed, the page left or cached): send what is pending.
  const hide = () => {
    settle();
    leave();
    hidden = true;
    send(true);
  };
  listen(doc, 'visibilitychange', () => {
    if (doc.hidden) hide();
    else hidden = false;
  });
  // pagehide, never unload, which would keep the page out of the back-forward cache.
  listen(window, 'pagehide', () => {
    settle();
    abandon();
    hide();
  });
  // Back or Forward restored the page from that cache: it is shown again, a view of its own.
  listen(window, 'pageshow', (event) => {
    if ((event as PageTransitionEvent).persisted) {
      pageUrl = '';
      hidden = false;
      commands.page?.();
    }
  });

  changed();
  for (const args of stub?.q ?? []) api(...(args as [string, unknown, unknown]));
}

safe(() => {
  // Included twice: the first copy does the work.
  if (!win.footfall?.loaded) start(win.footfall);
})();
