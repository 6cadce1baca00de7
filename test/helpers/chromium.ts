/**
 * Headless Chromium for the report page's tests (Debian's `chromium` package, driven by
 * puppeteer-core): where it is, and a browser launched with nothing of its own reaching the
 * network (no first-run, no background requests, no component updates), a fresh profile each time.
 * Tests that need it skip visibly (test/helpers/skip.ts) where it is not installed.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser } from 'puppeteer-core';
import { which } from './kpt';

/** The Chromium binary: CHROMIUM_PATH, else /usr/bin/chromium, else `chromium` on PATH. */
export function chromiumPath(): string | undefined {
  const given = process.env.CHROMIUM_PATH;
  if (given && fs.existsSync(given)) return given;
  if (fs.existsSync('/usr/bin/chromium')) return '/usr/bin/chromium';
  return which('chromium') ?? which('chromium-browser');
}

export async function launchChromium(): Promise<{ browser: Browser; close: () => Promise<void> }> {
  const puppeteer = await import('puppeteer-core');
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--user-data-dir=${profile}`,
    ],
  });
  return {
    browser,
    close: async () => {
      await browser.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}
