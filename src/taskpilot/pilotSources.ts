/**
 * The two candidate sources of SPEC §15 as pluggable `source` / `refine` functions of
 * `runRepoTaskPilot`: the generator model (`generator/`) and `mutation` (`mutation/`),
 * each loaded only when used (mutation loads the tree-sitter grammars).
 * @module
 */
import { join } from 'node:path';
import type { ChatModel } from '../llm/index.js';
import { environmentSandbox, resolveEnvironment, type Sandbox, type TestLogFormat } from '../leaf/index.js';
import type { PilotCandidate } from './candidate.js';
import { levelRefinement, type PilotDirection, type PilotRefinement, type PilotSourceResult } from './runRepoTaskPilot.js';

/**
 * `sandbox` with every call in a candidate environment (SPEC §14: the image as the root,
 * the repo at its workdir, its variables), for runs on `repoDir` outside an episode (the
 * mutation source's suite runs); `sandbox` itself without an environment.
 */
export async function sandboxIn(sandbox: Sandbox, repoDir: string, environment: PilotCandidate['environment']): Promise<Sandbox> {
  if (environment === undefined) return sandbox;
  const env = await resolveEnvironment({ id: 'taskpilot', statement: '', repo: repoDir, repoDir, tests: { command: 'true' }, environment: { ...environment }, imagePath: environment.image });
  return environmentSandbox(sandbox, env);
}

/** The repository and its tests, as `--repo` / `--tests` / `--log` give them. */
export interface PilotRepo {
  repoDir: string;
  tests: { command: string; log?: TestLogFormat };
}

/** The generator source: `generatorCandidates` (its `duplicate` / `invalid-answer` discards kept). */
export function generatorSource(opts: PilotRepo & { model: ChatModel; count: number; seed: number; environment?: PilotCandidate['environment'] }): () => Promise<PilotSourceResult> {
  return async () => {
    const g = await import('./generator/index.js');
    const r = await g.generatorCandidates({ model: opts.model, repoDir: opts.repoDir, tests: { command: opts.tests.command, ...(opts.tests.log ? { log: opts.tests.log } : {}) }, count: opts.count, seed: opts.seed });
    return {
      candidates: opts.environment ? r.candidates.map((c) => ({ ...c, environment: { ...opts.environment! } })) : r.candidates,
      discarded: r.discarded.map((d) => {
        const x = d as { reason: 'duplicate' | 'invalid-answer'; candidate?: PilotCandidate; error?: string; duplicateOf?: string };
        const detail = x.error ?? (x.duplicateOf !== undefined ? `duplicate of ${x.duplicateOf}` : undefined);
        return { ...(x.candidate ? { candidate: x.candidate } : {}), reason: x.reason, ...(detail !== undefined ? { detail } : {}), pHatHistory: [] };
      }),
    };
  };
}

/**
 * The mutation source: `mutationCandidates` (its rejected sites are not candidates, so
 * they are not discarded lines; `onRejected` gets them for the progress). Candidate repos go
 * under `workDir/mutation`.
 */
export function mutationSource(opts: PilotRepo & { sandbox: Sandbox; count: number; seed: number; workDir: string; timeoutSeconds?: number; signal?: AbortSignal; onRejected?: (n: number) => void; environment?: PilotCandidate['environment'] }): () => Promise<PilotSourceResult> {
  return async () => {
    const m = await import('./mutation/mutationCandidates.js');
    const sandbox = await sandboxIn(opts.sandbox, opts.repoDir, opts.environment);
    const log = (opts.tests.log ?? 'pytest') as never;
    const r = await m.mutationCandidates({
      repoDir: opts.repoDir, tests: { command: opts.tests.command, log }, sandbox, seed: opts.seed, count: opts.count,
      workDir: join(opts.workDir, 'mutation'), ...(opts.timeoutSeconds ? { timeoutSeconds: opts.timeoutSeconds } : {}), ...(opts.signal ? { signal: opts.signal } : {}),
    });
    opts.onRejected?.(r.rejected.length);
    return { candidates: opts.environment ? r.candidates.map((c) => ({ ...c, environment: { ...opts.environment! } })) : r.candidates, discarded: [] };
  };
}

/**
 * The refinement of SPEC §15 / Fig. 5: with a generator, `refineStatement(generator, c,
 * direction)` (a failing request: null, so the candidate is discarded `out-of-band`);
 * without one, mutation's statement levels (`levelRefinement`); otherwise none (null).
 */
export function pilotRefine(generator: ChatModel | null): (c: PilotCandidate, direction: PilotDirection) => Promise<PilotRefinement> {
  return async (c, direction) => {
    if (generator === null) return levelRefinement(c, direction);
    const g = await import('./generator/index.js');
    try {
      return await g.refineStatement(generator, c, direction);
    } catch {
      return null;
    }
  };
}
