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
// Real agents are a few hundred characters and only the first 512 are read (ua-parser reads
// 500): a made-up 15 KB agent costs neither 100 times the work in isbot nor room in the
// cache (it is not kept: a slice would hold on to the whole string). The cache is bounded in
// bytes too, not only in entries.
const READ_LENGTH = 512;
const cache = new LRUCache<string, Agent>({
  max: 10_000,
  maxSize: 4 * 1024 * 1024,
  // Two bytes a character at most, plus the entry and its parsed result.
  sizeCalculation: (_agent, ua) => 2 * ua.length + 200,
});

export function parseUserAgent(userAgent: string | undefined): Agent {
  const ua = userAgent ?? '';
  if (ua.length > READ_LENGTH) return classify(ua.slice(0, READ_LENGTH));
  let agent = cache.get(ua);
  if (!agent) {
    agent = classify(ua);
    cache.set(ua, agent);
  }
  return agent;
}

function classify(ua: string): Agent {
  if (ua === '' || isbot(ua)) return { bot: true, browser: '', deviceType: '' };
  const parsed = new UAParser(ua).getResult();
  return {
    bot: false,
    browser: parsed.browser.name ?? '',
    deviceType: parsed.device.type ?? 'desktop',
  };
}
