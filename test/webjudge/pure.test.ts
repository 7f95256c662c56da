/**
 * The web judge's parts that need no browser: the action library, the rubric and
 * its score, the best-of-k filter, screenshot sampling, the static server (path
 * traversal, content types), the source reader, Chromium discovery, and the
 * planner and judge against a scripted model server (valid answers, and invalid
 * ones that must be refused).
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { FrognanoError } from '../../src/errors/FrognanoError.js';
import {
  findChromium,
  judgeInteraction,
  launchWebBrowser,
  parseWebRubric,
  planActions,
  readAppSources,
  renderWebJudgeReport,
  sampleScreenshotSteps,
  selectBestOfK,
  serveStatic,
  WEB_JUDGE_WEIGHTS,
  WebActionSchema,
  PlanAnswerSchema,
  webJudgeScore,
  type WebRun,
} from '../../src/webjudge/index.js';
import { screenshotHref } from '../../src/webjudge/report.js';
import { actionLimitMs } from '../../src/webjudge/timeLimits.js';
import type { ChatServer } from '../helpers/chatServer.js';
import { expectFrognanoError, expectFrognanoErrorAsync } from '../helpers/expectError.js';
import { answer, app, scriptedModels, SHOPPING_RUBRIC, stageOf } from './helpers.js';

const tmpDirs: string[] = [];
const tmp = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'frognano-webjudge-pure-'));
  tmpDirs.push(d);
  return d;
};
afterAll(() => tmpDirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

let server: ChatServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('action library (SPEC §13)', () => {
  it.each([
    [{ action: 'click', selector: '#a' }],
    [{ action: 'fill', selector: '#a', text: '' }],
    [{ action: 'hover', selector: 'text=Menu' }],
    [{ action: 'press', key: 'Enter' }],
    [{ action: 'press', key: 'Tab', selector: '#a' }],
    [{ action: 'scroll' }],
    [{ action: 'scroll', selector: '#list', dy: -200 }],
    [{ action: 'navigate', url: '/about.html' }],
    [{ action: 'wait', ms: 5000 }],
    [{ action: 'wait', ms: 0 }],
    // issue #14: SPEC §13 rejects a plan only for an unknown action or a missing or mistyped field
    [{ action: 'wait', ms: 250.5 }],
    [{ action: 'hover', selector: '' }],
    [{ action: 'press', key: '' }],
    [{ action: 'navigate', url: '' }],
    [{ action: 'scroll', selector: '' }],
  ])('accepts %j', (a) => expect(WebActionSchema.safeParse(a).success).toBe(true));

  it.each([
    ['an unknown action', { action: 'drag', selector: '#a' }],
    ['a missing selector', { action: 'click' }],
    ['a mistyped field', { action: 'fill', selector: '#a', text: 3 }],
    ['a mistyped optional field', { action: 'scroll', dy: '100' }],
    ['a wait over 5000 ms', { action: 'wait', ms: 5001 }],
    ['a wait just over 5000 ms', { action: 'wait', ms: 5000.5 }],
    ['a negative wait', { action: 'wait', ms: -1 }],
    ['a wait as a string', { action: 'wait', ms: '10' }],
    ['a null selector', { action: 'hover', selector: null }],
  ])('rejects %s', (_, a) => expect(WebActionSchema.safeParse(a).success).toBe(false));

  it('drops a field that is not listed instead of rejecting the action (issue #14)', () => {
    expect(WebActionSchema.parse({ action: 'click', selector: '#a', description: 'open the menu', button: 'right' })).toEqual({ action: 'click', selector: '#a' });
    expect(WebActionSchema.parse({ action: 'wait', ms: 250.5, why: 'animation' })).toEqual({ action: 'wait', ms: 250.5 });
  });

  it('a plan answer must hold an array of actions', () => {
    expect(PlanAnswerSchema.safeParse({ actions: [{ action: 'click', selector: '#a', description: 'x' }] })).toMatchObject({ success: true, data: { actions: [{ action: 'click', selector: '#a' }] } });
    expect(PlanAnswerSchema.safeParse({ actions: [] }).success).toBe(true);
    for (const bad of [{ actions: { action: 'click', selector: '#a' } }, { actions: 'click #a' }, { actions: null }, {}, []]) expect(PlanAnswerSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
  });

  it('the time limit of a wait is the longer of the action limit and its ms, within the run (issue #14)', () => {
    expect(actionLimitMs({ action: 'wait', ms: 5000 }, 1000, 100_000)).toBe(5000);
    expect(actionLimitMs({ action: 'wait', ms: 250.5 }, 1000, 100_000)).toBe(1000);
    expect(actionLimitMs({ action: 'wait', ms: 4999.6 }, 1000, 100_000)).toBe(5000);
    expect(actionLimitMs({ action: 'wait', ms: 5000 }, 1000, 3000)).toBe(3000);
    expect(actionLimitMs({ action: 'click', selector: '#a' }, 1000, 100_000)).toBe(1000);
    expect(actionLimitMs({ action: 'click', selector: '#a' }, 1000, 400)).toBe(400);
    expect(actionLimitMs({ action: 'click', selector: '#a' }, 1000, -5)).toBe(1);
  });
});

describe('rubric and score', () => {
  it('weights are VH §3.1 shares', () => {
    expect(WEB_JUDGE_WEIGHTS).toEqual({ functional: 0.377, content: 0.19, visual: 0.133, layout: 0.129, ux: 0.093, technical: 0.072 });
  });

  it('scores by the SPEC §13 formula over the dimensions present', () => {
    const s = webJudgeScore([
      { dimension: 'functional', passed: true },
      { dimension: 'functional', passed: false },
      { dimension: 'ux', passed: true },
    ]);
    expect(s.score).toBe((0.377 * 0.5 + 0.093 * 1) / (0.377 + 0.093));
    expect(s.byDimension.functional).toEqual({ items: 2, passed: 1, rate: 0.5 });
    expect(s.byDimension.visual).toEqual({ items: 0, passed: 0, rate: null });
  });

  it('all passed is 1 and none passed is 0', () => {
    expect(webJudgeScore([{ dimension: 'visual', passed: true }, { dimension: 'technical', passed: true }]).score).toBe(1);
    expect(webJudgeScore([{ dimension: 'visual', passed: false }]).score).toBe(0);
  });

  it('stays in [0, 1] and is monotone in each item (property)', () => {
    const dims = Object.keys(WEB_JUDGE_WEIGHTS) as (keyof typeof WEB_JUDGE_WEIGHTS)[];
    fc.assert(
      fc.property(fc.array(fc.record({ dimension: fc.constantFrom(...dims), passed: fc.boolean() }), { minLength: 1, maxLength: 30 }), fc.nat(), (items, k) => {
        const s = webJudgeScore(items).score;
        expect(s).toBeGreaterThanOrEqual(0);
        expect(s).toBeLessThanOrEqual(1);
        const i = k % items.length;
        const up = items.map((x, j) => (j === i ? { ...x, passed: true } : x));
        expect(webJudgeScore(up).score).toBeGreaterThanOrEqual(s);
      }),
    );
  });

  it('rejects no item with EMPTY_INPUT and an unknown dimension naming it', () => {
    expectFrognanoError(() => webJudgeScore([]), 'EMPTY_INPUT', 'items');
    expectFrognanoError(() => webJudgeScore([{ dimension: 'speed' as never, passed: true }]), 'INVALID_TYPE', 'items[0].dimension');
  });

  it('parseWebRubric names the bad field, an empty list and a repeated id', () => {
    expectFrognanoError(() => parseWebRubric({ task: 't', items: [{ id: 'a', dimension: 'fun', text: 'x' }] }), 'INVALID_TYPE', 'rubric.items[0].dimension');
    expectFrognanoError(() => parseWebRubric({ task: 't', items: [] }), 'EMPTY_INPUT', 'rubric.items');
    expectFrognanoError(
      () => parseWebRubric({ task: 't', items: [{ id: 'a', dimension: 'ux', text: 'x' }, { id: 'a', dimension: 'ux', text: 'y' }] }),
      'OUT_OF_RANGE',
      'rubric.items[1].id',
    );
    expectFrognanoError(() => parseWebRubric({ task: 't', items: [{ id: 'a', dimension: 'ux', description: 'x' }] }), 'INVALID_TYPE', 'rubric.items[0]');
  });
});

describe('selectBestOfK (best-of-k RFT filter)', () => {
  it('keeps the best scored candidate', () => expect(selectBestOfK([0.2, 0.9, 0.5])).toEqual({ index: 1, score: 0.9, tied: [1], refused: [], reason: 'best' }));
  it('never keeps nor zeroes a refused judgement', () => {
    expect(selectBestOfK([null, 0.1, null])).toEqual({ index: 1, score: 0.1, tied: [1], refused: [0, 2], reason: 'best' });
    expect(selectBestOfK([null, null])).toEqual({ index: null, score: null, tied: [], refused: [0, 1], reason: 'all-refused' });
  });
  it('a best below minScore keeps nothing', () => expect(selectBestOfK([0.5, 0.75], { minScore: 1 })).toEqual({ index: null, score: null, tied: [1], refused: [], reason: 'below-min-score' }));
  it('ties: first takes the lowest index, random is seeded and uniform over the tied', () => {
    expect(selectBestOfK([0.3, 0.8, 0.8, 0.8], { ties: 'first' }).index).toBe(1);
    const picks = new Map<number, number>();
    for (let seed = 0; seed < 300; seed++) {
      const s = selectBestOfK([0.3, 0.8, 0.8, 0.8], { seed });
      expect(s.tied).toEqual([1, 2, 3]);
      expect(selectBestOfK([0.3, 0.8, 0.8, 0.8], { seed }).index).toBe(s.index); // same seed, same pick
      picks.set(s.index!, (picks.get(s.index!) ?? 0) + 1);
    }
    expect([...picks.keys()].sort()).toEqual([1, 2, 3]);
    for (const n of picks.values()) expect(n).toBeGreaterThan(60);
  });
  it('rejects an empty list, NaN and a non-number, naming the index', () => {
    expectFrognanoError(() => selectBestOfK([]), 'EMPTY_INPUT', 'scores');
    expectFrognanoError(() => selectBestOfK([0.1, NaN]), 'NON_FINITE', 'scores[1]');
    expectFrognanoError(() => selectBestOfK([0.1, '0.2' as never]), 'INVALID_TYPE', 'scores[1]');
  });
});

describe('sampleScreenshotSteps', () => {
  it('takes all steps up to k, else k evenly spaced with the first and last', () => {
    expect(sampleScreenshotSteps(3, 6)).toEqual([0, 1, 2]);
    expect(sampleScreenshotSteps(11, 6)).toEqual([0, 2, 4, 6, 8, 10]);
    expect(sampleScreenshotSteps(10, 4)).toEqual([0, 3, 6, 9]);
    expect(sampleScreenshotSteps(10, 1)).toEqual([9]);
    expect(sampleScreenshotSteps(10, 0)).toEqual([]);
  });
  it('gives k distinct increasing indices in range (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200 }), fc.integer({ min: 2, max: 50 }), (n, k) => {
        const s = sampleScreenshotSteps(n, k);
        expect(s.length).toBe(Math.min(n, k));
        for (let i = 1; i < s.length; i++) expect(s[i]!).toBeGreaterThan(s[i - 1]!);
        expect(s[0]).toBe(0);
        expect(s[s.length - 1]).toBe(n - 1);
      }),
    );
  });
});

/** A raw GET (no URL normalisation by a client): status, content type, body. */
function rawGet(origin: string, path: string): Promise<{ status: number; type: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${origin}/`, { path, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, type: res.headers['content-type'], body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('serveStatic', () => {
  it('serves files with their content types, a folder as its index.html, and 404 otherwise', async () => {
    const s = await serveStatic(app('dead-button'));
    try {
      expect(s.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const index = await rawGet(s.origin, '/');
      expect(index.status).toBe(200);
      expect(index.type).toBe('text/html; charset=utf-8');
      expect(index.body).toContain('<h1>Shopping list</h1>');
      expect((await rawGet(s.origin, '/app.js')).type).toBe('text/javascript; charset=utf-8');
      expect((await rawGet(s.origin, '/style.css?v=2')).type).toBe('text/css; charset=utf-8');
      expect((await rawGet(s.origin, '/missing.js')).status).toBe(404);
    } finally {
      await s.close();
    }
  });

  it('never serves a file outside the folder: .., encoded .., absolute paths, symbolic links out', async () => {
    const root = tmp();
    writeFileSync(join(root, 'secret.txt'), 'TOP SECRET');
    const site = join(root, 'site');
    mkdirSync(join(site, 'sub'), { recursive: true });
    writeFileSync(join(site, 'index.html'), '<p>home</p>');
    writeFileSync(join(site, 'sub', 'page.html'), '<p>sub</p>');
    symlinkSync(join(root, 'secret.txt'), join(site, 'link.txt'));
    symlinkSync(root, join(site, 'up'));
    const s = await serveStatic(site);
    try {
      expect((await rawGet(s.origin, '/sub/page.html')).body).toBe('<p>sub</p>');
      expect((await rawGet(s.origin, '/sub/')).status).toBe(404); // no index.html there
      for (const p of ['/../secret.txt', '/sub/../../secret.txt', '/%2e%2e/secret.txt', '/..%2fsecret.txt', '/sub%2f..%2f..%2fsecret.txt', '//etc/passwd', '/link.txt', '/up/secret.txt', '/%00', '/%E0%A4%A']) {
        const r = await rawGet(s.origin, p);
        expect(r.status, p).toBe(404);
        expect(r.body, p).not.toContain('TOP SECRET');
      }
    } finally {
      await s.close();
    }
  });

  it('answers 405 to other methods and rejects a folder that does not exist', async () => {
    const s = await serveStatic(app('dead-button'));
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(`${s.origin}/`, { method: 'POST' }, (res) => (res.resume(), resolve(res.statusCode!)));
        req.on('error', reject).end('x');
      });
      expect(status).toBe(405);
    } finally {
      await s.close();
    }
    await expectFrognanoErrorAsync(() => serveStatic(join(tmp(), 'nope')), 'INVALID_TYPE', 'nope');
  });
});

describe('readAppSources', () => {
  it('reads index.html first, skips node_modules and dotfiles, and notes what it cut', async () => {
    const d = tmp();
    writeFileSync(join(d, 'app.js'), 'x'.repeat(5000));
    writeFileSync(join(d, 'index.html'), '<h1>hi</h1>');
    writeFileSync(join(d, 'z.css'), 'body{}');
    writeFileSync(join(d, 'photo.png'), 'binary');
    writeFileSync(join(d, '.env'), 'KEY=1');
    mkdirSync(join(d, 'node_modules', 'lib'), { recursive: true });
    writeFileSync(join(d, 'node_modules', 'lib', 'index.js'), 'dep');
    const all = await readAppSources(d, 100_000, 100_000);
    expect(all.shown).toEqual(['index.html', 'app.js', 'z.css']);
    expect(all.text.startsWith('### index.html\n<h1>hi</h1>')).toBe(true);
    expect(all.text).not.toContain('KEY=1');
    expect(all.text).not.toContain('dep');
    const capped = await readAppSources(d, 1040, 1000);
    expect(capped.shown).toEqual(['index.html', 'app.js']);
    expect(capped.omitted).toEqual(['z.css']);
    expect(capped.text).toMatch(/\[\.\.\. 4000 characters cut \.\.\.\]/);
    expect(capped.text).toContain('[source cut: 4000 characters were cut from long files (marked in place); 1 more file(s) not shown: z.css]');
  });
});

describe('findChromium', () => {
  it('takes FROGNANO_CHROMIUM, then the first of chromium, chromium-browser, google-chrome on PATH', () => {
    const d = tmp();
    const fake = (name: string): string => {
      const p = join(d, name);
      writeFileSync(p, '#!/bin/sh\n');
      chmodSync(p, 0o755);
      return p;
    };
    const chrome = fake('google-chrome');
    expect(findChromium(undefined, { PATH: d })).toBe(chrome);
    const chromium = fake('chromium');
    expect(findChromium(undefined, { PATH: `/nonexistent:${d}` })).toBe(chromium);
    expect(findChromium(undefined, { PATH: d, FROGNANO_CHROMIUM: chrome })).toBe(chrome);
    expect(findChromium(undefined, { PATH: d, FROGNANO_CHROMIUM: join(d, 'missing') })).toBeNull();
    expect(findChromium(undefined, { PATH: join(d, 'empty') })).toBeNull();
  });

  it('launchWebBrowser without Chromium fails with BROWSER_UNAVAILABLE naming the Debian package', async () => {
    const e = await expectFrognanoErrorAsync(() => launchWebBrowser({ executablePath: join(tmp(), 'no-chromium') }), 'BROWSER_UNAVAILABLE', 'chromium', 'apt-get install chromium');
    expect(e.message).toContain('FROGNANO_CHROMIUM');
  });
});

const PAGE = { url: 'http://127.0.0.1:9/', title: 'Shopping list', snapshot: '- heading "Shopping list" [level=1]\n- button "Add"' };

describe('planActions (scripted model)', () => {
  it('sends the page and rubric once and returns the validated plan', async () => {
    const plan = [{ action: 'fill', selector: '#item', text: 'Eggs' }, { action: 'click', selector: 'role=button[name="Add"]' }];
    const s = await scriptedModels([answer({ actions: plan })], []);
    server = s.server;
    expect(await planActions(PAGE, SHOPPING_RUBRIC, { model: s.model })).toEqual(plan);
    expect(s.server.requests).toHaveLength(1);
    const user = String(s.server.requests[0]!.body.messages![1]!.content);
    expect(user).toContain('- heading "Shopping list" [level=1]');
    expect(user).toContain('- F1 [functional] Clicking Add appends the typed item to the list');
    expect(stageOf(s.server.requests[0]!)).toBe('planner');
  });

  it('retries a plan with an unknown action, then accepts the corrected one', async () => {
    const s = await scriptedModels([answer({ actions: [{ action: 'drag', selector: '#a' }] }), answer({ actions: [{ action: 'wait', ms: 10 }] })], []);
    server = s.server;
    expect(await planActions(PAGE, SHOPPING_RUBRIC, { model: s.model })).toEqual([{ action: 'wait', ms: 10 }]);
    expect(s.server.requests).toHaveLength(2);
    expect(String(s.server.requests[1]!.body.messages!.at(-1)!.content)).toContain('"drag"');
  });

  it('fails with MODEL_ANSWER_INVALID after the retries (missing field, mistyped field, no JSON)', async () => {
    const s = await scriptedModels([answer({ actions: [{ action: 'click' }] }), answer({ actions: [{ action: 'wait', ms: '10' }] }), 'I would click Add.'], []);
    server = s.server;
    await expectFrognanoErrorAsync(() => planActions(PAGE, SHOPPING_RUBRIC, { model: s.model, retries: 2 }), 'MODEL_ANSWER_INVALID', '3 attempt');
    expect(s.server.requests).toHaveLength(3);
  });

  it('accepts a plan whose actions carry extra fields at the first answer, dropping them (issue #14)', async () => {
    const plan = [
      { action: 'fill', selector: '#item', text: 'Eggs', description: 'type an item' },
      { action: 'wait', ms: 250.5, reason: 'let the list update' },
      { action: 'click', selector: '', description: 'the model left the selector empty' },
    ];
    const s = await scriptedModels([answer({ actions: plan })], []);
    server = s.server;
    expect(await planActions(PAGE, SHOPPING_RUBRIC, { model: s.model })).toEqual([
      { action: 'fill', selector: '#item', text: 'Eggs' },
      { action: 'wait', ms: 250.5 },
      { action: 'click', selector: '' },
    ]);
    expect(s.server.requests).toHaveLength(1);
  });

  it('still retries a plan whose actions are not an array, or a wait out of range', async () => {
    const s = await scriptedModels([answer({ actions: { action: 'wait', ms: 10 } }), answer({ actions: [{ action: 'wait', ms: -1 }] }), answer({ actions: [{ action: 'wait', ms: 10 }] })], []);
    server = s.server;
    expect(await planActions(PAGE, SHOPPING_RUBRIC, { model: s.model })).toEqual([{ action: 'wait', ms: 10 }]);
    expect(s.server.requests).toHaveLength(3);
  });

  it('cuts a plan longer than maxActions to its first maxActions', async () => {
    const s = await scriptedModels([answer({ actions: Array.from({ length: 5 }, (_, i) => ({ action: 'wait', ms: i })) })], []);
    server = s.server;
    expect(await planActions(PAGE, SHOPPING_RUBRIC, { model: s.model, maxActions: 3 })).toEqual([0, 1, 2].map((ms) => ({ action: 'wait', ms })));
  });
});

/** A tiny valid PNG (1x1). */
const PNG_1x1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

/** A recorded run without a browser: three steps whose screenshots are a 1x1 PNG. */
function fakeRun(): WebRun {
  const d = tmp();
  const shot = (i: number): string => {
    const p = join(d, `step-${i}.png`);
    writeFileSync(p, PNG_1x1);
    return p;
  };
  const snap0 = '- heading "Shopping list" [level=1]\n- textbox "New item"\n- list "Items":\n  - listitem: Milk';
  const snap1 = '- heading "Shopping list" [level=1]\n- textbox "New item": Eggs\n- list "Items":\n  - listitem: Milk';
  const base = { title: 'Shopping list', url: 'http://127.0.0.1:9/', blocked: [], durationMs: 10 };
  return {
    app: { dir: app('dead-button') },
    origin: 'http://127.0.0.1:9',
    plan: [{ action: 'fill', selector: '#item', text: 'Eggs' }, { action: 'click', selector: '#add' }],
    steps: [
      { ...base, index: 0, action: null, ok: true, snapshot: snap0, console: [], screenshot: shot(0) },
      { ...base, index: 1, action: { action: 'fill', selector: '#item', text: 'Eggs' }, ok: true, snapshot: snap1, console: [], screenshot: shot(1) },
      { ...base, index: 2, action: { action: 'click', selector: '#add' }, ok: true, snapshot: snap1, console: ['[error] boom'], screenshot: shot(2) },
    ],
    blocked: [],
    truncated: false,
    browserVersion: 'test',
    durationMs: 30,
  };
}

const GOOD = {
  items: [
    { id: 'F1', passed: false, step: 2, observation: 'After clicking Add the list still only holds Milk.' },
    { id: 'F2', passed: false, step: 0, observation: 'Clear list was never clicked.' },
    { id: 'C1', passed: true, step: 0, observation: 'Heading "Shopping list".' },
    { id: 'U1', passed: true, step: 0, observation: 'The textbox is named "New item".' },
  ],
};

describe('judgeInteraction (scripted model)', () => {
  it('sends the screenshots as image_url data URLs, the steps, the console and the sources, and scores the answer', async () => {
    const s = await scriptedModels([], [answer(GOOD)]);
    server = s.server;
    const v = await judgeInteraction(fakeRun(), SHOPPING_RUBRIC, { model: s.model });
    expect(v.items).toEqual(GOOD.items);
    // functional 0/2, content 1/1, ux 1/1
    expect(v.score).toBe((0.377 * 0 + 0.19 * 1 + 0.093 * 1) / (0.377 + 0.19 + 0.093));
    expect(v.screenshotSteps).toEqual([0, 1, 2]);
    const content = s.server.requests[0]!.body.messages![1]!.content as { type: string; text?: string; image_url?: { url: string } }[];
    const images = content.filter((p) => p.type === 'image_url');
    expect(images).toHaveLength(3);
    expect(images[0]!.image_url!.url).toBe(`data:image/png;base64,${PNG_1x1.toString('base64')}`);
    const text = content[0]!.text!;
    expect(text).toContain('## Step 2: click #add -> ok');
    expect(text).toContain('ARIA snapshot: unchanged from step 1');
    expect(text).toContain('[error] boom');
    expect(text).toContain('### index.html'); // the app's sources
    expect(text).toContain('Known bug: the Add button has no handler');
  });

  it('caps the screenshots at maxScreenshots', async () => {
    const s = await scriptedModels([], [answer(GOOD)]);
    server = s.server;
    const v = await judgeInteraction(fakeRun(), SHOPPING_RUBRIC, { model: s.model, maxScreenshots: 2 });
    expect(v.screenshotSteps).toEqual([0, 2]);
    const content = s.server.requests[0]!.body.messages![1]!.content as { type: string }[];
    expect(content.filter((p) => p.type === 'image_url')).toHaveLength(2);
  });

  const invalid: [string, unknown, string][] = [
    ['misses an item', { items: GOOD.items.slice(1) }, 'F1 missing'],
    ['cites a step that was not recorded', { items: [{ ...GOOD.items[0]!, step: 3 }, ...GOOD.items.slice(1)] }, 'cites step 3'],
    ['has an empty observation', { items: [{ ...GOOD.items[0]!, observation: '  ' }, ...GOOD.items.slice(1)] }, 'no observation'],
    ['names an unknown item', { items: [...GOOD.items, { id: 'X9', passed: true, step: 0, observation: 'x' }] }, 'unknown rubric item id "X9"'],
    ['decides an item twice', { items: [...GOOD.items, GOOD.items[0]] }, 'decided twice'],
    ['has passed as a string', { items: [{ ...GOOD.items[0]!, passed: 'no' }, ...GOOD.items.slice(1)] }, 'passed must be a boolean'],
  ];
  it.each(invalid)('refuses an answer that %s: retried, then MODEL_ANSWER_INVALID, never a score', async (_, bad, reason) => {
    const s = await scriptedModels([], [answer(bad), answer(bad)]);
    server = s.server;
    const e = await expectFrognanoErrorAsync(() => judgeInteraction(fakeRun(), SHOPPING_RUBRIC, { model: s.model, retries: 1 }), 'MODEL_ANSWER_INVALID', reason);
    expect(e).toBeInstanceOf(FrognanoError);
    expect(s.server.requests).toHaveLength(2);
    // the retry tells the model why
    expect(String(s.server.requests[1]!.body.messages!.at(-1)!.content)).toContain(reason);
  });

  it('accepts a corrected answer after an invalid one', async () => {
    const s = await scriptedModels([], [answer({ items: GOOD.items.slice(1) }), answer(GOOD)]);
    server = s.server;
    const v = await judgeInteraction(fakeRun(), SHOPPING_RUBRIC, { model: s.model });
    expect(v.items.map((i) => i.passed)).toEqual([false, false, true, true]);
  });

  it('rejects a run without steps, naming the field', async () => {
    const s = await scriptedModels([], []);
    server = s.server;
    await expectFrognanoErrorAsync(() => judgeInteraction({ ...fakeRun(), steps: [] }, SHOPPING_RUBRIC, { model: s.model }), 'EMPTY_INPUT', 'run.steps');
    expect(s.server.requests).toHaveLength(0);
  });
});

describe('renderWebJudgeReport', () => {
  it('links each verdict item to its step, diffs snapshots, escapes text, and says when the verdict was refused', () => {
    const run = fakeRun();
    run.steps[2]!.console = ['[error] <script>alert(1)</script>'];
    const verdict = { items: GOOD.items, screenshotSteps: [0, 1, 2], ...webJudgeScore([{ dimension: 'functional', passed: false }]) };
    const html = renderWebJudgeReport({ run, rubric: SHOPPING_RUBRIC, verdict }, join(tmp(), 'report.html'));
    expect(html).toContain('<a href="#step-2">step 2</a> After clicking Add the list still only holds Milk.');
    expect(html).toContain('id="step-2"');
    expect(html).toContain('<span class="add"><b class="gut">+</b>- textbox &quot;New item&quot;: Eggs</span>');
    expect(html).toContain('<span class="del"><b class="gut">−</b>- textbox &quot;New item&quot;</span>');
    expect(html).toContain('No change from step 1.');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toContain('<script>alert(1)</script>');
    // a step that changed the URL shows the new page whole, not a diff against the old one
    const moved = fakeRun();
    moved.steps[2] = { ...moved.steps[2]!, url: 'http://127.0.0.1:9/about.html', snapshot: '- heading "About" [level=1]' };
    expect(renderWebJudgeReport({ run: moved, rubric: SHOPPING_RUBRIC, verdict }, join(tmp(), 'report.html'))).toContain(
      'ARIA snapshot (a new page: the URL changed at this step)</div><pre class="snap">- heading &quot;About&quot; [level=1]</pre>',
    );
    const refused = renderWebJudgeReport({ run, rubric: SHOPPING_RUBRIC, verdict: null, refused: 'F1 missing' }, join(tmp(), 'report.html'));
    expect(refused).toContain('no score');
    expect(refused).toContain('F1 missing');
  });

  it('screenshot links are percent-encoded per path segment: #, %, ? and spaces in folder names still resolve (issue #14)', () => {
    const root = tmp();
    const run = fakeRun();
    // the screenshots in a folder whose name has every character that breaks a raw link
    const shots = join(root, 'run #1 (50%) ?x=1 & <b>');
    mkdirSync(shots);
    run.steps = run.steps.map((st, i) => {
      const p = join(shots, `step ${i}#a%20.png`);
      writeFileSync(p, PNG_1x1);
      return { ...st, screenshot: p };
    });
    const verdict = { items: GOOD.items, screenshotSteps: [0, 1, 2], ...webJudgeScore([{ dimension: 'functional', passed: false }]) };
    for (const reportPath of [join(root, 'report.html'), join(root, 'sibling dir %', 'report.html'), join(shots, 'report.html')]) {
      const html = renderWebJudgeReport({ run, rubric: SHOPPING_RUBRIC, verdict }, reportPath);
      const unescape = (v: string): string => v.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
      const srcs = [...html.matchAll(/<img src="([^"]*)"/g)].map((m) => unescape(m[1]!));
      const hrefs = [...html.matchAll(/<a href="([^"#][^"]*)"><img/g)].map((m) => unescape(m[1]!));
      expect(srcs).toHaveLength(3);
      expect(hrefs).toEqual(srcs);
      // what a browser does with the link: resolve it against the report's file URL
      srcs.forEach((src, i) => expect(fileURLToPath(new URL(src, pathToFileURL(reportPath)))).toBe(run.steps[i]!.screenshot));
    }
    expect(screenshotHref(root, join(root, 'a b', 'c#d.png'))).toBe('a%20b/c%23d.png');
    expect(screenshotHref(join(root, 'x'), join(root, 'a%', 'p?.png'))).toBe('../a%25/p%3F.png');
    expect(screenshotHref(dirname(run.steps[0]!.screenshot), run.steps[0]!.screenshot)).toBe('step%200%23a%2520.png');
  });
});
