import { describe, expect, it } from 'vitest';
import { expectFrognanoErrorAsync } from '../../test/helpers/expectError.js';
import { iterationBand } from './resolveRateBand.js';
import { initialRates, runTaskPilot, type OutcomeEstimator, type TaskFamily } from './taskPilot.js';

/** A task whose pass count out of 8 is fixed by its level: level k passes k of 8 rollouts. */
interface Toy {
  id: string;
  level: number;
  executable?: boolean;
}

function toyFamily(levels: number[], opts: { min?: number; max?: number } = {}): TaskFamily<Toy> & { sampled: number } {
  const min = opts.min ?? 0;
  const max = opts.max ?? 8;
  let k = 0;
  return {
    sampled: 0,
    sample(rng) {
      rng();
      this.sampled++;
      return { id: `t${k}`, level: levels[k++ % levels.length]! };
    },
    // easier = one more pass out of 8, harder = one fewer
    rewrite(task, direction) {
      const level = task.level + (direction === 'easier' ? 1 : -1);
      return level < min || level > max ? null : { ...task, id: `${task.id}'`, level };
    },
    describe: (t) => `level ${t.level}`,
    isExecutable: (t) => t.executable !== false,
  };
}

/** N outcomes with `level` passes (scaled to N). */
const estimator: OutcomeEstimator<Toy> = async (tasks, n) =>
  tasks.map((t) => Array.from({ length: n }, (_, j) => j < Math.round((t.level * n) / 8)));

describe('runTaskPilot', () => {
  it('iteration 1: accepts p̂ = 0.5 at once, refines the others toward it, keeps every history', async () => {
    const family = toyFamily([4, 2, 7, 0, 8]);
    const r = await runTaskPilot(family, estimator, { iteration: 1, candidates: 5, rollouts: 8, maxRounds: 3 });
    expect(r.band).toEqual(iterationBand(1));
    const byId = Object.fromEntries(r.candidates.map((c) => [c.id, c]));
    // level 4: 4/8 = 0.5 accepted in round 0
    expect(byId['i1-c0']!.steps.map((s) => [s.round, s.rate, s.decision, s.action])).toEqual([[0, 0.5, 'accept', 'accept']]);
    // level 2: 2/8 -> refine-easier -> 3/8 -> refine-easier -> 4/8 accepted
    expect(byId['i1-c1']!.steps.map((s) => [s.passed, s.decision, s.action])).toEqual([
      [2, 'refine-easier', 'refine-easier'],
      [3, 'refine-easier', 'refine-easier'],
      [4, 'accept', 'accept'],
    ]);
    // level 7: 7/8 -> refine-harder -> 6/8 -> 5/8 -> 4/8 accepted in round 3
    expect(byId['i1-c2']!.steps.map((s) => s.decision)).toEqual(['refine-harder', 'refine-harder', 'refine-harder', 'accept']);
    // level 0: too hard, rewritten easier each round, out of rounds at 3/8
    expect(byId['i1-c3']!.steps.map((s) => [s.passed, s.decision])).toEqual([
      [0, 'too-hard'],
      [1, 'refine-easier'],
      [2, 'refine-easier'],
      [3, 'refine-easier'],
    ]);
    expect(byId['i1-c3']!.status).toBe('discarded');
    expect(byId['i1-c3']!.steps.at(-1)).toMatchObject({ action: 'discard', reason: 'out of rounds' });
    // level 8: saturated -> harder each round, 5/8 when the rounds run out
    expect(byId['i1-c4']!.steps.map((s) => [s.passed, s.decision, s.action])).toEqual([
      [8, 'saturated', 'refine-harder'],
      [7, 'refine-harder', 'refine-harder'],
      [6, 'refine-harder', 'refine-harder'],
      [5, 'refine-harder', 'discard'],
    ]);
    expect(byId['i1-c4']!.status).toBe('discarded');
    // the versions are kept: the accepted task is the refined one
    expect(r.accepted.map((t) => t.level)).toEqual([4, 4, 4]);
    expect(r.accepted.map((t) => t.id)).toEqual(['t0', "t1''", "t2'''"]);
    expect(r.rounds.map((x) => [x.evaluated, x.accepted, x.refined, x.discarded])).toEqual([
      [5, 1, 4, 0],
      [4, 0, 4, 0],
      [4, 1, 3, 0],
      [3, 1, 0, 2],
    ]);
    expect(r.rolloutsUsed).toBe(8 * (5 + 4 + 4 + 3));
    expect(initialRates(r)).toEqual([0.5, 0.25, 0.875, 0, 1]);
  });

  it('iteration 5: (0, 0.5] is accepted, above is refined harder, 0 is too hard', async () => {
    const family = toyFamily([1, 3, 4, 6, 0]);
    const r = await runTaskPilot(family, estimator, { iteration: 5, candidates: 5, maxRounds: 0 });
    expect(r.band).toEqual(iterationBand(5));
    expect(r.candidates.map((c) => c.steps[0]!.decision)).toEqual(['accept', 'accept', 'accept', 'refine-harder', 'too-hard']);
    // maxRounds 0: no refinement, out-of-band candidates are discarded
    expect(r.candidates.map((c) => c.status)).toEqual(['accepted', 'accepted', 'accepted', 'discarded', 'discarded']);
  });

  it('a custom band overrides the schedule', async () => {
    const r = await runTaskPilot(toyFamily([3, 5]), estimator, {
      iteration: 1,
      candidates: 2,
      maxRounds: 0,
      band: { low: 0.25, high: 0.75, lowInclusive: true, highInclusive: true },
    });
    expect(r.accepted).toHaveLength(2);
  });

  it('discards a candidate with no rewrite, and non-executable candidates before evaluation', async () => {
    const family = toyFamily([8], { max: 8, min: 8 });
    const r = await runTaskPilot(family, estimator, { iteration: 1, candidates: 1 });
    expect(r.candidates[0]!.steps).toHaveLength(1);
    expect(r.candidates[0]!.steps[0]).toMatchObject({ decision: 'saturated', action: 'discard', reason: 'no rewrite' });
    const nx: TaskFamily<Toy> = { ...toyFamily([4]), sample: () => ({ id: 'x', level: 4, executable: false }) };
    const r2 = await runTaskPilot(nx, estimator, { iteration: 1, candidates: 2 });
    expect(r2.candidates.map((c) => c.status)).toEqual(['not-executable', 'not-executable']);
    expect(r2.rolloutsUsed).toBe(0);
  });

  it('passes the round to the estimator and batches a round in one call', async () => {
    const calls: [number, number][] = [];
    const est: OutcomeEstimator<Toy> = async (tasks, n, round) => {
      calls.push([tasks.length, round]);
      return estimator(tasks, n, round);
    };
    await runTaskPilot(toyFamily([2, 6, 4]), est, { iteration: 1, candidates: 3, rollouts: 8 });
    expect(calls).toEqual([
      [3, 0],
      [2, 1],
      [2, 2],
    ]);
  });

  it('is deterministic for a seed', async () => {
    const a = await runTaskPilot(toyFamily([1, 5, 4]), estimator, { iteration: 2, candidates: 3, seed: 7 });
    const b = await runTaskPilot(toyFamily([1, 5, 4]), estimator, { iteration: 2, candidates: 3, seed: 7 });
    expect(a).toEqual(b);
  });

  it('rejects an estimator that returns the wrong number of rows', () =>
    expectFrognanoErrorAsync(() => runTaskPilot(toyFamily([4]), async () => [], { iteration: 1, candidates: 1 }), 'LENGTH_MISMATCH', 'estimate'));
  it('rejects iteration 0', () => expectFrognanoErrorAsync(() => runTaskPilot(toyFamily([4]), estimator, { iteration: 0 }), 'OUT_OF_RANGE', 'opts.iteration'));
  it('rejects an unknown option', () =>
    expectFrognanoErrorAsync(() => runTaskPilot(toyFamily([4]), estimator, { iteration: 1, rounds: 2 } as never), 'INVALID_TYPE', 'rounds'));
  it('rejects an empty band', () =>
    expectFrognanoErrorAsync(() => runTaskPilot(toyFamily([4]), estimator, { iteration: 1, band: { low: 0.5, high: 0.5 } }), 'OUT_OF_RANGE', 'band'));
  it('rejects a family without rewrite', () =>
    expectFrognanoErrorAsync(() => runTaskPilot({ sample: () => ({ id: 'a', level: 1 }) } as never, estimator, { iteration: 1 }), 'INVALID_TYPE', 'family'));
  it('initialRates skips candidates never evaluated', () => expect(initialRates({ candidates: [{ id: 'a', steps: [], status: 'not-executable' }] })).toEqual([]));
});
