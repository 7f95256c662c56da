import { readFile, realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, posix, resolve } from 'node:path';
import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { parseWith } from '../errors/validate.js';

/** SPEC §12 defaults of an episode's limits. */
export const DEFAULT_LEAF_LIMITS = {
  /** Assistant turns (model calls) at most: FrogNano §5's evaluation budget. */
  maxTurns: 150,
  /** Context tokens at most (after compaction could not make room): 131072, FrogNano §5. */
  maxContextTokens: 131_072,
  /** Wall time of the whole episode, seconds. */
  maxSeconds: 3600,
  /** Wall time of one bash call, seconds. */
  commandSeconds: 120,
} as const;

/** An episode's limits (SPEC §12); each field optional, defaults in {@link DEFAULT_LEAF_LIMITS}. */
export const LeafLimitsSchema = z
  .object({
    /** Assistant turns at most (integer >= 1). Default 150. */
    maxTurns: z.number().int().min(1).optional(),
    /** Context tokens at most (integer >= 256). Default 131072. */
    maxContextTokens: z.number().int().min(256).optional(),
    /** Whole-episode wall time in seconds (> 0). Default 3600. */
    maxSeconds: z.number().gt(0).optional(),
    /** One bash call's wall time in seconds (> 0). Default 120. */
    commandSeconds: z.number().gt(0).optional(),
  })
  .strict();
/** An episode's limits as written in a task or passed as options. */
export type LeafLimits = z.input<typeof LeafLimitsSchema>;
/** Limits with every field resolved. */
export type ResolvedLeafLimits = { [K in keyof typeof DEFAULT_LEAF_LIMITS]: number };

/** Whether a hidden-file path is relative and stays inside the repository (no `..` past the root, not absolute, not under `.git`). */
function isRepoRelative(p: string): boolean {
  if (p === '' || p.startsWith('/') || p.includes('\0') || p.includes('\\')) return false;
  const n = posix.normalize(p);
  return n !== '.' && n !== '..' && !n.startsWith('../') && !n.split('/').includes('.git');
}

/** Hidden test files: path -> content, every path inside the repository (the error names the path). */
const HiddenFiles = z.record(z.string(), z.string()).superRefine((files, ctx) => {
  for (const p of Object.keys(files)) {
    if (!isRepoRelative(p)) ctx.addIssue({ code: 'custom', path: [p], message: `${JSON.stringify(p)} must be a relative path inside the repository (no .., not absolute, not under .git)`, params: { code: ErrorCode.INVALID_TYPE } });
  }
});

/** One task record (SPEC §12): a line of the tasks JSONL file. Unknown fields are kept. */
export const LeafTaskSchema = z.looseObject({
  /** Task id, unique in the file. */
  id: z.string().min(1),
  /** The issue text the agent sees. */
  statement: z.string().min(1),
  /** The repository folder, relative to the tasks file's folder (or absolute); copied afresh for every episode. */
  repo: z.string().min(1),
  /** Grading. */
  tests: z
    .object({
      /** Shell command run in the repo root inside the sandbox; exit 0 = success. */
      command: z.string().min(1),
      /** Hidden test files (path relative to the repo -> content), absent during the episode, written before grading. */
      files: HiddenFiles.optional(),
    })
    .strict(),
  /** Unified diff of a reference solution (used by `validate-tasks`). */
  referencePatch: z.string().optional(),
  /** Per-task limits (override the run's defaults). */
  limits: LeafLimitsSchema.optional(),
});
/** One task record. */
export type LeafTask = z.infer<typeof LeafTaskSchema>;

/** A task with its repository resolved to an absolute folder. */
export type LoadedLeafTask = LeafTask & {
  /** The absolute path of the task's repository folder. */
  repoDir: string;
};

/**
 * Validates one task record and resolves its `repo` against `baseDir` (the
 * tasks file's folder).
 * @throws FrognanoError `INVALID_TYPE` / `OUT_OF_RANGE` naming `<where>.<field>`
 */
export function parseLeafTask(value: unknown, baseDir: string, where = 'task'): LoadedLeafTask {
  const t = parseWith('parseLeafTask', where, LeafTaskSchema, value);
  return { ...t, repoDir: isAbsolute(t.repo) ? t.repo : resolve(baseDir, t.repo) };
}

/**
 * Reads a tasks file (SPEC §12: JSONL, one task per line; blank lines and a
 * UTF-8 BOM are skipped), validates every record, checks that ids are unique
 * and that every `repo` folder exists, and resolves `repo` relative to the
 * file's folder.
 *
 * @throws FrognanoError `INVALID_TYPE` naming `line N.<field>` for a record that
 *   is not JSON or fails the schema, a duplicate id, or a missing repo folder;
 *   `EMPTY_INPUT` for a file without tasks
 */
export async function loadLeafTasks(file: string): Promise<LoadedLeafTask[]> {
  const fn = 'loadLeafTasks';
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `cannot read the tasks file ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { fn, field: 'file' });
  }
  const baseDir = dirname(resolve(file));
  const tasks: LoadedLeafTask[] = [];
  const seen = new Set<string>();
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    const where = `line ${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      throw new FrognanoError(ErrorCode.INVALID_TYPE, `${file} ${where} is not JSON: ${(e as Error).message}`, { fn, field: where });
    }
    const t = parseLeafTask(value, baseDir, `${file} ${where}`);
    if (seen.has(t.id)) throw new FrognanoError(ErrorCode.INVALID_TYPE, `${file} ${where}: duplicate task id ${JSON.stringify(t.id)}`, { fn, field: `${where}.id` });
    seen.add(t.id);
    const st = await stat(t.repoDir).catch(() => null);
    if (!st?.isDirectory()) {
      throw new FrognanoError(ErrorCode.INVALID_TYPE, `${file} ${where}: repo ${JSON.stringify(t.repo)} is not a folder (resolved to ${t.repoDir})`, { fn, field: `${where}.repo` });
    }
    tasks.push({ ...t, repoDir: await realpath(t.repoDir) }); // a linked repo is its target
  }
  if (tasks.length === 0) throw new FrognanoError(ErrorCode.EMPTY_INPUT, `${file} holds no task`, { fn, field: 'file' });
  return tasks;
}

/** The task's limits over the run's over SPEC §12's defaults. */
export function resolveLimits(task: LeafLimits | undefined, run: LeafLimits | undefined): ResolvedLeafLimits {
  return { ...DEFAULT_LEAF_LIMITS, ...stripUndefined(run), ...stripUndefined(task) };
}

function stripUndefined<T extends object>(o: T | undefined): Partial<T> {
  if (!o) return {};
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
