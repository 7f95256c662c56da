/**
 * The pilot's files (SPEC §15): FILE (accepted tasks), FILE.discarded.jsonl,
 * FILE.rollouts.jsonl, `<FILE without extension>-repos/<id>` and the HTML report;
 * every write line by line, so that a crash keeps what was done.
 * @module
 */
import { existsSync } from 'node:fs';
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, extname, join, relative, resolve } from 'node:path';
import { commitOneRepo, copyWithoutGit, type RolloutRecord } from '../leaf/index.js';
import { stringifyWire } from '../wire/index.js';
import type { PilotCandidate } from './candidate.js';
import type { PilotAccepted, PilotDiscard, PilotInfo } from './runRepoTaskPilot.js';

/** Where the pilot writes for `--out FILE`. */
export interface PilotPaths {
  file: string;
  discarded: string;
  rollouts: string;
  repos: string;
  report: string;
}

/** The paths of `--out FILE`: `FILE.discarded.jsonl`, `FILE.rollouts.jsonl`, `<FILE minus extension>-repos/`, `<FILE minus extension>.report.html`. */
export function pilotPaths(file: string): PilotPaths {
  const abs = resolve(file);
  const stem = extname(abs) ? abs.slice(0, -extname(abs).length) : abs;
  return { file: abs, discarded: `${abs}.discarded.jsonl`, rollouts: `${abs}.rollouts.jsonl`, repos: `${stem}-repos`, report: `${stem}.report.html` };
}

/** One accepted task line (SPEC §12/§14 plus `pilot`). */
export interface PilotTaskLine {
  id: string;
  statement: string;
  repo: string;
  tests: { command: string; log: string; files: Record<string, string>; failToPass?: string[]; passToPass?: string[] };
  referencePatch: string;
  /** The candidate's environment (SPEC §14), its `image` relative to FILE's folder. */
  environment?: { image: string; workdir?: string; env?: Record<string, string>; setup?: string };
  pilot: PilotInfo;
}

/** One discarded line: the candidate's fields, `reason`, `pHatHistory` (and `detail`). */
export interface PilotDiscardLine {
  id?: string;
  statement?: string;
  category?: string;
  goldPatch?: string;
  tests?: PilotCandidate['tests'];
  source?: string;
  parent?: string;
  reason: string;
  detail?: string;
  pHatHistory: number[];
}

/** Reads the JSON lines of a file (none when it does not exist); a torn last line (a crash) is skipped. */
export async function readJsonLines<T>(path: string): Promise<T[]> {
  if (!existsSync(path)) return [];
  const out: T[] = [];
  const lines = (await readFile(path, 'utf8')).split('\n');
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!.trim();
    if (l === '') continue;
    try {
      out.push(JSON.parse(l) as T);
    } catch (e) {
      if (i < lines.length - 1 && lines.slice(i + 1).some((x) => x.trim() !== '')) throw new Error(`${path} line ${i + 1}: not JSON: ${(e as Error).message}`);
    }
  }
  return out;
}

/** The ids FILE and FILE.discarded.jsonl hold (`--resume`). */
export async function doneIds(paths: PilotPaths): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const t of await readJsonLines<{ id?: string }>(paths.file)) if (typeof t.id === 'string') ids.add(t.id);
  for (const d of await readJsonLines<{ id?: string; parent?: string }>(paths.discarded)) {
    if (typeof d.id === 'string') ids.add(d.id);
    if (typeof d.parent === 'string') ids.add(d.parent);
  }
  return ids;
}

/** Copies `src` (without its `.git`) to `target` and makes it a one-commit git repository (mirrors `tasks import`). */
export async function writeTaskRepo(src: string, target: string, message: string): Promise<void> {
  await copyWithoutGit(resolve(src), target);
  await commitOneRepo(target, message);
}

/** The discarded line of a discard. */
export function discardLine(d: PilotDiscard): PilotDiscardLine {
  const c = d.candidate;
  return {
    ...(c ? { id: c.id, statement: c.statement, category: c.category, goldPatch: c.goldPatch, tests: c.tests, source: c.source, ...(c.parent !== undefined ? { parent: c.parent } : {}) } : {}),
    reason: d.reason,
    ...(d.detail !== undefined ? { detail: d.detail } : {}),
    pHatHistory: d.pHatHistory,
  };
}

/** The pilot's output files, opened for appending. */
export interface PilotOutputs {
  paths: PilotPaths;
  /** Writes the task's repo (`repos/<id>`, one commit) then its line in FILE. */
  accepted(a: PilotAccepted): Promise<void>;
  /** A line in FILE.discarded.jsonl. */
  discarded(d: PilotDiscard): Promise<void>;
  /** The records, a line each, in FILE.rollouts.jsonl. */
  records(rs: readonly RolloutRecord[]): Promise<void>;
  /** Appends one prepared task line to FILE as it is (`--pool`, whose repos exist already). */
  taskLine(line: PilotTaskLine): Promise<void>;
}

/**
 * Opens the outputs of `--out FILE`: truncated, or with `resume` kept and appended to.
 * Lines are appended one at a time (`appendFile`), so an interrupted run leaves whole lines.
 */
export async function openPilotOutputs(file: string, opts: { resume?: boolean } = {}): Promise<PilotOutputs> {
  const paths = pilotPaths(file);
  await mkdir(dirname(paths.file), { recursive: true });
  if (!opts.resume) for (const p of [paths.file, paths.discarded, paths.rollouts]) await writeFile(p, '');
  const append = (p: string, obj: unknown): Promise<void> => appendFile(p, `${stringifyWire(obj)}\n`);
  const base = dirname(paths.file);
  return {
    paths,
    async accepted(a) {
      const c = a.candidate;
      const target = join(paths.repos, c.id);
      await writeTaskRepo(c.repoDir, target, `frognano taskpilot: ${c.id}`);
      const line: PilotTaskLine = {
        id: c.id,
        statement: c.statement,
        repo: relative(base, target) || '.',
        tests: { command: c.tests.command, log: c.tests.log ?? 'pytest', files: c.tests.files, ...(c.tests.failToPass?.length ? { failToPass: c.tests.failToPass } : {}), ...(c.tests.passToPass?.length ? { passToPass: c.tests.passToPass } : {}) },
        referencePatch: c.goldPatch,
        ...(c.environment ? { environment: { ...c.environment, image: relative(base, c.environment.image) || '.' } } : {}),
        pilot: a.pilot,
      };
      await append(paths.file, line);
    },
    discarded: (d) => append(paths.discarded, discardLine(d)),
    async records(rs) {
      for (const r of rs) await append(paths.rollouts, r);
    },
    taskLine: (line) => append(paths.file, line),
  };
}
