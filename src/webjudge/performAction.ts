import type { Page } from 'playwright-core';
import { DEFAULT_SCROLL_DY, type WebAction } from './actions.js';

/**
 * Performing one action of the action library (SPEC §13) on the page with
 * Playwright: `click`, `fill`, `hover` and `press` on the first element the
 * selector matches; `scroll` of the window (by `dy`, default
 * `DEFAULT_SCROLL_DY`) or of an element into view (then by `dy`); `navigate`
 * within the app's origin only (another origin is refused, never followed; an
 * HTTP status of 400 or more fails the step); `wait` for `Math.round(ms)` ms
 * (a plan may give a fraction, SPEC §13 only bounds it to 0..5000). An empty
 * `selector`, `key` or `url` is a well-formed action that fails here (a step
 * with `ok: false`), not a malformed plan.
 * (`playwright-core` is imported for its types only: erased at build.)
 */

/** The page's `window` as the scroll needs it (the SDK compiles without the DOM library). */
type ScrollingWindow = typeof globalThis & { scrollBy(x: number, y: number): void };

/** Throws when a field the action needs is an empty string (well formed, but nothing to act on). */
function nonEmpty(field: 'selector' | 'key' | 'url', value: string): string {
  if (value === '') throw new Error(`empty ${field}: nothing to act on`);
  return value;
}

/** Runs one action on the page within `timeout` ms; throws with a one-line reason when it fails. */
export async function performAction(page: Page, a: WebAction, origin: string, timeout: number): Promise<void> {
  const at = (selector: string) => page.locator(nonEmpty('selector', selector)).first();
  switch (a.action) {
    case 'click':
      return at(a.selector).click({ timeout });
    case 'fill':
      return at(a.selector).fill(a.text, { timeout });
    case 'hover':
      return at(a.selector).hover({ timeout });
    case 'press':
      nonEmpty('key', a.key);
      return a.selector !== undefined ? at(a.selector).press(a.key, { timeout }) : page.keyboard.press(a.key);
    case 'scroll':
      if (a.selector === undefined) {
        await page.evaluate((dy) => (globalThis as ScrollingWindow).scrollBy(0, dy), a.dy ?? DEFAULT_SCROLL_DY);
        return;
      }
      await at(a.selector).scrollIntoViewIfNeeded({ timeout });
      if (a.dy !== undefined) await at(a.selector).evaluate((el, dy) => el.scrollBy(0, dy), a.dy, { timeout });
      return;
    case 'navigate': {
      nonEmpty('url', a.url);
      let target: URL;
      try {
        target = new URL(a.url, page.url().startsWith('http') ? page.url() : `${origin}/`);
      } catch {
        throw new Error(`not a URL: ${JSON.stringify(a.url)}`);
      }
      // never followed: the browser reaches the app's origin only
      if (target.origin !== origin) throw new Error(`navigation to another origin (${target.origin === 'null' ? target.protocol : target.origin}) is not followed`);
      const res = await page.goto(target.href, { timeout, waitUntil: 'load' });
      if (res && res.status() >= 400) throw new Error(`HTTP ${res.status()} for ${target.pathname}`);
      return;
    }
    case 'wait':
      await new Promise((r) => setTimeout(r, Math.round(a.ms)));
      return;
  }
}
