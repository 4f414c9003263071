import { isbot } from 'isbot';
import { LRUCache } from 'lru-cache';
import { UAParser } from 'ua-parser-js';

export interface Agent {
  bot: boolean;
  browser: string;
  /** `desktop`, `mobile`, `tablet`, or another ua-parser device type. */
  deviceType: string;
}

// A site's visitors share a few hundred user agents; parsing each once saves most of the work.
const cache = new LRUCache<string, Agent>({ max: 10_000 });

export function parseUserAgent(userAgent: string | undefined): Agent {
  const ua = userAgent ?? '';
  let agent = cache.get(ua);
  if (!agent) {
    if (ua === '' || isbot(ua)) {
      agent = { bot: true, browser: '', deviceType: '' };
    } else {
      const parsed = new UAParser(ua).getResult();
      agent = {
        bot: false,
        browser: parsed.browser.name ?? '',
        deviceType: parsed.device.type ?? 'desktop',
      };
    }
    cache.set(ua, agent);
  }
  return agent;
}
