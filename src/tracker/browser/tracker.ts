// The Footfall tracker, bundled by esbuild and served at /t/{tracking_script_id}.js with
// the workspace's settings in __FOOTFALL__. It must never throw into the host page.
import {
  hasCardNumber,
  MAX_FIELDS,
  MAX_VALUE_LENGTH,
  redactUrl,
  sensitiveAutocomplete,
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

const IDLE_MS = 30 * 60 * 1000;
const DOWNLOAD =
  /\.(pdf|docx?|xlsx?|pptx?|csv|txt|rtf|od[tsp]|zip|rar|7z|gz|tgz|tar|bz2|dmg|exe|msi|pkg|deb|rpm|apk|iso|mp3|mp4|mov|avi|wav|mkv|webm|epub)$/i;
const SKIPPED_INPUTS = /^(password|hidden|file|submit|button|reset|image)$/;

const win = window as unknown as { footfall?: Footfall };
const doc = document;
const settings = __FOOTFALL__;

// biome-ignore lint/suspicious/noExplicitAny: wraps any handler
const safe = <F extends (...args: any[]) => unknown>(fn: F) =>
  ((...args: Parameters<F>) => {
    try {
      return fn(...args);
    } catch {}
  }) as F;

const now = () => Date.now();
const seconds = (since: number) => Math.round((now() - since) / 1000);

function uuid(): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = ((b[6] as number) & 15) | 64;
  b[8] = ((b[8] as number) & 63) | 128;
  const h = Array.from(b, (x) => (x + 256).toString(16).slice(1)).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

// Where localStorage is refused (privacy modes), ids last as long as the page.
const memory: Record<string, string | null> = {};

function storage(key: string, value?: string | null): string | null {
  try {
    if (value === null) localStorage.removeItem(key);
    else if (value !== undefined) localStorage.setItem(key, value);
    return localStorage.getItem(key);
  } catch {
    if (value !== undefined) memory[key] = value;
    return memory[key] ?? null;
  }
}

function start(stub: Footfall | undefined) {
  // A browser sending Global Privacy Control, where the workspace honours it, is never tracked.
  const optedOut =
    settings.gpc && (navigator as { globalPrivacyControl?: boolean }).globalPrivacyControl;
  let consent = !optedOut && !doc.querySelector('script[data-wait-for-consent]');
  let queue: Record<string, unknown>[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  // The collect requests in flight: Spotter asks once they are stored.
  let sent: Promise<unknown> = Promise.resolve();
  let spotted: Promise<unknown> | undefined;
  let pageUrl = '';
  let pageStart = 0;
  let hidden = false;
  const startedForms = new Map<HTMLFormElement, number>();

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
    timer = undefined;
    if (!consent || queue.length === 0) return;
    const [visitor, session] = ids();
    const requests: Promise<unknown>[] = [];
    while (queue.length > 0) {
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

  // The visitor's organisation, asked once per page and only with consent; null otherwise.
  function spotter(): Promise<unknown> {
    if (!consent) return Promise.resolve(null);
    send();
    spotted ??= sent
      .then(() => fetch(`${settings.spotter}?visitor=${ids()[0]}`, { credentials: 'omit' }))
      .then((response) => response.json())
      .then((body) => body.data.organisation)
      .catch(() => null);
    return spotted;
  }

  function push(type: string, fields: Record<string, unknown> = {}) {
    queue.push({ type, ts: now(), url: redactUrl(location.href), ...fields });
    timer ??= setTimeout(safe(send), 300);
  }

  function formEvent(type: string, form: HTMLFormElement) {
    if (!settings.forms) return;
    const fields: { name: string; value: string }[] = [];
    for (const element of Array.from(form.elements) as HTMLInputElement[]) {
      const name = element.name || element.id;
      const type = element.type;
      const value = String(element.value ?? '');
      if (
        !name ||
        SKIPPED_INPUTS.test(type) ||
        ((type === 'checkbox' || type === 'radio') && !element.checked) ||
        sensitiveName(name) ||
        sensitiveName(element.id) ||
        sensitiveAutocomplete(element.getAttribute('autocomplete') || '') ||
        hasCardNumber(value) ||
        fields.length >= MAX_FIELDS
      ) {
        continue;
      }
      fields.push({ name, value: value.slice(0, MAX_VALUE_LENGTH) });
    }
    push(type, {
      form_id: form.getAttribute('id') || '',
      form_name: form.getAttribute('name') || '',
      time_spent: seconds(startedForms.get(form) ?? now()),
      fields,
    });
    startedForms.delete(form);
  }

  function abandonForms() {
    for (const form of startedForms.keys()) formEvent('form_abandon', form);
  }

  function leave() {
    if (pageUrl) push('page_leave', { time_on_page: seconds(pageStart) });
  }

  function page() {
    const url = location.href.split('#')[0] as string;
    if (url === pageUrl) return;
    if (pageUrl) {
      leave();
      abandonForms();
    }
    push('pageview', { referrer: redactUrl(pageUrl || doc.referrer), title: doc.title });
    pageUrl = url;
    pageStart = now();
  }

  const api: Footfall = safe((command: string, a?: unknown, b?: unknown) => {
    if (command === 'track') {
      const properties: Record<string, unknown> = {};
      for (const [key, value] of Object.entries((b as object) || {})) {
        if (/^(string|number|boolean)$/.test(typeof value)) properties[key] = value;
      }
      push('custom', { name: String(a), properties });
    } else if (command === 'identify') {
      push('identify', { email: String(a), traits: b || {} });
      send();
    } else if (command === 'page') {
      page();
    } else if (command === 'spotter') {
      const answer = spotter();
      if (typeof a === 'function') answer.then(safe(a as (organisation: unknown) => void));
      return answer;
    } else if (command === 'consent') {
      consent = !optedOut && a !== false;
      if (consent) send();
      else {
        queue = [];
        storage('ff_v', null);
        storage('ff_s', null);
      }
    }
  });
  api.loaded = true;
  win.footfall = api;

  const listen = (target: EventTarget, type: string, handler: (event: Event) => void) =>
    target.addEventListener(type, safe(handler), true);

  for (const method of ['pushState', 'replaceState'] as const) {
    const original = history[method];
    history[method] = function (this: History, ...args: Parameters<History['pushState']>) {
      const result = original.apply(this, args);
      safe(page)();
      return result;
    };
  }
  listen(window, 'popstate', page);
  listen(doc, 'input', (event) => {
    const form = (event.target as HTMLInputElement).form;
    if (form && !startedForms.has(form)) startedForms.set(form, now());
  });
  listen(doc, 'submit', (event) => formEvent('form_submit', event.target as HTMLFormElement));
  listen(doc, 'click', (event) => {
    const link = (event.target as Element).closest?.('a[href]') as HTMLAnchorElement | null;
    if (!link) return;
    const download = link.hasAttribute('download') || DOWNLOAD.test(link.pathname);
    if (download ? settings.downloads : settings.clicks && link.host !== location.host) {
      push(download ? 'download' : 'click', {
        href: redactUrl(link.href),
        text: (link.innerText || link.textContent || '').trim().slice(0, 200),
      });
      send();
    }
  });
  const hide = () => {
    if (hidden) return;
    hidden = true;
    leave();
    send(true);
  };
  listen(doc, 'visibilitychange', () => {
    if (doc.visibilityState === 'hidden') hide();
    else hidden = false;
  });
  listen(window, 'pagehide', () => {
    abandonForms();
    hide();
    send(true);
  });

  page();
  for (const args of stub?.q ?? []) api(...(Array.from(args) as [string, unknown, unknown]));
}

safe(() => {
  // Included twice: the first copy does the work.
  if (!win.footfall?.loaded) start(win.footfall);
})();
