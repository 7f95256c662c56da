/**
 * `app.start` (SPEC §13 `--start CMD`): the app's own server, started with PORT
 * set, inside the Leaf sandbox (bubblewrap) and reached through its socket relay;
 * an app that exits or never answers is APP_UNAVAILABLE; nothing outlives the run.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runActions, startApp } from '../../src/webjudge/index.js';
import { expectFrognanoErrorAsync } from '../helpers/expectError.js';
import { app, hasBwrapForStart, hasChromium, useBrowser } from './helpers.js';

const chromium = hasChromium();
const bwrap = hasBwrapForStart();
const env = useBrowser(chromium && bwrap);

/** Pids whose command line contains `needle` (this test's own marker). */
function pidsWith(needle: string): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/cmdline`, 'latin1').includes(needle)) out.push(Number(d));
    } catch {
      // gone
    }
  }
  return out;
}

describe.skipIf(!(chromium && bwrap))('app.start in the Leaf sandbox (real Chromium, bubblewrap)', () => {
  it('serves the app from its own server on $PORT, records its states, and stops it afterwards', async () => {
    const run = await runActions(
      { dir: app('node-server'), start: 'exec -a frognano-start-test-1 node server.js' },
      [{ action: 'fill', selector: 'role=textbox[name="Name"]', text: 'Ada' }, { action: 'click', selector: 'role=button[name="Greet"]' }],
      { outDir: env.tmp(), browser: env.browser },
    );
    expect(run.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(run.steps[0]!.title).toBe('Greeter');
    expect(run.steps[2]!.snapshot).toContain('- paragraph: Hello, Ada!');
    expect(pidsWith('frognano-start-test-1')).toEqual([]);
  });

  it('startApp: the sandboxed process tree lives while the app is up and is gone after close', async () => {
    const a = await startApp(app('node-server'), 'exec -a frognano-start-test-4 node server.js', { isolation: 'bwrap', startTimeoutMs: 15_000 });
    try {
      expect(a.isolation).toBe('bwrap');
      expect(await (await fetch(`${a.origin}/`)).text()).toContain('<title>Greeter</title>');
      expect(pidsWith('frognano-start-test-4').length).toBeGreaterThan(0);
    } finally {
      await a.close();
    }
    expect(pidsWith('frognano-start-test-4')).toEqual([]);
  });

  it('the sandboxed app has no network: its server cannot reach the outside', async () => {
    const dir = join(env.tmp(), 'probe');
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'server.js'),
      `const http = require('http');
let seen = 'not tried';
http.get('http://1.1.1.1/', () => (seen = 'internet reachable')).on('error', (e) => (seen = 'internet: ' + e.code));
http.createServer((q, s) => s.writeHead(200, { 'content-type': 'text/html' }).end('<title>probe</title><p id="r">' + seen + '</p>')).listen(+process.env.PORT, '127.0.0.1');`,
    );
    const run = await runActions({ dir, start: 'node server.js' }, [{ action: 'wait', ms: 300 }], { outDir: env.tmp(), browser: env.browser });
    expect(run.steps[1]!.snapshot).toMatch(/paragraph: "?internet: E[A-Z]+/);
  });

  it('an app that exits is APP_UNAVAILABLE with its output; one that never listens times out', async () => {
    await expectFrognanoErrorAsync(
      () => runActions({ dir: app('node-server'), start: 'echo "cannot start: missing config" && exit 3' }, [], { outDir: env.tmp(), browser: env.browser }),
      'APP_UNAVAILABLE',
      'exited before its port answered',
      'cannot start: missing config',
    );
    await expectFrognanoErrorAsync(
      () => runActions({ dir: app('node-server'), start: 'exec -a frognano-start-test-2 sleep 30' }, [], { outDir: env.tmp(), browser: env.browser, startTimeoutMs: 1500 }),
      'APP_UNAVAILABLE',
      'did not answer HTTP within 1500 ms',
    );
    expect(pidsWith('frognano-start-test-2')).toEqual([]);
  });

  it("isolation 'none' runs the command unisolated with PORT set, and kills its process group at the end", async () => {
    const a = await startApp(app('node-server'), 'exec -a frognano-start-test-3 node server.js', { isolation: 'none', startTimeoutMs: 15_000 });
    try {
      const res = await fetch(`${a.origin}/`);
      expect(await res.text()).toContain('<title>Greeter</title>');
      expect(pidsWith('frognano-start-test-3').length).toBeGreaterThan(0);
    } finally {
      await a.close();
    }
    expect(pidsWith('frognano-start-test-3')).toEqual([]);
  });
});
