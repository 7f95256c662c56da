/**
 * rolloutTasks (SPEC §12): groups of episodes -> rewards (§1), advantages (§2),
 * rule-funnel findings (§10); failures recorded, never dropped; abort stops cleanly.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { groupAdvantages } from '../../src/advantage/groupAdvantages.js';
import { episodeSeed, type RolloutProgress, type RolloutRecord, rolloutTasks } from '../../src/leaf/rolloutTasks.js';
import { createSandbox, type Sandbox } from '../../src/leaf/sandbox.js';
import { shapeReward } from '../../src/rewards/shapeReward.js';
import type { ChatTurn } from '../../src/llm/toolChat.js';
import { FrognanoError } from '../../src/errors/FrognanoError.js';
import { expectFrognanoErrorAsync } from '../helpers/expectError.js';
import { makeTask } from '../helpers/leafTask.js';
import { hasBwrap } from '../helpers/system.js';
import { calls, final, toolModel } from '../helpers/toolModel.js';

/** A model whose episode is chosen by its seed: fix then stop, write a test file then stop, fail every request, or call bash forever. */
function seededModel(decide: (seed: number) => 'fix' | 'give-up' | 'error' | 'loop') {
  const base = toolModel([]);
  return {
    ...base,
    name: 'seeded',
    async chat(messages: readonly { role: string }[], opts?: { seed?: number }): Promise<ChatTurn> {
      const d = decide(opts?.seed ?? 0);
      const turn = messages.filter((m) => m.role === 'assistant').length;
      if (d === 'error') throw Object.assign(new Error('openAiChatModel: POST x failed after 3 attempt(s); last: HTTP 503'), { code: 'MODEL_UNAVAILABLE' });
      const usage = { promptTokens: 50, completionTokens: 100 };
      if (d === 'loop') return { ...(calls(['bash', { command: 'true' }]) as ChatTurn), usage };
      if (turn === 0 && d === 'fix') return { ...(calls(['write', { file_path: 'a.txt', content: 'world\n' }]) as ChatTurn), usage };
      if (turn === 0) return { ...(calls(['write', { file_path: 'tests/test_x.py', content: 'assert True\n' }]) as ChatTurn), usage };
      return { ...(final() as ChatTurn), usage };
    },
  };
}

describe.skipIf(!hasBwrap())('rolloutTasks', () => {
  let sandbox: Sandbox;
  beforeAll(() => {
    sandbox = createSandbox();
  });
  const task = (id: string, limits?: { maxTurns: number }) => makeTask({ id, files: { 'a.txt': 'hello\n' }, hidden: { 'check.sh': 'grep -q world a.txt\n' }, command: 'bash check.sh', limits });

  it('episodeSeed: distinct per episode, independent of other tasks, int32', () => {
    expect(episodeSeed(0, 'a', 1) - episodeSeed(0, 'a', 0)).toBe(1);
    expect(episodeSeed(0, 'a', 0)).not.toBe(episodeSeed(0, 'b', 0));
    expect(episodeSeed(1, 'a', 0)).not.toBe(episodeSeed(0, 'a', 0));
    expect(episodeSeed(0, 'a', 0)).toBe(episodeSeed(0, 'a', 0));
    expect(Number.isInteger(episodeSeed(123456789, 'x'.repeat(100), 7))).toBe(true);
  });

  it('G episodes per task: rewards by SPEC §1, advantages by SPEC §2 over the group, findings by the rule funnel', async () => {
    const tasks = [await task('alpha'), await task('beta', { maxTurns: 1 })];
    // episode e of a task: fix when (seed - seed0) is even
    const seed0 = new Map(tasks.map((t) => [episodeSeed(3, t.id, 0), t.id]));
    const model = seededModel((s) => {
      for (const [s0] of seed0) if (s - s0 >= 0 && s - s0 < 4) return (s - s0) % 2 === 0 ? 'fix' : 'give-up';
      return 'give-up';
    });
    const out: RolloutRecord[][] = [];
    const progress: RolloutProgress[] = [];
    const summary = await rolloutTasks(tasks, { model, sandbox, group: 4, concurrency: 3, seed: 3, shaping: { budget: 150, alpha: 0.5 }, onRecords: (r) => void out.push(r), onProgress: (p) => void progress.push(p) });
    expect(summary).toEqual({ total: 8, done: 8, running: 0, solved: 4, errors: 0, truncated: 4, stopped: false });
    expect(out).toHaveLength(2);
    const alpha = out.find((g) => g[0]!.taskId === 'alpha')!;
    expect(alpha.map((r) => r.episode)).toEqual([0, 1, 2, 3]);
    // alpha: episodes 0 and 2 fix in 2 turns (200 assistant tokens > budget 150): r = 1 - 0.5 ln(200/150)
    const r = 1 - 0.5 * Math.log(200 / 150);
    expect(alpha.map((x) => x.reward)).toEqual([r, 0, r, 0]);
    expect(alpha[0]!.reward).toBe(shapeReward({ success: true, truncated: false, assistantTokens: 200 }, { budget: 150, alpha: 0.5 }));
    expect(alpha.map((x) => x.advantage)).toEqual(groupAdvantages([[r, 0, r, 0]], { filterBy: [[1, 0, 1, 0]] }).advantages[0]);
    expect(alpha[1]!.hacking.map((f) => f.code)).toEqual(['test-edit']);
    expect(alpha[0]!.hacking).toEqual([]);
    // beta: maxTurns 1, so every episode is truncated; the fixed ones earn 0.5
    const beta = out.find((g) => g[0]!.taskId === 'beta')!;
    expect(beta.map((x) => x.termination)).toEqual(['maxTurns', 'maxTurns', 'maxTurns', 'maxTurns']);
    expect(beta.map((x) => x.reward)).toEqual([0.5, 0, 0.5, 0]);
    // progress counted up to the end and never ran more than 3 at once
    expect(progress[progress.length - 1]).toMatchObject({ done: 8, running: 0, solved: 4 });
    expect(Math.max(...progress.map((p) => p.running))).toBeLessThanOrEqual(3);
  });

  it('without shaping a completed success is 1; G = 1 has advantage 0; all-equal raw outcomes have advantage 0', async () => {
    const model = seededModel(() => 'fix');
    const out: RolloutRecord[] = [];
    await rolloutTasks([await task('solo')], { model, sandbox, onRecords: (r) => void out.push(...r) });
    expect(out.map((r) => [r.reward, r.advantage])).toEqual([[1, 0]]);
    out.length = 0;
    await rolloutTasks([await task('same')], { model, sandbox, group: 3, onRecords: (r) => void out.push(...r) });
    expect(out.map((r) => [r.reward, r.advantage])).toEqual([
      [1, 0],
      [1, 0],
      [1, 0],
    ]);
  });

  it('an episode whose model failed is a record with error and null reward/advantage; the others are standardised without it', async () => {
    const t = await task('flaky');
    const s0 = episodeSeed(0, 'flaky', 0);
    const model = seededModel((s) => (s === s0 + 1 ? 'error' : s === s0 + 2 ? 'give-up' : 'fix'));
    const out: RolloutRecord[] = [];
    const summary = await rolloutTasks([t], { model, sandbox, group: 3, onRecords: (r) => void out.push(...r) });
    expect(summary.errors).toBe(1);
    expect(out).toHaveLength(3);
    expect(out[1]).toMatchObject({ episode: 1, termination: 'error', reward: null, advantage: null });
    expect(out[1]!.error).toContain('HTTP 503');
    expect(out[1]!.outcome).toBeUndefined();
    expect([out[0]!.advantage, out[2]!.advantage]).toEqual(groupAdvantages([[1, 0]]).advantages[0]);
  });

  it('abort: running episodes stop, unfinished groups are not reported, stopped is true', async () => {
    const ctrl = new AbortController();
    const model = seededModel(() => 'loop');
    const out: RolloutRecord[] = [];
    setTimeout(() => ctrl.abort(), 400);
    const t0 = performance.now();
    const summary = await rolloutTasks([await task('long')], { model, sandbox, group: 2, concurrency: 2, signal: ctrl.signal, onRecords: (r) => void out.push(...r) });
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(summary.stopped).toBe(true);
    expect(out).toEqual([]);
    // nothing of the killed calls survives, not even a bwrap killed during its start-up
    await new Promise((r) => setTimeout(r, 100));
    const left = readdirSync('/proc').filter((d) => /^\d+$/.test(d) && (() => { try { return readFileSync(`/proc/${d}/cmdline`, 'utf8').includes('leaf-sandbox'); } catch { return false; } })());
    expect(left).toEqual([]);
  });

  it('a failing sink stops the run and its error is thrown', async () => {
    const model = seededModel(() => 'fix');
    await expect(
      rolloutTasks([await task('x1'), await task('x2')], {
        model,
        sandbox,
        onRecords: () => {
          throw new Error('EPIPE: the reader went away');
        },
      }),
    ).rejects.toThrow('EPIPE');
  });

  it('a missing sandbox stops the run with SANDBOX_UNAVAILABLE', async () => {
    const dead = { ...sandbox, run: () => Promise.reject(new FrognanoError('SANDBOX_UNAVAILABLE', 'bwrap vanished')) };
    await expectFrognanoErrorAsync(
      async () => rolloutTasks([await task('y')], { model: toolModel([calls(['bash', { command: 'ls' }])]), sandbox: dead as never, group: 2 }),
      'SANDBOX_UNAVAILABLE',
      'bwrap vanished',
    );
  });

  it('rejects no tasks, group 0 and concurrency 0', async () => {
    const model = toolModel([]);
    await expectFrognanoErrorAsync(() => rolloutTasks([], { model, sandbox }), 'EMPTY_INPUT', 'tasks');
    await expectFrognanoErrorAsync(async () => rolloutTasks([await task('z')], { model, sandbox, group: 0 }), 'OUT_OF_RANGE', 'opts.group');
    await expectFrognanoErrorAsync(async () => rolloutTasks([await task('z2')], { model, sandbox, concurrency: 0 }), 'OUT_OF_RANGE', 'opts.concurrency');
  });
});
