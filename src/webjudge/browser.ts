import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { parseOptions } from '../errors/validate.js';
import { findExecutable } from '../leaf/index.js';
// Types only: erased at compile time, so importing this module never loads playwright-core.
import type { Browser } from 'playwright-core';

/** Executable names searched on PATH, in order (Debian's `chromium`, Ubuntu's older `chromium-browser`, Google Chrome). */
export const CHROMIUM_NAMES = ['chromium', 'chromium-browser', 'google-chrome'] as const;

const MISSING_CHROMIUM =
  'the web judge needs Chromium: install the Debian/Ubuntu package `chromium` (apt-get install chromium), ' +
  'or set FROGNANO_CHROMIUM to a Chromium or Chrome executable';

/**
 * Finds a Chromium executable: `explicit`, else `FROGNANO_CHROMIUM`, else the
 * first of {@link CHROMIUM_NAMES} on PATH. Returns null when none is executable
 * (an explicit path or `FROGNANO_CHROMIUM` that is not executable is not
 * replaced by a PATH search: the caller asked for that one).
 */
export function findChromium(explicit?: string, env: NodeJS.ProcessEnv = process.env): string | null {
  return findExecutable(CHROMIUM_NAMES, { ...(explicit !== undefined ? { explicit } : {}), envVar: 'FROGNANO_CHROMIUM', env });
}

/** Options of {@link launchWebBrowser}. */
export const LaunchWebBrowserOptionsSchema = z
  .object({
    /** Chromium executable. Default: {@link findChromium} (`FROGNANO_CHROMIUM`, then PATH). */
    executablePath: z.string().min(1).optional(),
    /** Extra command-line switches for Chromium. */
    args: z.array(z.string()).default([]),
    /** Time limit of the browser's start, milliseconds. Default 30000. */
    timeoutMs: z.number().int().min(1).default(30_000),
  })
  .strict();
/** Options of {@link launchWebBrowser} as the caller writes them. */
export type LaunchWebBrowserOptions = z.input<typeof LaunchWebBrowserOptionsSchema>;

/** A running headless Chromium, shareable by several runs ({@link RunActionsOptions.browser}). */
export interface WebBrowser {
  /** The Playwright browser. */
  readonly browser: Browser;
  /** The executable that runs. */
  readonly executablePath: string;
  /** Chromium's version, e.g. `156.0.8078.114`. */
  readonly version: string;
  /** Closes the browser and every page (idempotent; never throws). */
  close(): Promise<void>;
}

/** The playwright-core module, loaded on first use only: importing frognano never loads it. @internal */
export async function loadPlaywright(fn: string): Promise<typeof import('playwright-core')> {
  try {
    return await import('playwright-core');
  } catch (e) {
    throw new FrognanoError(
      ErrorCode.BROWSER_UNAVAILABLE,
      `the web judge needs the npm package playwright-core (an optional peer dependency of frognano): npm install playwright-core (${(e as Error).message})`,
      { fn, cause: e },
    );
  }
}

/** Chromium switches the judge always passes. */
function defaultArgs(): string[] {
  const args = [
    // /dev/shm is 64 MiB in many containers: Chromium's shared memory goes to /tmp instead
    '--disable-dev-shm-usage',
    // nothing but the app: no component updates, field trials, sync, or translate requests
    '--disable-background-networking',
    '--disable-component-update',
    '--no-first-run',
    '--no-default-browser-check',
  ];
  // Chromium refuses to start its sandbox as root (containers, CI): the page runs in
  // the app's own origin only, every other request is aborted
  if (typeof process.getuid === 'function' && process.getuid() === 0) args.push('--no-sandbox');
  return args;
}

/**
 * Launches headless Chromium through playwright-core (loaded here, dynamically).
 * Playwright's own SIGINT / SIGTERM / SIGHUP handlers are off: the caller ends a
 * run through its `signal` and the run closes the browser; on process exit
 * Playwright still kills every browser it started.
 *
 * @throws FrognanoError `BROWSER_UNAVAILABLE`: no Chromium (naming the Debian package `chromium`),
 *   playwright-core missing, or the browser did not start (its message)
 * @example
 * const b = await launchWebBrowser();
 * try { await runActions({ dir: 'app' }, plan, { outDir: 'out', browser: b }); } finally { await b.close(); }
 */
export async function launchWebBrowser(opts?: LaunchWebBrowserOptions): Promise<WebBrowser> {
  const fn = 'launchWebBrowser';
  const o = parseOptions(fn, LaunchWebBrowserOptionsSchema, opts);
  const executablePath = findChromium(o.executablePath);
  if (executablePath === null) {
    const which = o.executablePath ?? process.env.FROGNANO_CHROMIUM;
    throw new FrognanoError(ErrorCode.BROWSER_UNAVAILABLE, which ? `${which} is not an executable file; ${MISSING_CHROMIUM}` : MISSING_CHROMIUM, { fn });
  }
  const pw = await loadPlaywright(fn);
  let browser: Browser;
  try {
    browser = await pw.chromium.launch({
      executablePath,
      headless: true,
      args: [...defaultArgs(), ...o.args],
      timeout: o.timeoutMs,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
  } catch (e) {
    throw new FrognanoError(ErrorCode.BROWSER_UNAVAILABLE, `Chromium (${executablePath}) did not start: ${(e as Error).message.split('\n').slice(0, 6).join(' ')}`, { fn, cause: e });
  }
  let closing: Promise<void> | null = null;
  return {
    browser,
    executablePath,
    version: browser.version(),
    close: () =>
      (closing ??= browser.close().catch(() => {
        // already gone (crashed or closed): nothing to close
      })),
  };
}
