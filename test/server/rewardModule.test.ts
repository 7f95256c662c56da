/**
 * The example reward module (examples/reward-module.mjs) through the service's
 * RewardEngine, and the concurrency limiter, in-process.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { hasBwrap } from '../helpers/system.js';
import { shapeRewards } from '../../src/rewards/index.js';
import { ConcurrencyLimiter } from '../../src/server/limiter.js';
import { loadRewardModule, RewardEngine } from '../../src/server/rewardEngine.js';

const SHAPING = { budget: 10, alpha: 0.5 };
const label = JSON.stringify({ entry: 'add', tests: [{ args: [2, 3], expect: 5 }, { args: [-1, 1], expect: 0 }] });

describe.runIf(hasBwrap())('examples/reward-module.mjs (answers run in the Leaf sandbox)', () => {
  const good = 'Sure.\n```js\nfunction add(a, b) { return a + b; }\n```';
  const wrong = '```js\nfunction add(a, b) { return a - b; }\n```';
  const base = { protocol: 'slime' as const, prompt: 'write add', label };
  const answer = (code: string) => '```js\n' + code + '\n```';

  it('grades a JS function and the engine shapes its outcome with shapeRewards', async () => {
    const engine = new RewardEngine(await loadRewardModule('examples/reward-module.mjs'), SHAPING);
    const cut = '```js\nfunction add(a, b) { return a';
    const r1 = await engine.score({ ...base, response: good, metadata: { assistantTokens: 40 } }, 'label');
    expect(r1).toEqual({ reward: shapeRewards([{ success: true, truncated: false, assistantTokens: 40 }], SHAPING).rewards[0], raw: 1, outcome: { success: true, truncated: false, assistantTokens: 40 } });
    const r2 = await engine.score({ ...base, response: wrong }, 'label');
    expect(r2.reward).toBe(0);
    expect(r2.raw).toBe(0);
    const r3 = await engine.score({ ...base, response: cut }, 'label');
    expect(r3.outcome).toMatchObject({ success: false, truncated: true });
    await expect(engine.score({ ...base, response: good, label: '{}' }, 'label')).rejects.toThrow(/reward module threw: label must be JSON/);
  });

  it("uses the trainer's real responseLength and finishReason over its estimates", async () => {
    const engine = new RewardEngine(await loadRewardModule('examples/reward-module.mjs'), SHAPING);
    const r = await engine.score({ ...base, response: good, responseLength: 77, finishReason: 'stop' }, 'label');
    expect(r.outcome).toEqual({ success: true, truncated: false, assistantTokens: 77 });
    const cut = await engine.score({ ...base, response: good, responseLength: 90, finishReason: 'length' }, 'label');
    expect(cut).toMatchObject({ reward: 0.5, outcome: { success: true, truncated: true, assistantTokens: 90 } });
  });

  it('hostile answers score 0 and change nothing for the next answer', async () => {
    const engine = new RewardEngine(await loadRewardModule('examples/reward-module.mjs'), SHAPING);
    const hostile = [
      // the exploit: patch JSON.stringify so every comparison "matches"
      'JSON.stringify = () => "same"; function add(a, b) { return 0; }',
      // print a verdict of its own after the harness's line: a verdict holds values, compared outside,
      // so it passes only with the expected values, as hard-coding them would (no gain over the tests)
      'setTimeout(() => console.log(\'FROGNANO_OUTPUTS [{"ok":true,"value":"same"},{"ok":true,"value":"same"}]\'), 0); function add() { return 1; }',
      'setTimeout(() => console.log("FROGNANO_OUTPUTS [null,null]"), 0); function add() { return 1; }',
      // never returns
      'function add() { for (;;); }',
      // reach the host
      'const fs = process.getBuiltinModule?.("fs"); function add(a, b) { fs?.writeFileSync("/tmp/pwned-by-answer", "x"); return a + b + 1; }',
      'function add() { process.exit(0); }',
    ];
    for (const code of hostile) {
      const r = await engine.score({ ...base, response: answer(code) }, 'label');
      expect(r.raw, code).toBe(0);
    }
    // the host's JSON.stringify is intact, and a later wrong answer still fails
    expect(JSON.stringify([1])).toBe('[1]');
    expect((await engine.score({ ...base, response: wrong }, 'label')).raw).toBe(0);
    expect((await engine.score({ ...base, response: good }, 'label')).raw).toBe(1);
    expect(existsSync('/tmp/pwned-by-answer')).toBe(false);
  }, 60_000);

});

describe('loadRewardModule', () => {
  it('a module without a function export is refused at load time', async () => {
    await expect(loadRewardModule('test/server/fixtures/not-a-function.mjs')).rejects.toThrow(/must export a function/);
  });
});

describe('ConcurrencyLimiter', () => {
  it('admits max holders, queues maxQueue, refuses the rest; release hands the slot to the next waiter', async () => {
    const lim = new ConcurrencyLimiter(2, 1);
    const a = await lim.acquire();
    const b = await lim.acquire();
    const waiting = lim.acquire();
    expect(await lim.acquire()).toBeUndefined();
    expect([lim.running, lim.queued]).toEqual([2, 1]);
    a!();
    a!(); // a second release is a no-op
    const c = await waiting;
    expect([lim.running, lim.queued]).toEqual([2, 0]);
    b!();
    c!();
    expect(lim.running).toBe(0);
  });
});
