/**
 * `frognano web-judge` (SPEC §13) end to end against a scripted model server and
 * real Chromium: the printed document's shape, the report, exit codes, and
 * SIGINT closing the browser (no Chromium process of the run survives).
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatServer } from '../helpers/chatServer.js';
import { CLI_ARGS, ROOT, runInProcess } from '../cli/helpers.js';
import { answer, app, hasChromium, pngSize, scriptedModels, SHOPPING_RUBRIC, useBrowser } from './helpers.js';

const chromium = hasChromium();
const env = useBrowser(false); // temp folders only: the CLI launches its own browser

let server: ChatServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const PLAN = [
  { action: 'fill', selector: 'role=textbox[name="New item"]', text: 'Eggs' },
  { action: 'click', selector: 'role=button[name="Add"]' },
];
const VERDICT = {
  items: [
    { id: 'F1', passed: false, step: 2, observation: 'The list still holds only Milk after Add.' },
    { id: 'F2', passed: false, step: 0, observation: 'Clear list was not exercised.' },
    { id: 'C1', passed: true, step: 0, observation: 'Heading "Shopping list".' },
    { id: 'U1', passed: true, step: 1, observation: 'The textbox is labelled "New item".' },
  ],
};

function rubricFile(): string {
  const p = join(env.tmp(), 'rubric.json');
  writeFileSync(p, JSON.stringify(SHOPPING_RUBRIC));
  return p;
}

/** Ids of processes whose environment holds `marker` (the run's own processes: node, Chromium and its children). */
function pidsWithEnv(marker: string): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/environ`, 'latin1').includes(marker)) out.push(Number(d));
    } catch {
      // gone, or not ours to read
    }
  }
  return out;
}

describe('frognano web-judge: usage (no browser needed)', () => {
  it('--help documents the flags and the SPEC §13 document; missing flags are exit 2', async () => {
    const h = await runInProcess(['web-judge', '--help']);
    expect(h.code).toBe(0);
    expect(h.stdout).toContain('Usage: frognano web-judge --app DIR --rubric FILE [--out DIR] [--start CMD]');
    expect(h.stdout).toContain('"verdict": { "items": [{ "id", "passed", "step",');
    expect(h.stdout).toContain('{ "plan": null, "steps": [], "verdict": null, "score": null, "report": null, "error" }');
    const r = await runInProcess(['web-judge', '--rubric', 'x.json']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--app DIR is required');
  });

  it('an invalid rubric is exit 1 naming the file and the field', async () => {
    const p = join(env.tmp(), 'bad.json');
    writeFileSync(p, JSON.stringify({ task: 't', items: [{ id: 'A', dimension: 'speed', text: 'x' }] }));
    const r = await runInProcess(['web-judge', '--app', app('dead-button'), '--rubric', p, '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(p);
    expect(r.stderr).toContain('rubric.items[0].dimension');
  });

  it('no model configured is exit 2', async () => {
    const saved = { ...process.env };
    for (const k of ['FROGNANO_LLM_BASE_URL', 'FROGNANO_LLM_MODEL', 'OPENAI_BASE_URL', 'OPENAI_MODEL']) delete process.env[k];
    try {
      const r = await runInProcess(['web-judge', '--app', app('dead-button'), '--rubric', rubricFile()]);
      expect(r.code).toBe(2);
    } finally {
      Object.assign(process.env, saved);
    }
  });
});

describe.skipIf(!chromium)('frognano web-judge with a scripted model (real Chromium)', () => {
  it('prints the SPEC §13 document and writes the screenshots and report under --out', async () => {
    const s = await scriptedModels([answer({ actions: PLAN })], [answer(VERDICT)]);
    server = s.server;
    const out = join(env.tmp(), 'judge');
    const r = await runInProcess(['web-judge', '--app', app('dead-button'), '--rubric', rubricFile(), '--out', out, '--base-url', s.server.baseUrl, '--model', 'scripted']);
    expect(r.stderr).toContain('score 0.429');
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as Record<string, unknown> & { steps: Record<string, unknown>[]; verdict: { items: unknown[] }; score: number; report: string };
    expect(Object.keys(doc)).toEqual(['plan', 'steps', 'verdict', 'score', 'report']);
    expect(doc.plan).toEqual(PLAN);
    expect(doc.steps.map((st) => [st.index, st.ok, st.action])).toEqual([[0, true, null], [1, true, PLAN[0]], [2, true, PLAN[1]]]);
    for (const st of doc.steps) {
      expect(Object.keys(st)).toEqual(expect.arrayContaining(['index', 'action', 'ok', 'url', 'snapshot', 'console', 'screenshot']));
      expect(String(st.screenshot).startsWith(out)).toBe(true);
      expect(pngSize(readFileSync(String(st.screenshot)))).not.toBeNull();
    }
    expect(doc.steps[2]!.snapshot).toBe(doc.steps[1]!.snapshot);
    expect(doc.verdict).toEqual(VERDICT);
    expect(doc.score).toBe((0.19 + 0.093) / (0.377 + 0.19 + 0.093));
    expect(doc.report).toBe(join(out, 'report.html'));
    expect(readFileSync(doc.report, 'utf8')).toContain('Web judge report');
  });

  it('a refused verdict: "verdict": null, "score": null, the error, exit 4, and the report says so', async () => {
    const bad = answer({ items: VERDICT.items.slice(1) });
    const s = await scriptedModels([answer({ actions: PLAN })], [bad, bad, bad]);
    server = s.server;
    const out = join(env.tmp(), 'judge');
    const r = await runInProcess(['web-judge', '--app', app('dead-button'), '--rubric', rubricFile(), '--out', out, '--base-url', s.server.baseUrl, '--model', 'scripted']);
    expect(r.code).toBe(4);
    const doc = JSON.parse(r.stdout) as { verdict: unknown; score: unknown; error: { code: string; message: string }; steps: unknown[] };
    expect(doc.verdict).toBeNull();
    expect(doc.score).toBeNull();
    expect(doc.error.code).toBe('MODEL_ANSWER_INVALID');
    expect(doc.steps).toHaveLength(3);
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain('no score');
  });

  it('a refused plan prints the same document as a refused verdict, with nothing run: exit 4 (issue #14)', async () => {
    const bad = answer({ actions: [{ action: 'drag', selector: '#a' }] });
    const s = await scriptedModels([bad, bad, bad], []);
    server = s.server;
    const out = join(env.tmp(), 'judge');
    const r = await runInProcess(['web-judge', '--app', app('dead-button'), '--rubric', rubricFile(), '--out', out, '--base-url', s.server.baseUrl, '--model', 'scripted']);
    expect(r.code).toBe(4);
    const doc = JSON.parse(r.stdout) as Record<string, unknown> & { error: { code: string; message: string } };
    expect(Object.keys(doc)).toEqual(['plan', 'steps', 'verdict', 'score', 'report', 'error']);
    expect(doc).toMatchObject({ plan: null, steps: [], verdict: null, score: null, report: null, error: { code: 'MODEL_ANSWER_INVALID' } });
    expect(doc.error.message).toContain('"drag"');
    expect(r.stderr).toContain('no verdict (MODEL_ANSWER_INVALID)');
    expect(s.server.requests).toHaveLength(3);
  });

  it('screenshot links in the report work under an --out folder named with #, %, ? and a space (issue #14)', async () => {
    const s = await scriptedModels([answer({ actions: PLAN })], [answer(VERDICT)]);
    server = s.server;
    const out = join(env.tmp(), 'run #1 (50%) ?q');
    const r = await runInProcess(['web-judge', '--app', app('dead-button'), '--rubric', rubricFile(), '--out', out, '--base-url', s.server.baseUrl, '--model', 'scripted']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as { steps: { screenshot: string }[]; report: string };
    expect(doc.report).toBe(join(out, 'report.html'));
    const html = readFileSync(doc.report, 'utf8');
    const srcs = [...html.matchAll(/<img src="([^"]*)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
    expect(srcs).toHaveLength(3);
    srcs.forEach((src, i) => expect(fileURLToPath(new URL(src, pathToFileURL(doc.report)))).toBe(doc.steps[i]!.screenshot));
  });

  it('SIGINT during the run exits 130 and leaves no Chromium process of the run behind', async () => {
    const s = await scriptedModels([answer({ actions: [{ action: 'wait', ms: 5000 }, { action: 'wait', ms: 5000 }, { action: 'wait', ms: 5000 }] })], []);
    server = s.server;
    const out = join(env.tmp(), 'judge');
    const marker = `FROGNANO_WEBJUDGE_SIGINT_TEST=${process.pid}-${Date.now()}`;
    const [k, v] = marker.split('=') as [string, string];
    const child = spawn(process.execPath, [...CLI_ARGS, 'web-judge', '--app', app('dead-button'), '--rubric', rubricFile(), '--out', out, '--base-url', s.server.baseUrl, '--model', 'scripted'], {
      cwd: ROOT,
      env: { ...process.env, [k]: v },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const t0 = performance.now();
    while (!existsSync(join(out, 'step-000.png')) && performance.now() - t0 < 30_000) await new Promise((r) => setTimeout(r, 100));
    expect(existsSync(join(out, 'step-000.png')), stderr).toBe(true);
    // the positive control: the CLI's node and its Chromium processes carry the marker now
    expect(pidsWithEnv(marker).length).toBeGreaterThan(1);
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    await new Promise((r) => setTimeout(r, 500));
    expect(pidsWithEnv(marker)).toEqual([]);
  }, 60_000);
});
