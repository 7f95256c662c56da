/**
 * The example reward module (examples/reward-module.mjs) through the service's
 * RewardEngine, and the concurrency limiter, in-process.
 */
import { describe, expect, it } from 'vitest';
import { shapeRewards } from '../../src/rewards/index.js';
import { ConcurrencyLimiter } from '../../src/server/limiter.js';
import { loadRewardModule, RewardEngine } from '../../src/server/rewardEngine.js';

const SHAPING = { budget: 10, alpha: 0.5 };
const label = JSON.stringify({ entry: 'add', tests: [{ args: [2, 3], expect: 5 }, { args: [-1, 1], expect: 0 }] });

describe('examples/reward-module.mjs', () => {
  it('grades a JS function and the engine shapes its outcome with shapeRewards', async () => {
    const engine = new RewardEngine(await loadRewardModule('examples/reward-module.mjs'), SHAPING);
    const good = 'Sure.\n```js\nfunction add(a, b) { return a + b; }\n```';
    const wrong = '```js\nfunction add(a, b) { return a - b; }\n```';
    const cut = '```js\nfunction add(a, b) { return a';
    const base = { protocol: 'slime' as const, prompt: 'write add', label };
    const r1 = await engine.score({ ...base, response: good, metadata: { assistantTokens: 40 } }, 'label');
    expect(r1).toEqual({ reward: shapeRewards([{ success: true, truncated: false, assistantTokens: 40 }], SHAPING).rewards[0], raw: 1, outcome: { success: true, truncated: false, assistantTokens: 40 } });
    const r2 = await engine.score({ ...base, response: wrong }, 'label');
    expect(r2.reward).toBe(0);
    expect(r2.raw).toBe(0);
    const r3 = await engine.score({ ...base, response: cut }, 'label');
    expect(r3.outcome).toMatchObject({ success: false, truncated: true });
    await expect(engine.score({ ...base, response: good, label: '{}' }, 'label')).rejects.toThrow(/reward module threw: label must be JSON/);
  });

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
