/**
 * The `mutation` candidate source of TaskPilot (SPEC §15): one procedural bug per
 * candidate, in a function of the snapshot, kept only when the snapshot's own tests
 * catch it. The repo the agent sees is the snapshot with the bug and without the files
 * holding the tests it breaks (restored at grading through `tests.files`), as a SWE-smith
 * instance is built (`importInstances`); the gold patch is the bug's reverse.
 * @module
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import seedrandom from 'seedrandom';
import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../../errors/FrognanoError.js';
import { AbortSignalSchema, parseOptions } from '../../errors/validate.js';
import { copyTree } from '../../leaf/copyTree.js';
import { SandboxSchema } from '../../leaf/sandbox.js';
import { TAP_NAME_SEPARATOR } from '../../leaf/testLogs/index.js';
import type { PilotCandidate } from '../candidate.js';
import { MUTATION_KINDS, type MutationKind } from './kinds.js';
import { languageOf, parsesCleanly } from './parser.js';
import { listRepoFiles } from './repoFiles.js';
import { applySite, findMutationSites, type MutationSite } from './sites.js';
import { failureMessages, statementLevels } from './statement.js';
import { idsWith, MUTATION_LOG_FORMATS, runSuite, type MutationLogFormat } from './testRun.js';

/** Options of {@link mutationCandidates}. */
export const MutationCandidatesOptionsSchema = z
  .object({
    /** The snapshot: a folder (never modified). */
    repoDir: z.string().min(1),
    /** The snapshot's test command (run in the repo root) and how its log is read (default `pytest`; pytest wants `-rA` for the messages). */
    tests: z.object({ command: z.string().min(1), log: z.enum(MUTATION_LOG_FORMATS).default('pytest') }).strict(),
    /** The sandbox every test run goes through. */
    sandbox: SandboxSchema,
    /** Seed of the site order: the same seed gives the same candidates in the same order. */
    seed: z.union([z.number().int(), z.string()]),
    /** Candidates to make (at most; fewer when the sites run out). */
    count: z.number().int().min(1),
    /** Folder the candidate repos are written in, one subfolder per candidate id. */
    workDir: z.string().min(1),
    /** The kinds to use. Default all of `MUTATION_KINDS`. */
    kinds: z.array(z.enum(MUTATION_KINDS)).min(1).optional(),
    /** Time limit of each test run, seconds. Default 120. */
    timeoutSeconds: z.number().gt(0).default(120),
    /** Sites tried at most (each costs one test run). Default 10 x count. */
    maxAttempts: z.number().int().min(1).optional(),
    /** Folder for the temporary test workspaces. Default the OS temporary folder. */
    tmpDir: z.string().min(1).optional(),
    /** Stops the search (the running test is killed). */
    signal: AbortSignalSchema.optional(),
  })
  .strict();
/** Options of {@link mutationCandidates} as the caller writes them. */
export type MutationCandidatesOptions = z.input<typeof MutationCandidatesOptionsSchema>;
type Resolved = z.output<typeof MutationCandidatesOptionsSchema>;

/**
 * Why a site gave no candidate: `tests-already-pass` (no test the snapshot passes
 * fails: the bug is not caught), `does-not-parse` (the mutated file has a syntax error),
 * `no-test-results` (the suite crashed or timed out with nothing to read),
 * `test-file-not-found` (a failing test's file could not be told), `duplicate`.
 */
export type MutationRejectReason = 'tests-already-pass' | 'does-not-parse' | 'no-test-results' | 'test-file-not-found' | 'duplicate';

/** What {@link mutationCandidates} made. */
export interface MutationCandidatesResult {
  candidates: PilotCandidate[];
  rejected: { site: MutationSite; reason: MutationRejectReason; detail?: string }[];
}

const FAILING = ['failed', 'error'];
const PASSING = ['passed', 'xfail', 'xpass'];

/** The candidate id of the contract: `mutation-` + 12 hex of sha256 over the gold patch and the hidden tests. */
export function mutationCandidateId(goldPatch: string, files: Readonly<Record<string, string>>): string {
  return `mutation-${createHash('sha256').update(goldPatch).update(JSON.stringify(files)).digest('hex').slice(0, 12)}`;
}

/** The git-style unified diff turning `from` into `to` for `file` (applies with `applyUnifiedDiff`). */
export function fileDiff(file: string, from: string, to: string): string {
  const body = createTwoFilesPatch(`a/${file}`, `b/${file}`, from, to, undefined, undefined, { context: 3 });
  return `diff --git a/${file} b/${file}\n${body.replace(/^=+\n/, '')}`;
}

/** Shuffles `xs` in place with `rng` (Fisher-Yates). */
function shuffle<T>(xs: T[], rng: () => number): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
  return xs;
}

/**
 * Every site of the snapshot's source files in the seeded order: first the sites in
 * functions whose (unqualified) name appears in some test file's text (a cheap
 * "covered" signal), each group shuffled with the seed.
 */
async function orderedSites(repoDir: string, kinds: readonly MutationKind[], seed: string, sources: string[], testTexts: string[]): Promise<{ sites: MutationSite[]; texts: Map<string, string> }> {
  const texts = new Map<string, string>();
  const covered: MutationSite[] = [];
  const rest: MutationSite[] = [];
  const allTests = testTexts.join('\n');
  for (const file of sources) {
    const text = await readFile(join(repoDir, file), 'utf8');
    texts.set(file, text);
    for (const s of await findMutationSites(text, file, languageOf(file)!, kinds)) {
      const name = s.function.split('.').pop()!;
      (name !== '<anonymous>' && new RegExp(`\\b${name.replace(/[$]/g, '\\$')}\\b`).test(allTests) ? covered : rest).push(s);
    }
  }
  const rng = seedrandom(seed);
  return { sites: [...shuffle(covered, rng), ...shuffle(rest, rng)], texts };
}

/**
 * The test files holding the failing ids: pytest ids name their file (`path::test`);
 * for other logs, the test files whose text contains the id's last name part (a TAP
 * name's last ` > ` part, a unittest id's method). Null when an id matches no file.
 */
function hiddenTestFiles(ids: readonly string[], log: MutationLogFormat, testTexts: ReadonlyMap<string, string>): string[] | null {
  const files = new Set<string>();
  for (const id of ids) {
    if (log === 'pytest') {
      const i = id.indexOf('::');
      const f = i > 0 ? id.slice(0, i) : id;
      if (!testTexts.has(f)) return null;
      files.add(f);
      continue;
    }
    const name = (log === 'tap' ? id.split(TAP_NAME_SEPARATOR).pop() : id.split('.').pop()) ?? id;
    const found = [...testTexts].filter(([, t]) => t.includes(name)).map(([f]) => f);
    if (found.length === 0) return null;
    for (const f of found) files.add(f);
  }
  return [...files].sort();
}

/** Writes the candidate repo: a copy of the snapshot with the bug and without the hidden test files. */
async function writeCandidateRepo(o: Resolved, dir: string, site: MutationSite, mutated: string, hidden: readonly string[]): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(o.workDir, { recursive: true });
  await copyTree(o.repoDir, dir);
  // the snapshot's git history would show the injected bug (git diff) and undo it (git checkout .)
  await rm(join(dir, '.git'), { recursive: true, force: true });
  await writeFile(join(dir, site.file), mutated);
  for (const f of hidden) await rm(join(dir, f), { force: true });
}

/**
 * Makes up to `count` `mutation` candidates (SPEC §15). The tests run once on the
 * snapshot (their passing ids are the baseline; none passing is an error), then each
 * site in the seeded order is applied to a copy and the tests run on it: the
 * fail-to-pass ids are the baseline ids that now fail or error, the pass-to-pass ids
 * those that still pass (ids that vanish are in neither). A site that breaks no test,
 * leaves the file unparseable, or crashes the suite is rejected with its reason.
 *
 * @throws FrognanoError `INVALID_TYPE` / `OUT_OF_RANGE` for bad options; `INVALID_STATE`
 *   when no test passes on the snapshot or its source files have no site.
 */
export async function mutationCandidates(opts: MutationCandidatesOptions): Promise<MutationCandidatesResult> {
  const fn = 'mutationCandidates';
  const o = parseOptions(fn, MutationCandidatesOptionsSchema, opts);
  const run = { command: o.tests.command, log: o.tests.log, sandbox: o.sandbox, timeoutMs: o.timeoutSeconds * 1000, signal: o.signal, tmpDir: o.tmpDir };
  const base = await runSuite(o.repoDir, {}, run);
  const baseline = idsWith(base.results, PASSING);
  if (baseline.size === 0) throw new FrognanoError(ErrorCode.INVALID_STATE, `no test passes on the snapshot ${o.repoDir} (exit ${base.run.exitCode}, ${base.results.length} results): a mutation cannot be caught`, { fn, field: 'opts.tests.command' });
  const files = await listRepoFiles(o.repoDir);
  const testTexts = new Map<string, string>();
  for (const f of files.tests) testTexts.set(f, await readFile(join(o.repoDir, f), 'utf8'));
  const { sites, texts } = await orderedSites(o.repoDir, o.kinds ?? MUTATION_KINDS, String(o.seed), files.source, [...testTexts.values()]);
  if (sites.length === 0) throw new FrognanoError(ErrorCode.INVALID_STATE, `the snapshot's ${files.source.length} source file(s) have no mutation site in a function`, { fn, field: 'opts.repoDir' });
  const result: MutationCandidatesResult = { candidates: [], rejected: [] };
  const ids = new Set<string>();
  const maxAttempts = o.maxAttempts ?? 10 * o.count;
  for (const site of sites.slice(0, maxAttempts)) {
    if (result.candidates.length >= o.count) break;
    o.signal?.throwIfAborted();
    const made = await trySite(o, site, texts.get(site.file)!, baseline, testTexts);
    if ('reason' in made) {
      result.rejected.push({ site, ...made });
    } else if (ids.has(made.id)) {
      result.rejected.push({ site, reason: 'duplicate' });
    } else {
      ids.add(made.id);
      result.candidates.push(made);
    }
  }
  return result;
}

/** One site: the mutated run, then the candidate (its repo written) or the rejection. */
async function trySite(o: Resolved, site: MutationSite, original: string, baseline: ReadonlySet<string>, testTexts: ReadonlyMap<string, string>): Promise<PilotCandidate | { reason: MutationRejectReason; detail?: string }> {
  const mutated = applySite(original, site);
  if (!(await parsesCleanly(mutated, languageOf(site.file)!))) return { reason: 'does-not-parse' };
  const after = await runSuite(o.repoDir, { [site.file]: mutated }, { command: o.tests.command, log: o.tests.log, sandbox: o.sandbox, timeoutMs: o.timeoutSeconds * 1000, signal: o.signal, tmpDir: o.tmpDir });
  if (after.results.length === 0) return { reason: 'no-test-results', detail: `exit ${after.run.exitCode}${after.run.timedOut ? ' (timed out)' : ''}` };
  const failing = idsWith(after.results, FAILING);
  const passing = idsWith(after.results, PASSING);
  const failToPass = [...baseline].filter((id) => failing.has(id)).sort();
  const passToPass = [...baseline].filter((id) => passing.has(id)).sort();
  if (failToPass.length === 0) return { reason: 'tests-already-pass' };
  const hidden = hiddenTestFiles(failToPass, o.tests.log, testTexts);
  if (hidden === null) return { reason: 'test-file-not-found' };
  const files = Object.fromEntries(hidden.map((f) => [f, testTexts.get(f)!]));
  const goldPatch = fileDiff(site.file, mutated, original);
  const id = mutationCandidateId(goldPatch, files);
  const levels = statementLevels(failToPass, failureMessages(after.run.output, o.tests.log), site);
  const repoDir = resolve(o.workDir, id);
  await writeCandidateRepo(o, repoDir, site, mutated, hidden);
  return {
    id,
    source: 'mutation',
    category: 'bug-fix',
    statement: levels[1]!,
    repoDir,
    goldPatch,
    tests: { command: o.tests.command, log: o.tests.log, files, failToPass, passToPass },
    meta: { kind: site.kind, file: site.file, function: site.function, line: site.line, statementLevels: levels, level: 1 },
  };
}
