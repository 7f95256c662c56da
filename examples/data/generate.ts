/**
 * Makes examples/data/rollouts.jsonl: a small, seeded, synthetic set of rollout
 * groups in the shape a FrogNano-style trainer collects (one JSON object per
 * task group). Run: `npx tsx examples/data/generate.ts`.
 *
 * Everything is synthetic and made by this script; nothing is copied from a
 * real training run. Each rollout carries its raw outcome, its assistant token
 * count, a GAGAR judge verdict when it succeeded, and per-token log-probs under
 * the rollout policy and a slightly moved current policy (for the DPPO mask).
 */
import { writeFileSync } from 'node:fs';
import seedrandom from 'seedrandom';

const rng = seedrandom('frognano-demo-data-v1');
const uniform = (a: number, b: number) => a + (b - a) * rng();
const normal = () => Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
const int = (a: number, b: number) => Math.floor(uniform(a, b + 1));

const tasks = [
  { id: 'parse-iso-duration', p: 0.5, statement: 'Durations like "PT1H30M" are parsed as 90 seconds instead of 5400.' },
  { id: 'csv-quoted-newline', p: 0.4, statement: 'Reading a CSV field with a quoted newline splits the row in two.' },
  { id: 'lru-evict-order', p: 0.65, statement: 'The LRU cache evicts the most recently used key when full.' },
  { id: 'retry-backoff-cap', p: 1.0, statement: 'Retry delays grow without bound; they must be capped at max_delay.' },
  { id: 'unicode-slugify', p: 0.0, statement: 'slugify() drops every non-ASCII letter instead of transliterating it.' },
  { id: 'semver-prerelease', p: 0.35, statement: 'Comparing 1.0.0-rc.1 with 1.0.0 says the pre-release is newer.' },
];

const lines: string[] = [];
for (const [ti, task] of tasks.entries()) {
  const policyLag = ti % 3 === 2 ? 3 : 1;
  const rollouts = [];
  for (let j = 0; j < 8; j++) {
    const success = rng() < task.p;
    const truncated = rng() < 0.12;
    const assistantTokens = Math.round(Math.exp(Math.log(6000) + 0.6 * normal()));
    let judge: unknown;
    if (success) {
      const base = uniform(2.2, 5.2);
      const s = () => Math.max(1, Math.min(5, Math.round(base + 0.8 * normal())));
      const scores = { approach: s(), precision: s(), minimality: s(), sideEffects: s(), consistency: s() };
      const severe = rng() < 0.12; // e.g. an unrequested rewrite or a test-only bypass
      const allHigh = Object.values(scores).every((v) => v >= 4);
      judge = { tier: severe ? 'T3' : allHigh ? 'T1' : 'T2', scores };
    }
    // Tokens: a prompt (mask 0), then assistant turns (mask 1) separated by tool outputs (mask 0).
    const logpRollout: number[] = [];
    const logpNew: number[] = [];
    const lossMask: number[] = [];
    const push = (n: number, m: number) => {
      for (let t = 0; t < n; t++) {
        const q = Math.min(1, Math.max(1e-4, rng() < 0.6 ? uniform(0.6, 1) : uniform(0.01, 0.6)));
        const drift = (policyLag === 3 ? 0.12 : 0.05) * normal();
        const p = Math.min(0.9999, Math.max(1e-4, q + drift));
        logpRollout.push(round(Math.log(q)));
        logpNew.push(round(Math.log(p)));
        lossMask.push(m);
      }
    };
    push(int(6, 10), 0);
    const turns = int(2, 4);
    for (let k = 0; k < turns; k++) {
      push(int(5, 12), 1);
      if (k < turns - 1) push(int(3, 8), 0);
    }
    rollouts.push({ success, truncated, assistantTokens, judge, policyLag, logpRollout, logpNew, lossMask });
  }
  lines.push(JSON.stringify({ taskId: task.id, statement: task.statement, rollouts }));
}

function round(x: number) {
  return Math.round(x * 1e6) / 1e6;
}

const out = new URL('./rollouts.jsonl', import.meta.url);
writeFileSync(out, lines.join('\n') + '\n');
console.log(`wrote ${lines.length} groups to ${out.pathname}`);
