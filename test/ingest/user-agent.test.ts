import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { parseUserAgent } from '../../src/ingest/user-agent.js';
import { CHROME_UA } from '../helpers/collect.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const heapAfterGc = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

describe('parseUserAgent', () => {
  it('reads browsers, devices and bots, long agents by their first 512 characters', () => {
    expect(parseUserAgent(CHROME_UA)).toEqual({
      bot: false,
      browser: 'Chrome',
      deviceType: 'desktop',
    });
    expect(parseUserAgent(undefined)).toMatchObject({ bot: true });
    expect(parseUserAgent('Googlebot/2.1 (+http://www.google.com/bot.html)').bot).toBe(true);
    expect(parseUserAgent(`${CHROME_UA} ${'x'.repeat(15_000)}`)).toEqual(parseUserAgent(CHROME_UA));
  });

  it('keeps its cache small however many long, distinct agents arrive', () => {
    const before = heapAfterGc();
    for (let i = 0; i < 5_000; i++) {
      // 15 KB each and all different: 150 MB if they were kept.
      parseUserAgent(`${CHROME_UA} ${'a'.repeat(15_000)} ${i}`);
      parseUserAgent(`${CHROME_UA} ${i} ${'b'.repeat(15_000)}`);
    }
    expect(heapAfterGc() - before).toBeLessThan(12 * 1024 * 1024);
    for (let i = 0; i < 20_000; i++) {
      // Cached, being short enough, and still bounded.
      parseUserAgent(`${CHROME_UA} ${i} ${'c'.repeat(380)}`);
    }
    expect(heapAfterGc() - before).toBeLessThan(12 * 1024 * 1024);
  });
});
