/**
 * `--pool FILE`: the tasks of an earlier pilot output re-estimated against the current
 * policy (SPEC §15: each iteration, saturated tasks leave the pool).
 * @module
 */
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { classifyResolveRate, type ResolveRateBand } from '../curriculum/index.js';
import type { PilotCandidate, PilotCategory, PilotSource } from './candidate.js';
import { type EstimatePHatOptions, estimatePHat } from './estimatePHat.js';
import { DEFAULT_PILOT_BAND } from './pilotBand.js';
import type { PilotDiscardLine, PilotTaskLine } from './pilotOutputs.js';

/** What {@link reestimatePool} decided. */
export interface PoolResult {
  /** The tasks kept, `pilot` updated, `repo` relative to `outFile`'s folder. */
  kept: PilotTaskLine[];
  /** The tasks that left the pool (saturated: `out-of-band`). */
  left: PilotDiscardLine[];
  /** Ids without a graded episode (kept unchanged). */
  unestimated: string[];
}

/**
 * Re-estimates a pool's tasks (lines of a pilot FILE; `repo` resolved against `poolFile`'s
 * folder) with `estimatePHat` and classifies each against `band`:
 * - `accept` -> kept, `pilot.pHat` the new estimate, `pilot.round` 0, no `status`;
 * - `saturated` (p-hat 1) -> leaves the pool: a discarded line `out-of-band` with
 *   `pHatHistory` [old p-hat, new];
 * - `too-hard` / `refine-easier` -> kept for later iterations (the policy may grow into it),
 *   `pilot.status` `too-hard`; `refine-harder` (above the band, not saturated: still a
 *   learning signal) -> kept, `pilot.status` `too-easy`.
 * No refinement happens here: the pool's statements stay as they were.
 */
export async function reestimatePool(lines: readonly PilotTaskLine[], opts: Omit<EstimatePHatOptions, 'round'> & { poolFile: string; outFile: string; band?: ResolveRateBand }): Promise<PoolResult> {
  const band = opts.band ?? DEFAULT_PILOT_BAND;
  const poolDir = dirname(resolve(opts.poolFile));
  const outDir = dirname(resolve(opts.outFile));
  const repoOf = (l: PilotTaskLine): string => (isAbsolute(l.repo) ? l.repo : resolve(poolDir, l.repo));
  // a task's environment (SPEC §14): its image resolved against the pool's folder, written again relative to --out's
  const envOf = (l: PilotTaskLine): PilotCandidate['environment'] => (l.environment ? { ...l.environment, image: isAbsolute(l.environment.image) ? l.environment.image : resolve(poolDir, l.environment.image) } : undefined);
  const envLine = (l: PilotTaskLine): Partial<PilotTaskLine> => (l.environment ? { environment: { ...l.environment, image: relative(outDir, envOf(l)!.image) || '.' } } : {});
  const candidates: PilotCandidate[] = lines.map((l) => ({
    id: l.id, source: l.pilot.source as PilotSource, category: l.pilot.category as PilotCategory, statement: l.statement, repoDir: repoOf(l), goldPatch: l.referencePatch,
    tests: { command: l.tests.command, log: l.tests.log as PilotCandidate['tests']['log'], files: l.tests.files ?? {}, ...(l.tests.failToPass ? { failToPass: l.tests.failToPass } : {}), ...(l.tests.passToPass ? { passToPass: l.tests.passToPass } : {}) },
    ...(l.pilot.parent !== undefined ? { parent: l.pilot.parent } : {}),
    ...(l.environment ? { environment: envOf(l)! } : {}),
  }));
  const est = await estimatePHat(candidates, { ...opts, round: 0 });
  const n = opts.rollouts ?? 8;
  const out: PoolResult = { kept: [], left: [], unestimated: [] };
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    const repo = relative(outDir, repoOf(l)) || '.';
    const e = est.get(l.id);
    if (!e || e.pHat === null) {
      out.unestimated.push(l.id);
      out.kept.push({ ...l, repo, ...envLine(l) });
      continue;
    }
    const d = classifyResolveRate(e.pHat, band);
    const { status: _old, ...pilot } = l.pilot;
    const history = [l.pilot.pHat, e.pHat];
    if (d === 'saturated') {
      out.left.push({ id: l.id, statement: l.statement, category: l.pilot.category, goldPatch: l.referencePatch, tests: candidates[i]!.tests, source: l.pilot.source, reason: 'out-of-band', detail: `saturated: p-hat 1 under the current policy (was ${l.pilot.pHat})`, pHatHistory: history });
      continue;
    }
    const status = d === 'accept' ? {} : { status: d === 'refine-harder' ? ('too-easy' as const) : ('too-hard' as const) };
    out.kept.push({ ...l, repo, ...envLine(l), pilot: { ...pilot, pHat: e.pHat, rollouts: e.outcomes.length, round: 0, pHatHistory: history, ...status } });
  }
  return out;
}
