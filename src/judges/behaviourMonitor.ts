import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue, finiteArray, parseOptions, parseWith, sameLength } from '../errors/validate.js';
import { type Trajectory, TrajectorySchema } from '../schema/trajectory.js';
import { DEFAULT_MONITOR_PATTERNS } from './monitorPatterns.js';
import { type MonitorMatch, type MonitorPattern, MonitorPatternSchema, type MonitorRisk, MonitorRiskSchema, type MonitorSpan } from './monitorTypes.js';

const RISK_ORDER: Record<MonitorRisk, number> = { low: 0, medium: 1, high: 2 };

/** Options of {@link applyMonitor}. */
export const ApplyMonitorOptionsSchema = z
  .object({
    /** The pattern set. Default {@link DEFAULT_MONITOR_PATTERNS} (version {@link DEFAULT_MONITOR_PATTERNS_VERSION}). Ids must be unique. */
    patterns: z.array(MonitorPatternSchema).readonly().optional(),
    /** One finite reward per trajectory (e.g. the shaped reward; checked in one loop, not by zod). Default: 1 when resolved, else 0. */
    rewards: z.custom<ArrayLike<number>>().optional(),
    /** One verifier verdict per trajectory. Default: {@link trajectoryResolved} (`outcome.success`, else all `tests` passed and at least one, else false). */
    resolved: z.array(z.boolean()).readonly().optional(),
    /** Patterns below this risk are reported in `flags` but neither flag the trajectory nor intervene. Default `'low'` (all count). */
    minRisk: MonitorRiskSchema.default('low'),
    /**
     * Intervene only on resolved trajectories (the paper corrects "shortcut-dependent
     * successes"). Default false: every flagged rollout is penalised, failures too,
     * so that attempts are discouraged as well. `flagged` is unaffected.
     */
    onlyResolved: z.boolean().default(false),
  })
  .strict();
/** Options of {@link applyMonitor} as the caller writes them. */
export type ApplyMonitorOptions = z.input<typeof ApplyMonitorOptionsSchema>;

/** One pattern observation, as reported by {@link applyMonitor}. */
export interface MonitorFlag extends MonitorMatch {
  /** The pattern's id. */
  patternId: string;
  /** The pattern's version. */
  patternVersion: number;
  /** The pattern's risk. */
  risk: MonitorRisk;
}

/** A span to penalise at token level. */
export interface TokenPenaltySpan extends MonitorSpan {
  /** The pattern that asked for it. */
  patternId: string;
  /** Index into `trajectory.messages`. */
  messageIndex: number;
  /** Per-token penalty. */
  penalty: number;
}

/** The monitor's verdict on one trajectory. */
export interface MonitorResult {
  /** The trajectory's id. */
  id: string;
  /** Whether the verifier passed it. */
  resolved: boolean;
  /** Whether some pattern at or above `minRisk` fired (counts towards Hack Rate). */
  flagged: boolean;
  /** Every match of every pattern, in pattern order then detector order. */
  flags: MonitorFlag[];
  /** The reward before correction. */
  reward: number;
  /** The reward after the reward-level interventions. */
  correctedReward: number;
  /** Spans for token-level penalties, in flag order. */
  tokenPenaltySpans: TokenPenaltySpan[];
}

/** What {@link trajectoryResolved} reads of a trajectory (the rest is not required). */
const VerdictFieldsSchema = z.looseObject({
  outcome: z.looseObject({ success: z.boolean() }).optional(),
  tests: z.array(z.looseObject({ passed: z.boolean() })).optional(),
});

/**
 * The verifier's verdict read from a trajectory: `outcome.success`, else all tests passed (at least one), else false.
 * @throws FrognanoError `INVALID_TYPE` naming the field (`trajectory`, `trajectory.outcome.success`, `trajectory.tests[2].passed`)
 *   when the trajectory is not an object or those fields have the wrong type
 */
export function trajectoryResolved(t: Trajectory): boolean {
  return verdictOf(parseWith('trajectoryResolved', 'trajectory', VerdictFieldsSchema, t));
}

/** {@link trajectoryResolved} on a parsed trajectory. */
function verdictOf(t: Pick<Trajectory, 'outcome' | 'tests'> | z.output<typeof VerdictFieldsSchema>): boolean {
  if (t.outcome) return t.outcome.success;
  if (t.tests && t.tests.length) return t.tests.every((x) => x.passed);
  return false;
}

function checkMatches(fn: string, k: number, pattern: MonitorPattern, ti: number, t: Trajectory, matches: unknown): MonitorMatch[] {
  const where = `opts.patterns[${k}].evidence`;
  const bad = (code: ErrorCode, what: string) => {
    throw new FrognanoError(code, `pattern "${pattern.id}" (${where}) returned ${what} for trajectories[${ti}]`, { fn, field: where, index: [k] });
  };
  if (!Array.isArray(matches)) bad(ErrorCode.INVALID_TYPE, `${describeValue(matches)} instead of an array of matches`);
  const n = t.messages.length;
  (matches as unknown[]).forEach((m, j) => {
    const x = m as Partial<MonitorMatch> | null;
    if (!x || typeof x !== 'object' || typeof x.evidence !== 'string' || typeof x.messageIndex !== 'number') {
      bad(ErrorCode.INVALID_TYPE, `match ${j} without a string evidence and a number messageIndex`);
    }
    if (!Number.isInteger(x!.messageIndex) || x!.messageIndex! < 0 || x!.messageIndex! > n) {
      bad(ErrorCode.OUT_OF_RANGE, `match ${j} with messageIndex ${describeValue(x!.messageIndex)}, outside [0, ${n}]`);
    }
    const s = x!.span;
    if (s !== undefined) {
      const ok =
        s !== null &&
        typeof s === 'object' &&
        Number.isInteger(s.start) &&
        Number.isInteger(s.end) &&
        s.start >= 0 &&
        s.end >= s.start &&
        (s.toolCallIndex === null || Number.isInteger(s.toolCallIndex)) &&
        (s.argument === null || typeof s.argument === 'string');
      if (!ok) bad(ErrorCode.INVALID_TYPE, `match ${j} with a malformed span`);
    }
  });
  return matches as MonitorMatch[];
}

/**
 * The trajectory-level behaviour monitor of Verification Horizon §2.3: audits
 * each trajectory against a pattern set `P` (each pattern: observable evidence,
 * leakage risk, intervention) and corrects the reward during RL, "a
 * process-aware reward correction rather than a post-hoc filter".
 *
 * For each trajectory: every pattern's detector runs and its matches become
 * `flags`. Flags of patterns at or above `minRisk` flag the trajectory and, unless
 * `onlyResolved` and the trajectory is unresolved, intervene, each pattern once
 * however many times it matched:
 * ```
 * correctedReward = (any 'zero' reward penalty ? min(reward, 0) : reward) - sum of numeric reward penalties
 * tokenPenaltySpans = the spans of token-penalty patterns' matches
 * ```
 * A token-penalty pattern none of whose matches has a span (evidence only in
 * the final diff) falls back to a reward penalty of the same size, so a
 * flagged trajectory always pays. The paper gives no penalty sizes; the
 * defaults are this library's (see {@link DEFAULT_MONITOR_PATTERNS}).
 *
 * @param trajectories - SPEC §9 trajectories (validated; never mutated)
 * @param opts - {@link ApplyMonitorOptions}
 * @returns one {@link MonitorResult} per trajectory, in order; feed them to {@link monitorMetrics}
 * @throws FrognanoError `INVALID_TYPE` (a malformed trajectory `trajectories[i]...`, a
 *   pattern without a detector, a detector returning non-matches), `OUT_OF_RANGE`
 *   (a negative penalty, a duplicate pattern id `opts.patterns[k].id`, a match
 *   outside the messages), `NON_FINITE` (`opts.rewards[i]`), `LENGTH_MISMATCH`
 *   (`opts.rewards` / `opts.resolved` not one per trajectory)
 * @example
 * const [r] = applyMonitor([hackedTrajectory], { rewards: [1] });
 * r.flagged; r.correctedReward; r.tokenPenaltySpans;
 */
export function applyMonitor(trajectories: readonly Trajectory[], opts?: ApplyMonitorOptions): MonitorResult[] {
  const fn = 'applyMonitor';
  if (!Array.isArray(trajectories)) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `trajectories must be an array of trajectories, got ${describeValue(trajectories)}`, {
      fn,
      field: 'trajectories',
    });
  }
  const o = parseOptions(fn, ApplyMonitorOptionsSchema, opts);
  const patterns: readonly MonitorPattern[] = o.patterns ?? DEFAULT_MONITOR_PATTERNS;
  const ids = new Map<string, number>();
  patterns.forEach((p, k) => {
    if (ids.has(p.id)) {
      throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `opts.patterns[${k}].id "${p.id}" repeats opts.patterns[${ids.get(p.id)}].id`, {
        fn,
        field: `opts.patterns[${k}].id`,
        index: [k],
      });
    }
    ids.set(p.id, k);
  });
  const ts = trajectories.map((t, i) => parseWith(fn, `trajectories[${i}]`, TrajectorySchema, t));
  let rewards: ArrayLike<number> | undefined;
  if (o.rewards !== undefined) {
    rewards = finiteArray(fn, 'opts.rewards', o.rewards);
    sameLength(fn, 'trajectories', ts, 'opts.rewards', rewards);
  }
  if (o.resolved) sameLength(fn, 'trajectories', ts, 'opts.resolved', o.resolved);
  const minRisk = RISK_ORDER[o.minRisk];

  return ts.map((t, i) => {
    const resolved = o.resolved ? o.resolved[i]! : verdictOf(t);
    const reward = rewards ? rewards[i]! : resolved ? 1 : 0;
    const flags: MonitorFlag[] = [];
    const tokenPenaltySpans: TokenPenaltySpan[] = [];
    let zero = false;
    let minus = 0;
    let flagged = false;
    const intervene = !o.onlyResolved || resolved;
    patterns.forEach((p, k) => {
      const matches = checkMatches(fn, k, p, i, t, p.evidence(t));
      if (!matches.length) return;
      for (const m of matches) {
        const flag: MonitorFlag = { patternId: p.id, patternVersion: p.version, risk: p.risk, messageIndex: m.messageIndex, evidence: m.evidence };
        if (m.span) flag.span = { ...m.span };
        flags.push(flag);
      }
      if (RISK_ORDER[p.risk] < minRisk) return;
      flagged = true;
      if (!intervene) return;
      const iv = p.intervention;
      if (iv.kind === 'reward-penalty') {
        if (iv.penalty === 'zero') zero = true;
        else minus += iv.penalty;
        return;
      }
      const spanned = matches.filter((m) => m.span);
      if (!spanned.length) minus += iv.penalty;
      for (const m of spanned) tokenPenaltySpans.push({ patternId: p.id, messageIndex: m.messageIndex, ...m.span!, penalty: iv.penalty });
    });
    const correctedReward = (zero ? Math.min(reward, 0) : reward) - minus;
    return { id: t.id, resolved, flagged, flags, reward, correctedReward, tokenPenaltySpans };
  });
}
