/**
 * Makes the bundled example data, seeded and synthetic (nothing is copied from
 * a real training run). Run: `npx tsx --conditions=@frognano/source examples/data/generate.ts [DIR]`
 * (DIR defaults to examples/data).
 *
 * - `rollouts.jsonl`: rollout groups in the shape a FrogNano-style trainer
 *   collects, one JSON object per task group (`{ taskId, statement, rollouts }`),
 *   read by examples/demo.ts. It is no subcommand's input. Each rollout carries
 *   its raw outcome, its assistant token count, a GAGAR judge verdict when it
 *   succeeded, and per-token log-probs under the rollout policy and a slightly
 *   moved current policy (for the DPPO mask).
 * - `tinker-rollouts.jsonl`: the input of `frognano tinker-datums`, one rollout
 *   per line (`{ id, tokens, lossMask, logprobs, advantage }`): the join of
 *   step 3 in docs/recipes/tinker.md, made from the same groups.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import seedrandom from 'seedrandom';
import { groupAdvantages, shapeRewards } from 'frognano';

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

/** One demo rollout: raw outcome, length, judge verdict, per-token log-probs and loss mask. */
interface Rollout {
  success: boolean;
  truncated: boolean;
  assistantTokens: number;
  judge: unknown;
  policyLag: number;
  logpRollout: number[];
  logpNew: number[];
  lossMask: number[];
}

const groups: { taskId: string; statement: string; rollouts: Rollout[] }[] = [];
for (const [ti, task] of tasks.entries()) {
  const policyLag = ti % 3 === 2 ? 3 : 1;
  const rollouts: Rollout[] = [];
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
  groups.push({ taskId: task.id, statement: task.statement, rollouts });
}

function round(x: number) {
  return Math.round(x * 1e6) / 1e6;
}

/**
 * One `tinker-datums` record per rollout of the groups the zero-variance filter
 * keeps (dropped groups have all-zero advantages and carry no gradient): token
 * ids from their own seeded generator (the groups above stay as they were),
 * the rollout's loss mask, its sampling log-probs on the model's tokens (0
 * elsewhere), and its advantage as `npm run demo:step` computes it (shaped rewards,
 * std-scaled group advantages filtered on raw outcomes).
 */
function tinkerRecords(): unknown[] {
  const tokenRng = seedrandom('frognano-demo-tinker-v1');
  const shaped = groups.map((g) => shapeRewards(g.rollouts, { budget: 6000, alpha: 0.25, truncatedReward: 0.5 }));
  const adv = groupAdvantages(
    shaped.map((s) => s.rewards),
    { filterBy: shaped.map((s) => s.raw) },
  );
  return groups.flatMap((g, gi) =>
    !adv.kept[gi]
      ? []
      : g.rollouts.map((r, j) => ({
          id: `${g.taskId}/${j}`,
          tokens: r.lossMask.map(() => Math.floor(tokenRng() * 151_643)),
          lossMask: r.lossMask,
          logprobs: r.lossMask.map((m, t) => (m === 1 ? r.logpRollout[t]! : 0)),
          advantage: adv.advantages[gi]![j]!,
        })),
  );
}

const dir = process.argv[2] ? pathToFileURL(`${resolve(process.argv[2])}/`) : new URL('./', import.meta.url);
const write = (name: string, records: readonly unknown[], what: string) => {
  const out = new URL(name, dir);
  writeFileSync(out, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  console.log(`wrote ${records.length} ${what} to ${out.pathname}`);
};
write('rollouts.jsonl', groups, 'groups');
write('tinker-rollouts.jsonl', tinkerRecords(), 'tinker-datums records');
