import { z } from 'zod';
import { ErrorCode } from '../errors/FrognanoError.js';
import { AbortSignalSchema, parseOptions } from '../errors/validate.js';
import type { WebBrowser } from './browser.js';

/**
 * The inputs of the browser runner (SPEC §13): the app to judge and the
 * runner's options (output folder, browser, time limits, viewport, sandbox,
 * console limits, abort signal), as zod schemas, the single source of their
 * types. Used by `runActions` and by `webJudge` / `planAndRunActions`.
 */

/** The app to judge: a folder served statically, or started by its own command (SPEC §13). */
export const WebAppSchema = z
  .object({
    /** The app's folder (its files; the judge also reads its sources). */
    dir: z.string().min(1),
    /**
     * A command that serves the app on `$PORT` (run with `bash -c` in a copy of `dir`,
     * inside the Leaf sandbox unless `isolation: 'none'`). Without it, `dir` is served
     * statically on 127.0.0.1.
     */
    start: z.string().min(1).optional(),
  })
  .strict();
/** The app to judge. */
export type WebApp = z.infer<typeof WebAppSchema>;

const WebBrowserSchema = z.custom<WebBrowser>(
  (v) => typeof v === 'object' && v !== null && typeof (v as { close?: unknown }).close === 'function' && typeof (v as { browser?: unknown }).browser === 'object',
  { message: 'must be a WebBrowser from launchWebBrowser()', params: { code: ErrorCode.INVALID_TYPE } },
);

/** Options of the browser runner ({@link runActions}, and the run part of `webJudge`). */
export const RunActionsOptionsSchema = z
  .object({
    /** Folder for the screenshots (`step-000.png`, ...); created when missing. Required. */
    outDir: z.string().min(1),
    /** A running browser to use (several runs can share one, see `launchWebBrowser`); default: one launched for this run and closed after it. */
    browser: WebBrowserSchema.optional(),
    /** Chromium executable when the run launches its own browser. Default: `FROGNANO_CHROMIUM`, then PATH. */
    executablePath: z.string().min(1).optional(),
    /** Time limit of one action, milliseconds (Playwright's action timeout; a step past it is `ok: false`). Default 5000. */
    actionTimeoutMs: z.number().int().min(1).default(5_000),
    /** Time limit of the whole run (page load and every action), milliseconds; actions left when it passes are not run (`truncated`). Default 120000. */
    runTimeoutMs: z.number().int().min(1).default(120_000),
    /** With `app.start`: milliseconds until the app's port must answer. Default 30000. */
    startTimeoutMs: z.number().int().min(1).default(30_000),
    /** Pause after each action before recording, milliseconds (lets handlers, transitions and timers run). Default 150. */
    settleMs: z.number().int().min(0).default(150),
    /** The browser viewport in CSS pixels. Default 1280 x 800. */
    viewport: z.object({ width: z.number().int().min(100).max(4096), height: z.number().int().min(100).max(4096) }).strict().default({ width: 1280, height: 800 }),
    /** Screenshot the whole page instead of the viewport. Default false. */
    fullPage: z.boolean().default(false),
    /** With `app.start`: `'bwrap'` (default) runs the command in the Leaf sandbox; `'none'` runs it unisolated (UNSAFE for model-written apps). */
    isolation: z.enum(['bwrap', 'none']).default('bwrap'),
    /** Options of the Leaf sandbox for `app.start` (see `createSandbox` of `frognano/leaf`). */
    sandbox: z.record(z.string(), z.unknown()).optional(),
    /** Console lines kept per step (the rest are counted in one line). Default 200. */
    maxConsoleLines: z.number().int().min(1).default(200),
    /** Characters kept of one console line. Default 2000. */
    maxConsoleChars: z.number().int().min(20).default(2_000),
    /** Stops the run; the browser and the app are closed and the call rejects with the signal's reason. */
    signal: AbortSignalSchema.optional(),
  })
  .strict();
/** Options of {@link runActions} as the caller writes them. */
export type RunActionsOptions = z.input<typeof RunActionsOptionsSchema>;
/** Runner options with their defaults filled in. @internal */
export type RunOpts = z.output<typeof RunActionsOptionsSchema>;

/** Parses runner options (shared by `webJudge`). @internal */
export const parseRunOptions = (fn: string, opts: unknown): RunOpts => parseOptions(fn, RunActionsOptionsSchema, opts);
