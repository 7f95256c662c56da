/**
 * The runner and the whole judge against real headless Chromium on the bundled
 * toy apps, each with a known bug. Assertions are on the recorded states: the
 * ARIA snapshot after each action, console lines, aborted cross-origin requests,
 * the PNG files, and the score from a scripted judge. One browser per file.
 */
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runActions, webJudge, webJudgeReward, webJudgeBestOfK, type WebAction, type WebRubric } from '../../src/webjudge/index.js';
import type { ChatServer } from '../helpers/chatServer.js';
import { expectFrognanoErrorAsync } from '../helpers/expectError.js';
import { answer, app, hasChromium, pngSize, scriptedModels, SHOPPING_RUBRIC, stageOf, useBrowser } from './helpers.js';

const chromium = hasChromium();
const env = useBrowser(chromium);

let server: ChatServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe.skipIf(!chromium)('runActions on the toy apps (real Chromium)', () => {
  it('dead button: the snapshot after Add is unchanged, Clear list works; PNGs are real viewport screenshots', async () => {
    const out = env.tmp();
    const plan: WebAction[] = [
      { action: 'fill', selector: 'role=textbox[name="New item"]', text: 'Eggs' },
      { action: 'click', selector: 'role=button[name="Add"]' },
      { action: 'click', selector: 'role=button[name="Clear list"]' },
    ];
    const run = await runActions({ dir: app('dead-button') }, plan, { outDir: out, browser: env.browser });
    expect(run.steps.map((s) => [s.index, s.ok])).toEqual([[0, true], [1, true], [2, true], [3, true]]);
    expect(run.steps[0]!.action).toBeNull();
    expect(run.steps[0]!.title).toBe('Shopping list');
    expect(run.steps[0]!.url).toBe(`${run.origin}/`);
    expect(run.steps[0]!.snapshot).toContain('- listitem: Milk');
    expect(run.steps[1]!.snapshot).toContain('- textbox "New item": Eggs');
    // the bug: Add does nothing
    expect(run.steps[2]!.snapshot).toBe(run.steps[1]!.snapshot);
    expect(run.steps[2]!.snapshot).not.toContain('listitem: Eggs');
    // Clear list works
    expect(run.steps[3]!.snapshot).not.toContain('listitem');
    expect(run.steps[3]!.snapshot).toContain('- paragraph: 0 items');
    for (const s of run.steps) {
      expect(s.screenshot).toBe(join(out, `step-${String(s.index).padStart(3, '0')}.png`));
      expect(pngSize(readFileSync(s.screenshot))).toEqual({ width: 1280, height: 800 });
    }
    // the cleared list looks different from the list with Milk
    expect(readFileSync(run.steps[3]!.screenshot).equals(readFileSync(run.steps[2]!.screenshot))).toBe(false);
  });

  it('signup form: invalid input is accepted (the recorded status says so)', async () => {
    const run = await runActions(
      { dir: app('signup-form') },
      [
        { action: 'fill', selector: 'role=textbox[name="Email"]', text: 'not-an-email' },
        { action: 'fill', selector: '#age', text: '-5' },
        { action: 'press', selector: '#age', key: 'Enter' },
      ],
      { outDir: env.tmp(), browser: env.browser },
    );
    expect(run.steps.every((s) => s.ok)).toBe(true);
    expect(run.steps[0]!.snapshot).toContain('- status');
    expect(run.steps[3]!.snapshot).toContain('- status: Welcome, not-an-email! Your account is ready.');
  });

  it('hover menu: the categories appear only while hovering', async () => {
    const run = await runActions(
      { dir: app('hover-menu') },
      [{ action: 'hover', selector: 'role=button[name="Products"]' }, { action: 'hover', selector: 'h1' }],
      { outDir: env.tmp(), browser: env.browser },
    );
    expect(run.steps[0]!.snapshot).not.toContain('Laptops');
    expect(run.steps[1]!.snapshot).toContain('- link "Laptops"');
    expect(run.steps[1]!.snapshot).toContain('- link "Phones"');
    expect(run.steps[2]!.snapshot).not.toContain('Laptops');
  });

  it('cross-origin app: every request to another origin is aborted and recorded; a link out is a failed step and the page comes back', async () => {
    const run = await runActions(
      { dir: app('cross-origin') },
      [{ action: 'click', selector: 'role=link[name="Full forecast"]' }, { action: 'navigate', url: 'https://weather.example.test/' }, { action: 'navigate', url: '/index.html' }],
      { outDir: env.tmp(), browser: env.browser },
    );
    expect(run.steps[0]!.blocked.sort()).toEqual(['GET https://api.weather.example.test/today.json', 'GET https://fonts.example-cdn.test/inter.css']);
    expect(run.steps[0]!.snapshot).toContain('- paragraph: Could not load the forecast');
    expect(run.steps[0]!.console.filter((c) => c.includes('ERR_BLOCKED_BY_CLIENT'))).toHaveLength(2);
    expect(run.steps[1]!.ok).toBe(false);
    expect(run.steps[1]!.error).toContain('https://weather.example.test/full');
    // the aborted link, then the app's own two blocked requests again as the page comes back
    expect(run.steps[1]!.blocked[0]).toBe('GET https://weather.example.test/full');
    expect(run.steps[1]!.blocked.slice(1).sort()).toEqual(run.steps[0]!.blocked);
    expect(run.steps[1]!.url).toBe(`${run.origin}/`);
    expect(run.steps[1]!.snapshot).toContain('- heading "Weather" [level=1]');
    expect(run.steps[2]).toMatchObject({ ok: false, error: 'navigation to another origin (https://weather.example.test) is not followed', blocked: [] });
    expect(run.steps[3]).toMatchObject({ ok: true, url: `${run.origin}/index.html` });
    expect(run.blocked).toHaveLength(7); // 2 at load, the link + 2 on coming back, 2 at /index.html
  });

  it('console errors: console.log / console.error lines and the page error of each click', async () => {
    const run = await runActions(
      { dir: app('console-error') },
      [{ action: 'click', selector: '#inc' }, { action: 'click', selector: '#inc' }],
      { outDir: env.tmp(), browser: env.browser },
    );
    expect(run.steps[0]!.console).toEqual(['[log] counter ready', '[error] analytics: missing API key']);
    expect(run.steps[1]!.console).toEqual(['[pageerror] reportClick is not defined']);
    expect(run.steps[1]!.snapshot).toContain('- paragraph: "1"');
    expect(run.steps[2]!.snapshot).toContain('- paragraph: "2"');
    expect(run.steps[2]!.console).toEqual(['[pageerror] reportClick is not defined']);
  });

  it('a failing action is ok: false with its error and the run goes on; the per-action limit holds', async () => {
    const t0 = performance.now();
    const run = await runActions(
      { dir: app('dead-button') },
      [{ action: 'click', selector: '#does-not-exist' }, { action: 'click', selector: 'role=button[name="Clear list"]' }],
      { outDir: env.tmp(), browser: env.browser, actionTimeoutMs: 400 },
    );
    expect(run.steps[1]).toMatchObject({ ok: false, error: expect.stringContaining('Timeout 400ms exceeded') });
    expect(run.steps[2]!.ok).toBe(true);
    expect(run.steps[2]!.snapshot).toContain('0 items');
    expect(performance.now() - t0).toBeLessThan(20_000);
  });

  it('the whole-run limit stops the actions left (truncated)', async () => {
    const run = await runActions(
      { dir: app('dead-button') },
      [{ action: 'wait', ms: 1500 }, { action: 'wait', ms: 1500 }, { action: 'wait', ms: 1500 }],
      { outDir: env.tmp(), browser: env.browser, runTimeoutMs: 2500 },
    );
    expect(run.truncated).toBe(true);
    expect(run.steps.length).toBeLessThan(4);
  });

  it('an aborted signal rejects the run and closes its page', async () => {
    const ctrl = new AbortController();
    const p = runActions({ dir: app('dead-button') }, [{ action: 'wait', ms: 5000 }], { outDir: env.tmp(), browser: env.browser, signal: ctrl.signal });
    setTimeout(() => ctrl.abort(new Error('stop now')), 1500);
    await expect(p).rejects.toThrow('stop now');
    expect(env.browser.browser.contexts()).toHaveLength(0);
  });

  it('runs every action the library accepts (issue #14): extra fields dropped, a fractional wait, empty strings are failed steps', async () => {
    const plan = [
      { action: 'wait', ms: 250.5, reason: 'let the page settle' },
      { action: 'click', selector: '' },
      { action: 'press', key: '' },
      { action: 'press', key: 'Enter', selector: '' },
      { action: 'navigate', url: '' },
      { action: 'click', selector: 'role=button[name="Clear list"]', description: 'empty the list' },
    ];
    const run = await runActions({ dir: app('dead-button') }, plan as never, { outDir: env.tmp(), browser: env.browser, actionTimeoutMs: 1000 });
    expect(run.plan[0]).toEqual({ action: 'wait', ms: 250.5 });
    expect(run.plan[5]).toEqual({ action: 'click', selector: 'role=button[name="Clear list"]' });
    expect(run.steps.map((st) => st.ok)).toEqual([true, true, false, false, false, false, true]);
    expect(run.steps[2]!.error).toContain('empty selector');
    expect(run.steps[3]!.error).toContain('empty key');
    expect(run.steps[4]!.error).toContain('empty selector');
    expect(run.steps[5]!.error).toContain('empty url');
    expect(run.steps[5]!.url).toBe(`${run.origin}/`);
    expect(run.steps[6]!.snapshot).toContain('0 items');
  });

  it('a wait of up to 5000 ms is not cut by a shorter per-action limit (issue #14)', async () => {
    const run = await runActions({ dir: app('dead-button') }, [{ action: 'wait', ms: 2000 }, { action: 'click', selector: '#does-not-exist' }], {
      outDir: env.tmp(),
      browser: env.browser,
      actionTimeoutMs: 300,
    });
    expect(run.steps[1]).toMatchObject({ ok: true });
    expect(run.steps[1]!.error).toBeUndefined();
    expect(run.steps[1]!.durationMs).toBeGreaterThanOrEqual(1990);
    // the other actions keep the per-action limit
    expect(run.steps[2]).toMatchObject({ ok: false, error: expect.stringContaining('Timeout 300ms exceeded') });
  });

  it('rejects a malformed plan before starting anything, naming the action', async () => {
    await expectFrognanoErrorAsync(() => runActions({ dir: app('dead-button') }, [{ action: 'tap', selector: '#a' } as never], { outDir: env.tmp(), browser: env.browser }), 'INVALID_TYPE', 'actions[0]');
  });
});

describe.skipIf(!chromium)('webJudge: planner, browser and judge (scripted model, real Chromium)', () => {
  const plan = [
    { action: 'fill', selector: 'role=textbox[name="New item"]', text: 'Eggs' },
    { action: 'click', selector: 'role=button[name="Add"]' },
    { action: 'click', selector: 'role=button[name="Clear list"]' },
  ];
  const verdict = {
    items: [
      { id: 'F1', passed: false, step: 2, observation: 'After clicking Add the list still holds only Milk.' },
      { id: 'F2', passed: true, step: 3, observation: 'After Clear list the list is empty and the counter reads 0 items.' },
      { id: 'C1', passed: true, step: 0, observation: 'The heading reads Shopping list.' },
      { id: 'U1', passed: true, step: 0, observation: 'The textbox is labelled New item.' },
    ],
  };

  it('the planner sees the loaded page; the judge sees the recording; the score follows SPEC §13', async () => {
    const s = await scriptedModels([answer({ actions: plan })], [answer(verdict)]);
    server = s.server;
    const out = env.tmp();
    const j = await webJudge({ dir: app('dead-button') }, SHOPPING_RUBRIC, { model: s.model, outDir: out, run: { browser: env.browser } });
    expect(s.server.requests.map(stageOf)).toEqual(['planner', 'judge']);
    expect(String(s.server.requests[0]!.body.messages![1]!.content)).toContain('- button "Add"');
    expect(j.plan).toEqual(plan);
    expect(j.steps).toHaveLength(4);
    expect(j.steps[2]!.snapshot).toBe(j.steps[1]!.snapshot);
    expect(j.verdict.items).toEqual(verdict.items);
    expect(j.score).toBe((0.377 * 0.5 + 0.19 + 0.093) / (0.377 + 0.19 + 0.093));
    expect(j.report).toBe(join(out, 'report.html'));
    const html = readFileSync(j.report, 'utf8');
    expect(html).toContain('<a href="#step-2">step 2</a>');
    expect(html).toContain('src="step-002.png"');
    // the judge got 4 screenshots of the 4 steps as PNG data URLs
    const parts = s.server.requests[1]!.body.messages![1]!.content as { type: string; image_url?: { url: string } }[];
    const imgs = parts.filter((p) => p.type === 'image_url').map((p) => Buffer.from(p.image_url!.url.replace('data:image/png;base64,', ''), 'base64'));
    expect(imgs.map((b) => pngSize(b))).toEqual(Array(4).fill({ width: 1280, height: 800 }));
  });

  it('a refused judge answer never becomes a number: webJudgeReward gives reward null and status refused', async () => {
    const bad = answer({ items: verdict.items.map((i) => ({ ...i, step: 9 })) });
    const s = await scriptedModels([answer({ actions: plan })], [bad, bad, bad]);
    server = s.server;
    const r = await webJudgeReward({ dir: app('dead-button') }, SHOPPING_RUBRIC, { model: s.model, outDir: env.tmp(), run: { browser: env.browser }, judge: { retries: 2 } });
    expect(r).toMatchObject({ reward: null, score: null, status: 'refused', error: { code: 'MODEL_ANSWER_INVALID', message: expect.stringContaining('cites step 9') } });
    expect(r.judgement).toBeUndefined();
    expect(s.server.requests.map(stageOf)).toEqual(['planner', 'judge', 'judge', 'judge']);
  });

  it('webJudge itself rejects with MODEL_ANSWER_INVALID when the plan is refused', async () => {
    const s = await scriptedModels([answer({ actions: [{ action: 'tap' }] }), answer({ actions: [{ action: 'tap' }] })], []);
    server = s.server;
    await expectFrognanoErrorAsync(
      () => webJudge({ dir: app('dead-button') }, SHOPPING_RUBRIC, { model: s.model, outDir: env.tmp(), run: { browser: env.browser }, planner: { retries: 1 } }),
      'MODEL_ANSWER_INVALID',
      'planActions',
    );
    expect(env.browser.browser.contexts()).toHaveLength(0);
  });

  it('best-of-k: judges every candidate and keeps the best, a refused one never competes', async () => {
    const rubric: WebRubric = {
      task: 'A counter with an Increment button',
      items: [{ id: 'F1', dimension: 'functional', text: 'Increment raises the number by one' }, { id: 'T1', dimension: 'technical', text: 'No errors in the console' }],
    };
    const fixed = [{ action: 'click', selector: '#inc' }] as WebAction[];
    const v = (f1: boolean, t1: boolean): string =>
      answer({ items: [{ id: 'F1', passed: f1, step: 1, observation: 'the number after the click' }, { id: 'T1', passed: t1, step: 1, observation: 'the console' }] });
    // candidate 0: F1 only; candidate 1: refused twice; candidate 2: both
    const s = await scriptedModels([], [v(true, false), 'no JSON', 'still no JSON', v(true, true)]);
    server = s.server;
    const out = env.tmp();
    const { selection, results } = await webJudgeBestOfK([{ dir: app('console-error') }, { dir: app('console-error') }, { dir: app('console-error') }], rubric, {
      model: s.model,
      outDir: out,
      plan: fixed,
      run: { browser: env.browser },
      judge: { retries: 1 },
    });
    expect(results.map((r) => r.status)).toEqual(['judged', 'refused', 'judged']);
    expect(results.map((r) => r.reward)).toEqual([0.377 / (0.377 + 0.072), null, 1]);
    expect(selection).toEqual({ index: 2, score: 1, tied: [2], refused: [1], reason: 'best' });
    expect(existsSync(join(out, 'candidate-2', 'report.html'))).toBe(true);
  });
});
