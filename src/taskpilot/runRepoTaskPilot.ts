/**
 * The TaskPilot loop on a repository (FrogNano §3, Fig. 4; SPEC §15): candidates from a
 * source, executable validation, p-hat, the band's decision, statement refinement.
 * @module
 */
import { classifyResolveRate, type CurriculumDecision, type ResolveRateBand } from '../curriculum/index.js';
import type { RolloutRecord } from '../leaf/index.js';
import type { DiscardReason, PilotCandidate, PilotCategory, PilotSource } from './candidate.js';
import { type EstimatePHatOptions, estimatePHat, type PHatEstimate } from './estimatePHat.js';
import { DEFAULT_PILOT_BAND } from './pilotBand.js';
import { type CandidateValidation, validateCandidate, type ValidateCandidateOptions } from './validateCandidate.js';

/** The `pilot` field of an accepted task (SPEC §15), plus `pHatHistory` (every estimate of its lineage, round 0 first). */
export interface PilotInfo {
  pHat: number;
  /** N of the estimate that produced `pHat`. */
  rollouts: number;
  /** 0 = the first estimate; k = after k refinements. */
  round: number;
  source: PilotSource;
  category: PilotCategory;
  /** The id of the candidate this one was refined from. */
  parent?: string;
  /** The p-hat of each round of the lineage (an extension of SPEC §15's fields, for the report). */
  pHatHistory: number[];
  /** `--pool` only: `too-hard` (kept, below the band) or `too-easy` (kept, above it but not saturated). */
  status?: 'too-hard' | 'too-easy';
}

/** An accepted candidate. */
export interface PilotAccepted {
  candidate: PilotCandidate;
  pilot: PilotInfo;
}

/** A discarded candidate (one line of FILE.discarded.jsonl). */
export interface PilotDiscard {
  /** The candidate as last seen (absent for a source answer that never became one). */
  candidate?: PilotCandidate;
  reason: DiscardReason;
  /** Why, in words. */
  detail?: string;
  /** The p-hat of each round (empty when it was never estimated). */
  pHatHistory: number[];
}

/** What a candidate source gives: candidates, plus those it discarded itself (duplicates, invalid answers). */
export interface PilotSourceResult {
  candidates: PilotCandidate[];
  discarded: PilotDiscard[];
}

/** A refinement direction (Fig. 5): `easier` = more specific, `harder` = less. */
export type PilotDirection = 'easier' | 'harder';

/** A refinement's answer: the new statement (optionally new `meta`, e.g. mutation's `level`), or null: cannot be refined that way. */
export type PilotRefinement = string | { statement: string; meta?: Record<string, unknown> } | null;

/**
 * Mutation's refinement without a generator (SPEC §15): `meta.statementLevels` (least to most
 * specific) and `meta.level`: `easier` moves one level more specific, `harder` one less;
 * null at the ends (or without levels).
 */
export function levelRefinement(c: PilotCandidate, direction: PilotDirection): PilotRefinement {
  const levels = c.meta?.statementLevels;
  const level = c.meta?.level;
  if (!Array.isArray(levels) || typeof level !== 'number') return null;
  const k = level + (direction === 'easier' ? 1 : -1);
  if (k < 0 || k >= levels.length || typeof levels[k] !== 'string') return null;
  return { statement: levels[k] as string, meta: { ...c.meta, level: k } };
}

/** Progress of the loop, for stderr. */
export type PilotProgress =
  | { kind: 'generated'; candidates: number; discarded: number; skipped: number }
  | { kind: 'validated'; id: string; ok: boolean; reason?: DiscardReason; detail?: string }
  | { kind: 'estimated'; id: string; round: number; pHat: number | null; decision?: CurriculumDecision; errors: number }
  | { kind: 'refined'; id: string; parent: string; round: number; direction: PilotDirection }
  | { kind: 'accepted'; id: string; round: number; pHat: number }
  | { kind: 'discarded'; id: string; reason: DiscardReason; detail?: string };

/** Options of {@link runRepoTaskPilot}. */
export interface RunRepoTaskPilotOptions {
  /** The candidate source (generator or mutation, or a test's fake). */
  source: () => Promise<PilotSourceResult>;
  /** The p-hat settings: policy, sandbox, rollouts N (default 8), concurrency, seed, episode options. */
  estimate: Omit<EstimatePHatOptions, 'round' | 'onRecords'>;
  /** Validation settings (default: `validateCandidate` with `estimate.sandbox`, repeat 2). */
  validation?: Omit<ValidateCandidateOptions, 'sandbox'>;
  /** Replaces `validateCandidate` (tests). */
  validate?: (c: PilotCandidate) => Promise<CandidateValidation>;
  /** The target band (default `(0, 1)`). */
  band?: ResolveRateBand;
  /** Refinement rounds at most (default 3). */
  rounds?: number;
  /** The new statement, or null when the candidate cannot be refined that way (then: `out-of-band`). */
  refine?: (candidate: PilotCandidate, direction: PilotDirection, round: number) => Promise<PilotRefinement>;
  /** Candidate ids done already (`--resume`): a candidate whose id, or a refinement `<id>-r<k>` of it, is here is skipped. */
  skip?: ReadonlySet<string>;
  /** Candidates validated at once (default 1). */
  validateConcurrency?: number;
  onAccepted?: (a: PilotAccepted) => void | Promise<void>;
  onDiscarded?: (d: PilotDiscard) => void | Promise<void>;
  onRecords?: (records: RolloutRecord[]) => void | Promise<void>;
  onProgress?: (p: PilotProgress) => void;
  signal?: AbortSignal;
}

/** What {@link runRepoTaskPilot} did. */
export interface RepoTaskPilotResult {
  accepted: PilotAccepted[];
  discarded: PilotDiscard[];
  /** Candidates skipped by `skip`. */
  skipped: number;
  /** Candidates left unjudged: no episode of an estimate was graded (the model unavailable). Not written anywhere, so `--resume` retries them. */
  unestimated: string[];
}

/** Whether `id` or a refinement of it is done. */
export function isDone(id: string, done: ReadonlySet<string>): boolean {
  if (done.has(id)) return true;
  for (const d of done) if (d.startsWith(`${id}-r`) && /^\d+$/.test(d.slice(id.length + 2))) return true;
  return false;
}

/** Runs `fn` over `items`, `n` at a time, results in order. */
async function pool<T, R>(items: readonly T[], n: number, fn: (x: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  }));
  return out;
}

/**
 * The TaskPilot loop (FrogNano §3, Fig. 4 and 5; SPEC §15):
 * 1. `source()` gives the candidates (and its own discards, written as they are);
 *    those done already (`skip`) are skipped;
 * 2. each is validated (`validateCandidate`: its F2P / P2P ids found and checked); a failure
 *    is discarded with its reason;
 * 3. the valid ones are estimated together (`estimatePHat`, N episodes each) and classified
 *    by `classifyResolveRate(pHat, band)`: `accept` -> accepted, `pilot.round` 0;
 *    `refine-easier` / `too-hard` -> `refine(c, 'easier')`, `refine-harder` / `saturated` ->
 *    `refine(c, 'harder')`;
 * 4. a refined candidate keeps the snapshot, gold patch and tests (so it is not validated
 *    again: only the statement changed, and the tests' outcome does not depend on it), gets
 *    the new statement, id `<original id>-r<round>` and `parent` = the original id, and is
 *    estimated again in the next round; after `rounds` rounds (or when `refine` returns null)
 *    it is discarded `out-of-band` with its `pHatHistory`.
 * A candidate whose estimate graded no episode (the model unavailable) is left unjudged
 * (`unestimated`). Accepted and discarded candidates go to the callbacks as soon as decided,
 * in candidate order within a round.
 */
export async function runRepoTaskPilot(opts: RunRepoTaskPilotOptions): Promise<RepoTaskPilotResult> {
  const band = opts.band ?? DEFAULT_PILOT_BAND;
  const rounds = opts.rounds ?? 3;
  const n = opts.estimate.rollouts ?? 8;
  const result: RepoTaskPilotResult = { accepted: [], discarded: [], skipped: 0, unestimated: [] };
  const progress = (p: PilotProgress): void => opts.onProgress?.(p);
  const discard = async (d: PilotDiscard): Promise<void> => {
    result.discarded.push(d);
    progress({ kind: 'discarded', id: d.candidate?.id ?? '?', reason: d.reason, ...(d.detail !== undefined ? { detail: d.detail } : {}) });
    await opts.onDiscarded?.(d);
  };

  const src = await opts.source();
  const skip = opts.skip ?? new Set<string>();
  const fresh = src.candidates.filter((c) => !isDone(c.id, skip));
  const preDiscarded = src.discarded.filter((d) => d.candidate === undefined || !isDone(d.candidate.id, skip));
  result.skipped = src.candidates.length - fresh.length + (src.discarded.length - preDiscarded.length);
  progress({ kind: 'generated', candidates: fresh.length, discarded: preDiscarded.length, skipped: result.skipped });
  for (const d of preDiscarded) await discard({ ...d, pHatHistory: d.pHatHistory ?? [] });

  const validate = opts.validate ?? ((c: PilotCandidate) => validateCandidate(c, { sandbox: opts.estimate.sandbox, ...(opts.validation ?? {}), ...(opts.signal ? { signal: opts.signal } : {}) }));
  const validations = await pool(fresh, opts.validateConcurrency ?? 1, async (c) => {
    if (opts.signal?.aborted) return null;
    const v = await validate(c);
    progress({ kind: 'validated', id: c.id, ok: v.ok, ...(v.ok ? {} : { reason: v.reason, detail: v.detail }) });
    return v;
  });
  /** A lineage: the original candidate, the current one, its p-hats. */
  interface Line { root: PilotCandidate; current: PilotCandidate; history: number[] }
  let batch: Line[] = [];
  for (let i = 0; i < fresh.length; i++) {
    const v = validations[i];
    if (!v) continue;
    if (v.ok) batch.push({ root: v.candidate, current: v.candidate, history: [] });
    else await discard({ candidate: fresh[i]!, reason: v.reason, detail: v.detail, pHatHistory: [] });
  }

  for (let round = 0; batch.length > 0 && !opts.signal?.aborted; round++) {
    const est: Map<string, PHatEstimate> = await estimatePHat(batch.map((l) => l.current), { ...opts.estimate, round, ...(opts.onRecords ? { onRecords: opts.onRecords } : {}) });
    const next: Line[] = [];
    for (const line of batch) {
      const c = line.current;
      const e = est.get(c.id);
      if (!e) continue; // stopped
      if (e.pHat === null) {
        progress({ kind: 'estimated', id: c.id, round, pHat: null, errors: e.errors });
        result.unestimated.push(line.root.id);
        continue;
      }
      const pHat = e.pHat;
      line.history.push(pHat);
      const decision = classifyResolveRate(pHat, band);
      progress({ kind: 'estimated', id: c.id, round, pHat, decision, errors: e.errors });
      if (decision === 'accept') {
        const a: PilotAccepted = { candidate: c, pilot: { pHat, rollouts: e.outcomes.length, round, source: c.source, category: c.category, ...(c.parent !== undefined ? { parent: c.parent } : {}), pHatHistory: [...line.history] } };
        result.accepted.push(a);
        progress({ kind: 'accepted', id: c.id, round, pHat });
        await opts.onAccepted?.(a);
        continue;
      }
      const direction: PilotDirection = decision === 'refine-easier' || decision === 'too-hard' ? 'easier' : 'harder';
      const outOfBand = (why: string): Promise<void> => discard({ candidate: c, reason: 'out-of-band', detail: why, pHatHistory: [...line.history] });
      if (round >= rounds) {
        await outOfBand(`p-hat ${fmt(pHat)} (${decision}) after ${rounds} refinement round${rounds === 1 ? '' : 's'}`);
        continue;
      }
      const answer = opts.refine ? await opts.refine(c, direction, round + 1) : null;
      const statement = answer === null ? null : typeof answer === 'string' ? answer : answer.statement;
      if (statement === null || statement.trim() === '') {
        await outOfBand(`p-hat ${fmt(pHat)} (${decision}) and the statement cannot be made ${direction}`);
        continue;
      }
      const meta = answer !== null && typeof answer === 'object' && answer.meta ? { meta: answer.meta } : {};
      const refined: PilotCandidate = { ...c, ...meta, id: `${line.root.id}-r${round + 1}`, statement, parent: line.root.id };
      progress({ kind: 'refined', id: refined.id, parent: line.root.id, round: round + 1, direction });
      next.push({ ...line, current: refined });
    }
    batch = next;
  }
  return result;
}

const fmt = (v: number): string => String(Math.round(v * 1000) / 1000);
