import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/**
 * Debian's Chromium, headless, as the test recipes say; fails loudly when it is missing.
 * Playwright turns the back-forward cache off unless asked, unlike a person's browser.
 */
export async function launchChromium(
  options: { backForwardCache?: boolean } = {},
): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does)`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    ignoreDefaultArgs: options.backForwardCache ? ['--disable-back-forward-cache'] : [],
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
      '--disable-blink-features=AutomationControlled',
      // Set at launch so beacons sent while navigating away carry it too; "HeadlessChrome"
      // is (rightly) a bot.
      '--user-agent=Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36',
    ],
  });
}
