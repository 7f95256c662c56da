import seedrandom from 'seedrandom';
import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { parseOptions, parseWith } from '../errors/validate.js';
import { classifyResolveRate, type CurriculumDecision } from './classifyResolveRate.js';
import { resolveRate } from './resolveRate.js';
import { iterationBand, type ParsedResolveRateBand, ResolveRateBandSchema } from './resolveRateBand.js';

/** Which way TaskPilot wants a candidate moved (FrogNano §3.1, Fig. 4 / Fig. 5). */
export type RefineDirection = 'easier' | 'harder';

/**
 * A generator of candidate tasks that TaskPilot can also rewrite (FrogNano
 * §3.1-3.2): `sample` plays the task-generation model, `rewrite` the refinement
 * step that moves an out-of-band candidate easier or harder — by rewriting its
 * statement (more or less specific, the hidden tests unchanged, as in Fig. 5)
 * or, when the statement cannot move further, its difficulty.
 *
 * @typeParam T - the task type (a JSON-serialisable object)
 */
export interface TaskFamily<T> {
  /** A fresh candidate task, drawn from `rng` (uniform in [0, 1)). */
  sample(rng: () => number): T;
  /** The candidate rewritten one step easier or harder, or `null` when no such rewrite exists (it is then discarded). */
  rewrite(task: T, direction: RefineDirection, rng: () => number): T | null;
  /** A short human-readable rendering (reports, logs). */
  describe(task: T): string;
  /** The executability check (FrogNano §3: F2P tests fail before and pass after the gold patch). Default: every candidate is executable. */
  isExecutable?(task: T): boolean;
}

/**
 * Estimates the current policy's outcomes on tasks: for each task, `rollouts`
 * pass/fail results of independent stochastic rollouts (FrogNano §3.1: "TaskPilot
 * collects N trajectories"). `round` is the refinement round (0 for the first
 * evaluation), e.g. to derive a seed.
 */
export type OutcomeEstimator<T> = (tasks: readonly T[], rollouts: number, round: number) => Promise<ArrayLike<boolean | number>[]>;

/** Options of {@link runTaskPilot}. */
export const TaskPilotOptionsSchema = z
  .object({
    /** The TaskPilot iteration (>= 1): picks the default target band. */
    iteration: z.number().int().min(1),
    /** Fresh candidates generated. Default 64. */
    candidates: z.number().int().min(1).default(64),
    /** Calibration rollouts per candidate, `N`. Default 8. */
    rollouts: z.number().int().min(1).default(8),
    /** Refinement rounds after the first evaluation, `R`. Default 3. */
    maxRounds: z.number().int().min(0).default(3),
    /** Target band; default `iterationBand(iteration)` (0.5 for iterations 1-4, (0, 0.5] from 5). */
    band: ResolveRateBandSchema.optional(),
    /** Seed of the generation / rewrite stream. Default 0. */
    seed: z.union([z.number(), z.string()]).default(0),
  })
  .strict();
/** Options of {@link runTaskPilot} as the caller writes them. */
export type TaskPilotOptions = z.input<typeof TaskPilotOptionsSchema>;

/** What TaskPilot did with a candidate after one evaluation. */
export type PilotAction = 'accept' | 'refine-easier' | 'refine-harder' | 'discard';

/** One evaluation of one version of a candidate. */
export interface PilotStep<T> {
  /** Refinement round, 0 for the first evaluation. */
  round: number;
  /** The version of the task that was evaluated. */
  task: T;
  /** Passing calibration rollouts. */
  passed: number;
  /** Calibration rollouts `N`. */
  rollouts: number;
  /** `p̂ = passed / N` (`resolveRate`). */
  rate: number;
  /** `classifyResolveRate(rate, band)`. */
  decision: CurriculumDecision;
  /** What was done: accepted, rewritten easier/harder, or discarded. */
  action: PilotAction;
  /** Why a candidate was discarded (`'out of rounds'`, `'no rewrite'`, `'rewrite not executable'`). */
  reason?: string;
}

/** A candidate's full history through generate-evaluate-refine-re-evaluate (FrogNano Fig. 4). */
export interface CandidateRecord<T> {
  /** `i<iteration>-c<k>`. */
  id: string;
  /** Every evaluation in order. */
  steps: PilotStep<T>[];
  /** The final status. */
  status: 'accepted' | 'discarded' | 'not-executable';
}

/** Counts of one round. */
export interface PilotRound {
  /** Round index (0 = first evaluation). */
  round: number;
  /** Candidates evaluated. */
  evaluated: number;
  /** Accepted in this round. */
  accepted: number;
  /** Rewritten for the next round. */
  refined: number;
  /** Discarded in this round. */
  discarded: number;
}

/** The result of {@link runTaskPilot}. */
export interface TaskPilotResult<T> {
  /** The iteration. */
  iteration: number;
  /** The band used. */
  band: ParsedResolveRateBand;
  /** The accepted tasks (the next RL batch), in acceptance order. */
  accepted: T[];
  /** Every candidate with its history. */
  candidates: CandidateRecord<T>[];
  /** Per-round counts. */
  rounds: PilotRound[];
  /** Calibration rollouts spent (`N` x evaluations). */
  rolloutsUsed: number;
}

/**
 * TaskPilot, the policy-adaptive task synthesis loop (FrogNano §3.1, Fig. 4):
 *
 * ```
 * generate C candidates (drop non-executable ones)
 * for round r = 0 .. R:
 *   evaluate the pending candidates: N rollouts each of the current policy -> p̂ = resolveRate(outcomes)
 *   decision = classifyResolveRate(p̂, band)            band = iterationBand(iteration) unless given
 *   accept        -> into the next RL batch
 *   too-hard / refine-easier  -> rewrite easier (a more specific statement, else lower difficulty)
 *   saturated / refine-harder -> rewrite harder (a less specific statement, else higher difficulty)
 *   no (executable) rewrite possible, or r = R -> discard
 * ```
 * Every candidate keeps its history (each version, its `p̂`, the decision and
 * the action). The rate and decision come from the library's `resolveRate`
 * and `classifyResolveRate`; nothing is recomputed here. All candidates of a
 * round are estimated in one `estimate` call (batched rollouts).
 *
 * The paper's refinement is an LLM rewriting the statement; here it is the
 * family's `rewrite`, one step per round (our choice where the paper gives no
 * step size).
 *
 * @param family - candidate generator and rewriter
 * @param estimate - the current policy's outcomes on tasks
 * @throws FrognanoError option errors naming `opts.<field>`; `LENGTH_MISMATCH` when `estimate` returns the wrong number of rows
 * @example
 * ```ts
 * const pilot = await runTaskPilot(family, estimator, { iteration: 1, candidates: 128, rollouts: 8, maxRounds: 3 });
 * pilot.accepted; // tasks at p̂ = 0.5 under the current policy
 * ```
 */
export async function runTaskPilot<T>(family: TaskFamily<T>, estimate: OutcomeEstimator<T>, opts: TaskPilotOptions): Promise<TaskPilotResult<T>> {
  const fn = 'runTaskPilot';
  const o = parseOptions(fn, TaskPilotOptionsSchema, opts);
  const band = o.band ?? iterationBand(o.iteration);
  if (typeof family?.sample !== 'function' || typeof family.rewrite !== 'function') {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, 'family must have sample(rng) and rewrite(task, direction, rng)', { fn, field: 'family' });
  }
  const rng = seedrandom(`taskpilot:${String(o.seed)}:${o.iteration}`);
  const candidates: CandidateRecord<T>[] = [];
  let pending: { rec: CandidateRecord<T>; task: T }[] = [];
  for (let k = 0; k < o.candidates; k++) {
    const task = family.sample(rng);
    const rec: CandidateRecord<T> = { id: `i${o.iteration}-c${k}`, steps: [], status: 'discarded' };
    candidates.push(rec);
    if (family.isExecutable && !family.isExecutable(task)) rec.status = 'not-executable';
    else pending.push({ rec, task });
  }
  const accepted: T[] = [];
  const rounds: PilotRound[] = [];
  let rolloutsUsed = 0;
  for (let round = 0; round <= o.maxRounds && pending.length > 0; round++) {
    const outcomes = await estimate(
      pending.map((p) => p.task),
      o.rollouts,
      round,
    );
    if (!Array.isArray(outcomes) || outcomes.length !== pending.length) {
      throw new FrognanoError(
        ErrorCode.LENGTH_MISMATCH,
        `estimate returned ${Array.isArray(outcomes) ? outcomes.length : 'no'} rows for ${pending.length} tasks`,
        { fn, field: 'estimate' },
      );
    }
    const stats: PilotRound = { round, evaluated: pending.length, accepted: 0, refined: 0, discarded: 0 };
    const next: typeof pending = [];
    pending.forEach(({ rec, task }, i) => {
      const out = outcomes[i]!;
      rolloutsUsed += out.length;
      const rate = resolveRate(out);
      const passed = Math.round(rate * out.length); // resolveRate is passed / N: rounding recovers the count
      const decision = classifyResolveRate(rate, band);
      const step: PilotStep<T> = { round, task, passed, rollouts: out.length, rate, decision, action: 'discard' };
      rec.steps.push(step);
      if (decision === 'accept') {
        step.action = 'accept';
        rec.status = 'accepted';
        accepted.push(task);
        stats.accepted++;
        return;
      }
      const direction: RefineDirection = decision === 'too-hard' || decision === 'refine-easier' ? 'easier' : 'harder';
      if (round === o.maxRounds) {
        step.reason = 'out of rounds';
        stats.discarded++;
        return;
      }
      const rewritten = family.rewrite(task, direction, rng);
      if (rewritten === null || (family.isExecutable && !family.isExecutable(rewritten))) {
        step.reason = rewritten === null ? 'no rewrite' : 'rewrite not executable';
        stats.discarded++;
        return;
      }
      step.action = direction === 'easier' ? 'refine-easier' : 'refine-harder';
      stats.refined++;
      next.push({ rec, task: rewritten });
    });
    rounds.push(stats);
    pending = next;
  }
  return { iteration: o.iteration, band, accepted, candidates, rounds, rolloutsUsed };
}

/**
 * The first-evaluation resolve rates of a TaskPilot run (one per evaluated
 * candidate): the `p̂` histogram of FrogNano's calibration, before refinement.
 *
 * @throws FrognanoError `INVALID_TYPE` naming the field (`result`, `result.candidates[3].steps`) when `result`
 *   is not `{ candidates: [{ steps: [{ rate }, ...] }, ...] }`; `OUT_OF_RANGE` for a rate outside [0, 1]
 * @example initialRates(await runTaskPilot(family, estimate, { iteration: 1 })) // e.g. [0, 0.5, 1, 0.125, ...]
 */
export function initialRates<T>(result: Pick<TaskPilotResult<T>, 'candidates'>): number[] {
  const r = parseWith('initialRates', 'result', InitialRatesInputSchema, result);
  const out: number[] = [];
  for (const c of r.candidates) if (c.steps.length > 0) out.push(c.steps[0]!.rate);
  return out;
}

/** What {@link initialRates} reads of a TaskPilot result. */
const InitialRatesInputSchema = z.looseObject({
  candidates: z.array(z.looseObject({ steps: z.array(z.looseObject({ rate: z.number().min(0).max(1) })) })),
});
