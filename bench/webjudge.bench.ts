/**
 * Benchmark of the interactive web judge's browser side (src/webjudge), the
 * planner and judge model calls excluded (they cost whatever the model server
 * costs):
 *
 * 1. Browser start-up: `launchWebBrowser()` (headless Chromium through
 *    playwright-core) until it is usable, and its `close()`.
 * 2. Seconds per action: a 12-action plan (fill, click, hover, press, scroll,
 *    wait 0, in turn) on the bundled shopping-list app with a shared browser;
 *    each step's `durationMs` (the action, the 150 ms settle pause, the ARIA
 *    snapshot and the PNG screenshot), median per action kind and over all, and
 *    the same with `settleMs: 0` (the runner's own cost).
 * 3. Seconds per judged app: `runActions` of a 5-action plan on each of the five
 *    bundled toy apps, (a) with a browser shared across apps, (b) launching its
 *    own browser (what `frognano web-judge` does), (c) `--start` of the bundled
 *    node server in the Leaf sandbox (bubblewrap) with a shared browser.
 *
 * Every figure is the median of the repeats (default 5; `--quick`: 2).
 * Run: `npm run bench:webjudge` (about 2 minutes on 2 cores). Needs Chromium.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { findBwrap } from '../src/leaf/sandbox.js';
import { launchWebBrowser, runActions, type WebAction } from '../src/webjudge/index.js';
import { hostBusySince, hostTicks, median, pct, table } from './lib/stats.js';

const QUICK = process.argv.includes('--quick');
const REPS = QUICK ? 2 : 5;
const APPS = resolve(import.meta.dirname, '../test/webjudge/apps');
const out = mkdtempSync(join(tmpdir(), 'frognano-webjudge-bench-'));
const s = (ms: number): string => (ms / 1000).toFixed(3);

const ACTIONS: WebAction[] = [
  { action: 'fill', selector: 'role=textbox[name="New item"]', text: 'Eggs' },
  { action: 'click', selector: 'role=button[name="Add"]' },
  { action: 'hover', selector: 'role=button[name="Clear list"]' },
  { action: 'press', selector: 'role=textbox[name="New item"]', key: 'End' },
  { action: 'scroll', dy: 200 },
  { action: 'wait', ms: 0 },
];
const PLAN12 = [...ACTIONS, ...ACTIONS];
const PLAN5: WebAction[] = [
  { action: 'hover', selector: 'h1' },
  { action: 'click', selector: 'button' },
  { action: 'press', key: 'Tab' },
  { action: 'scroll', dy: 300 },
  { action: 'wait', ms: 100 },
];

async function main(): Promise<void> {
  const ticks = hostTicks();
  const rows: string[][] = [];
  // 1. start-up
  const launch: number[] = [];
  const close: number[] = [];
  let version = '';
  for (let i = 0; i < REPS; i++) {
    const t0 = performance.now();
    const b = await launchWebBrowser();
    launch.push(performance.now() - t0);
    version = b.version;
    const t1 = performance.now();
    await b.close();
    close.push(performance.now() - t1);
  }
  rows.push(['browser start-up (launchWebBrowser)', s(median(launch))], ['browser close', s(median(close))]);

  const browser = await launchWebBrowser();
  try {
    // 2. per action
    const byKind = new Map<string, number[]>();
    const all: number[] = [];
    const allNoSettle: number[] = [];
    const step0: number[] = [];
    for (let i = 0; i < REPS; i++) {
      for (const settleMs of [150, 0]) {
        const run = await runActions({ dir: join(APPS, 'dead-button') }, PLAN12, { outDir: join(out, `a${i}-${settleMs}`), browser, settleMs });
        if (run.steps.some((st) => !st.ok)) throw new Error(`a bench action failed: ${JSON.stringify(run.steps.find((st) => !st.ok))}`);
        for (const st of run.steps.slice(1)) {
          if (settleMs === 0) allNoSettle.push(st.durationMs);
          else {
            all.push(st.durationMs);
            const k = st.action!.action;
            byKind.set(k, [...(byKind.get(k) ?? []), st.durationMs]);
          }
        }
        if (settleMs === 150) step0.push(run.steps[0]!.durationMs);
      }
    }
    rows.push(['step 0 (page load + record)', s(median(step0))]);
    rows.push(['per action, all kinds (settle 150 ms)', s(median(all))]);
    for (const [k, xs] of byKind) rows.push([`  per ${k}`, s(median(xs))]);
    rows.push(['per action, all kinds (settle 0)', s(median(allNoSettle))]);

    // 3. per judged app
    const apps = ['dead-button', 'signup-form', 'hover-menu', 'cross-origin', 'console-error'];
    const shared: number[] = [];
    const own: number[] = [];
    for (let i = 0; i < REPS; i++) {
      for (const a of apps) {
        let t0 = performance.now();
        await runActions({ dir: join(APPS, a) }, PLAN5, { outDir: join(out, `s${i}-${a}`), browser, actionTimeoutMs: 2000 });
        shared.push(performance.now() - t0);
        t0 = performance.now();
        await runActions({ dir: join(APPS, a) }, PLAN5, { outDir: join(out, `o${i}-${a}`), actionTimeoutMs: 2000 });
        own.push(performance.now() - t0);
      }
    }
    rows.push(['per app, 5 actions, shared browser', s(median(shared))]);
    rows.push(['per app, 5 actions, own browser (as the CLI)', s(median(own))]);
    if (findBwrap() !== null) {
      const started: number[] = [];
      const plan: WebAction[] = [
        { action: 'fill', selector: '#name', text: 'Ada' },
        { action: 'click', selector: '#go' },
        ...PLAN5.slice(2),
        { action: 'hover', selector: 'h1' },
        { action: 'wait', ms: 100 },
      ].slice(0, 5) as WebAction[];
      for (let i = 0; i < REPS; i++) {
        const t0 = performance.now();
        await runActions({ dir: join(APPS, 'node-server'), start: 'node server.js' }, plan, { outDir: join(out, `n${i}`), browser });
        started.push(performance.now() - t0);
      }
      rows.push(['per app, 5 actions, --start in the Leaf sandbox, shared browser', s(median(started))]);
    }
  } finally {
    await browser.close();
    rmSync(out, { recursive: true, force: true });
  }
  console.log(`\nweb judge, browser side (planner and judge excluded); median of ${REPS}; Chromium ${version}; ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}; Node ${process.version}; host busy ${pct(hostBusySince(ticks))} during the run\n`);
  console.log(table(['what', 'seconds'], rows, ['l', 'r']));
}

await main();
