/**
 * The TaskPilot generator source (FrogNano §3; SPEC §15): a task-generation model
 * is shown the repository snapshot and proposes a statement, a gold patch and hidden
 * fail-to-pass tests. A propose request carries the repository, never other
 * candidates' statements.
 * @module
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join, posix } from 'node:path';
import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../../errors/FrognanoError.js';
import { describeValue } from '../../errors/validate.js';
import type { TestLogFormat } from '../../leaf/index.js';
import { askStructured } from '../../llm/askStructured.js';
import type { ChatMessage, ChatModel, CompleteOptions } from '../../llm/chatModel.js';
import { PILOT_CATEGORIES, type PilotCandidate, type PilotCategory } from '../candidate.js';
import { isTestPath } from '../mutation/repoFiles.js';
import { type RepoView, type RepoViewOptions, renderRepoView, repoView } from './repoView.js';

/** The first line of every propose request's user message (scripted generators recognise it). */
export const PROPOSE_HEADER = 'TaskPilot: propose a task';

/** The generator's propose answer (SPEC §15). */
export const ProposeAnswerSchema = z.object({
  statement: z.string().trim().min(1),
  goldPatch: z.string().min(1),
  tests: z.object({ files: z.record(z.string(), z.string()) }),
  category: z.enum(PILOT_CATEGORIES),
});
/** A parsed propose answer. */
export type ProposeAnswer = z.output<typeof ProposeAnswerSchema>;

/** The files a unified diff touches (new and old paths, `a/` `b/` prefixes removed, `/dev/null` left out), sorted. */
export function patchPaths(patch: string): string[] {
  const out = new Set<string>();
  for (const m of patch.matchAll(/^(?:---|\+\+\+) (\S+)/gm)) {
    const p = m[1]!;
    if (p === '/dev/null') continue;
    out.add(p.replace(/^[ab]\//, ''));
  }
  for (const m of patch.matchAll(/^diff --git a\/(\S+) b\/(\S+)/gm)) {
    out.add(m[1]!);
    out.add(m[2]!);
  }
  return [...out].sort();
}

/** `files` with its keys sorted (the canonical form hashed into ids and compared for duplicates). */
export function sortedFiles(files: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.keys(files).sort().map((k) => [k, files[k]!]));
}

/**
 * The contract id of a candidate: `<source>-` + the first 12 hex digits of
 * sha256 over `goldPatch + JSON.stringify(files with sorted keys)` (UTF-8).
 */
export function pilotCandidateId(source: 'generator' | 'mutation', goldPatch: string, files: Record<string, string>): string {
  return `${source}-${createHash('sha256').update(goldPatch + JSON.stringify(sortedFiles(files)), 'utf8').digest('hex').slice(0, 12)}`;
}

/** Hidden files that would change how the suite is collected or configured, not add tests (review of issue 23). */
const CONFIG_FILE = /(^|\/)(conftest\.py|pytest\.ini|tox\.ini|setup\.cfg|pyproject\.toml|setup\.py|package\.json|\.npmrc|sitecustomize\.py|usercustomize\.py)$/;

/** The added lines of a unified diff (at least 16 characters once trimmed): what a statement must not quote. */
function addedLines(patch: string): string[] {
  return patch.split('\n').filter((l) => l.startsWith('+') && !l.startsWith('+++')).map((l) => l.slice(1).trim()).filter((l) => l.length >= 16);
}

/**
 * Why `statement` hands over the fix, or null: it quotes a line (16 characters or more,
 * trimmed) that the gold patch adds or that the hidden tests hold. Checked on proposals and
 * on refined statements alike (a refine request shows the generator both).
 */
export function statementLeak(statement: string, goldPatch: string, files: Readonly<Record<string, string>>): string | null {
  const quoted = [...addedLines(goldPatch), ...Object.values(files).flatMap((t) => t.split('\n').map((l) => l.trim()).filter((l) => l.length >= 16))].find((l) => statement.includes(l));
  return quoted === undefined ? null : `the statement quotes the gold patch or the hidden tests (${JSON.stringify(quoted.slice(0, 60))}): describe the problem, not its fix`;
}

/**
 * Why a propose answer is unusable, or null (the `check` of askStructured: a reason makes it
 * retried). Besides the shape: a hidden path under `.git/` or that is a test-collection or
 * configuration file (`conftest.py`, `pytest.ini`, `package.json`, ...) is refused (it would
 * change the suite, not add tests), and so is one that replaces an existing non-test file of
 * the snapshot when `existing` (whether the snapshot has a path) is given; the gold patch's paths are
 * compared normalised (`./a` is `a`); and the statement must not quote a line the gold patch
 * or the hidden tests add (it would hand over the fix).
 */
export function checkProposeAnswer(a: ProposeAnswer, existing?: (path: string) => boolean): string | null {
  if (!/^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@/m.test(a.goldPatch) || !/^\+\+\+ /m.test(a.goldPatch)) return 'goldPatch must be a unified diff (---/+++ headers and @@ hunks) relative to the repository root';
  const paths = Object.keys(a.tests.files);
  if (paths.length === 0) return 'tests.files must hold at least one hidden test file';
  for (const p of paths) {
    if (p === '' || p.startsWith('/') || p.includes('\\') || posix.normalize(p) !== p || p.split('/').includes('..')) return `tests.files path ${JSON.stringify(p)} must be a relative POSIX path inside the repository`;
    if (a.tests.files[p]!.trim() === '') return `tests.files[${JSON.stringify(p)}] is empty`;
    if (p.split('/').includes('.git') || CONFIG_FILE.test(p)) return `tests.files path ${JSON.stringify(p)} is a repository or test-configuration file, not a test file`;
    if (existing?.(p) === true && !isTestPath(p)) return `tests.files path ${JSON.stringify(p)} would replace the snapshot's ${p}, which is not a test file`;
  }
  const leaked = statementLeak(a.statement, a.goldPatch, a.tests.files);
  if (leaked !== null) return leaked;
  const touched = patchPaths(a.goldPatch).map((p) => posix.normalize(p)).filter((p) => paths.includes(p));
  if (touched.length > 0) return `the gold patch must not change the hidden test files (${touched.join(', ')}); put the tests only in tests.files`;
  return null;
}

/** The `tests` argument: the `--tests` command and its log format. */
export interface GeneratorTests {
  command: string;
  log?: TestLogFormat;
}

/** Arguments of {@link proposeCandidate}. */
export interface ProposeOptions {
  /** The category asked for (the answer may name another one of {@link PILOT_CATEGORIES}). */
  category: PilotCategory;
  /** Sampling seed of the request (OpenAI `seed`). */
  seed: number;
  tests: GeneratorTests;
  /** The snapshot folder: the candidate's `repoDir`. Absolute. */
  repoDir: string;
  /** Further attempts after a malformed answer (default 2). */
  retries?: number;
  /** More completion options (temperature, ...); `seed` is the one above. */
  complete?: Omit<CompleteOptions, 'seed'>;
}

const SYSTEM = [
  'You write software-engineering tasks for training coding agents (FrogNano TaskPilot).',
  'Given a repository snapshot, propose ONE task that can be checked by tests: a problem statement as an issue reporter would write it,',
  'a gold patch that resolves it, and hidden fail-to-pass tests.',
  'Rules:',
  '- The hidden tests must FAIL on the snapshot as it is and PASS once the gold patch is applied; the existing tests must keep passing.',
  '- The gold patch is a git-style unified diff (`diff --git a/PATH b/PATH`, `--- a/PATH`, `+++ b/PATH`, `@@` hunks with 3 lines of context) relative to the repository root that applies to the snapshot exactly. It must not touch the hidden test files.',
  '- The hidden tests are new files (path -> full content) that the test command below runs; their ids are found by running them.',
  '- The statement describes the wanted behaviour (the contract), never the patch itself.',
  'Answer with ONE JSON object and nothing else:',
  '{"statement": string, "goldPatch": string, "tests": {"files": {"<path>": "<content>"}}, "category": one of ' + PILOT_CATEGORIES.map((c) => `"${c}"`).join(', ') + '}',
].join('\n');

/** The propose request: a system message and one user message holding the repository view. It never holds other candidates. */
export function proposeMessages(view: RepoView, category: PilotCategory, tests: GeneratorTests): ChatMessage[] {
  const user = [
    PROPOSE_HEADER,
    `Category: ${category}`,
    `Test command (run in the repository root): ${tests.command}${tests.log ? ` (log format: ${tests.log})` : ''}`,
    '',
    renderRepoView(view),
  ].join('\n');
  return [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: user },
  ];
}

/**
 * Asks the generator for one candidate on the snapshot `opts.repoDir`, shown as `view`.
 * The answer is JSON `{ statement, goldPatch, tests: { files }, category }` (zod-validated,
 * plus {@link checkProposeAnswer}); a malformed answer is retried, then the call fails.
 *
 * @returns a `generator` candidate: `repoDir` the snapshot itself, `tests.files` the hidden
 *   F2P files, no `failToPass` / `passToPass` yet (validation finds them by running),
 *   `id` = {@link pilotCandidateId}
 * @throws FrognanoError `MODEL_ANSWER_INVALID` when every attempt was malformed; `MODEL_UNAVAILABLE` from the model
 */
export async function proposeCandidate(model: ChatModel, view: RepoView, opts: ProposeOptions): Promise<PilotCandidate> {
  const fn = 'proposeCandidate';
  if (!PILOT_CATEGORIES.includes(opts?.category)) throw new FrognanoError(ErrorCode.INVALID_TYPE, `opts.category must be one of ${PILOT_CATEGORIES.join(', ')}, got ${describeValue(opts?.category)}`, { fn, field: 'opts.category' });
  if (typeof opts.tests?.command !== 'string' || opts.tests.command === '') throw new FrognanoError(ErrorCode.INVALID_TYPE, `opts.tests.command must be a non-empty string, got ${describeValue(opts.tests?.command)}`, { fn, field: 'opts.tests.command' });
  if (typeof opts.repoDir !== 'string' || opts.repoDir === '') throw new FrognanoError(ErrorCode.INVALID_TYPE, `opts.repoDir must be a non-empty string, got ${describeValue(opts.repoDir)}`, { fn, field: 'opts.repoDir' });
  const a = await askStructured(model, proposeMessages(view, opts.category, opts.tests), ProposeAnswerSchema, {
    retries: opts.retries ?? 2,
    check: (a: ProposeAnswer) => checkProposeAnswer(a, (p) => existsSync(join(opts.repoDir, p))),
    caller: fn,
    complete: { ...opts.complete, seed: opts.seed },
  });
  const files = sortedFiles(a.tests.files);
  return {
    id: pilotCandidateId('generator', a.goldPatch, files),
    source: 'generator',
    category: a.category,
    statement: a.statement.trim(),
    repoDir: opts.repoDir,
    goldPatch: a.goldPatch,
    tests: { command: opts.tests.command, ...(opts.tests.log ? { log: opts.tests.log } : {}), files },
    meta: { requestedCategory: opts.category, seed: opts.seed },
  };
}

/** A proposal left out by {@link generatorCandidates}. */
export type GeneratorDiscard =
  /** The same gold patch, or the same hidden tests, as an earlier candidate (`duplicateOf` its id). */
  | { reason: 'duplicate'; candidate: PilotCandidate; duplicateOf: string }
  /** The answer stayed malformed after the retries (`error` the MODEL_ANSWER_INVALID message). */
  | { reason: 'invalid-answer'; error: string; category: PilotCategory; seed: number };

/** Arguments of {@link generatorCandidates}. */
export interface GeneratorCandidatesOptions {
  model: ChatModel;
  /** The snapshot folder (absolute). */
  repoDir: string;
  tests: GeneratorTests;
  /** How many distinct candidates to collect (integer >= 0). */
  count: number;
  /** The first request's seed; request k has seed `seed + k` and category `categories[(seed + k) mod n]`. */
  seed: number;
  /** Categories to cycle through (default {@link PILOT_CATEGORIES}). */
  categories?: readonly PilotCategory[];
  /** The most propose requests (default `3 * count + 3`); fewer candidates are returned when they run out. */
  maxAttempts?: number;
  /** Retries of each propose request (default 2). */
  retries?: number;
  /** How the repository is shown (see {@link repoView}); the view is built once. */
  view?: RepoViewOptions;
  complete?: Omit<CompleteOptions, 'seed'>;
}

/**
 * Proposes until `count` distinct candidates (or `maxAttempts` requests). A candidate
 * with the gold patch, or the hidden tests, of an earlier one is a duplicate; an answer
 * still malformed after the retries is an invalid answer; both are reported in
 * `discarded` in request order. `MODEL_UNAVAILABLE` propagates.
 */
export async function generatorCandidates(opts: GeneratorCandidatesOptions): Promise<{ candidates: PilotCandidate[]; discarded: GeneratorDiscard[] }> {
  const fn = 'generatorCandidates';
  if (!Number.isInteger(opts?.count) || opts.count < 0) throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `opts.count must be an integer >= 0, got ${describeValue(opts?.count)}`, { fn, field: 'opts.count' });
  if (!Number.isInteger(opts.seed)) throw new FrognanoError(ErrorCode.INVALID_TYPE, `opts.seed must be an integer, got ${describeValue(opts.seed)}`, { fn, field: 'opts.seed' });
  const categories = opts.categories ?? PILOT_CATEGORIES;
  if (categories.length === 0) throw new FrognanoError(ErrorCode.EMPTY_INPUT, 'opts.categories must not be empty', { fn, field: 'opts.categories' });
  categories.forEach((c, i) => {
    if (!PILOT_CATEGORIES.includes(c)) throw new FrognanoError(ErrorCode.INVALID_TYPE, `opts.categories[${i}] must be one of ${PILOT_CATEGORIES.join(', ')}, got ${describeValue(c)}`, { fn, field: `opts.categories[${i}]` });
  });
  const maxAttempts = opts.maxAttempts ?? 3 * opts.count + 3;
  const view = await repoView(opts.repoDir, opts.view);
  const candidates: PilotCandidate[] = [];
  const discarded: GeneratorDiscard[] = [];
  const byPatch = new Map<string, string>();
  const byTests = new Map<string, string>();
  for (let k = 0; candidates.length < opts.count && k < maxAttempts; k++) {
    const seed = opts.seed + k;
    const category = categories[(((seed % categories.length) + categories.length) % categories.length)]!;
    let c: PilotCandidate;
    try {
      c = await proposeCandidate(opts.model, view, { category, seed, tests: opts.tests, repoDir: opts.repoDir, retries: opts.retries, complete: opts.complete });
    } catch (e) {
      if (e instanceof FrognanoError && e.code === ErrorCode.MODEL_ANSWER_INVALID) {
        discarded.push({ reason: 'invalid-answer', error: e.message, category, seed });
        continue;
      }
      throw e;
    }
    const patchKey = c.goldPatch.replace(/\s+$/, '');
    const testsKey = JSON.stringify(c.tests.files);
    const dup = byPatch.get(patchKey) ?? byTests.get(testsKey);
    if (dup !== undefined) {
      discarded.push({ reason: 'duplicate', candidate: c, duplicateOf: dup });
      continue;
    }
    byPatch.set(patchKey, c.id);
    byTests.set(testsKey, c.id);
    candidates.push(c);
  }
  return { candidates, discarded };
}
