import { readFile, realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, posix, resolve } from 'node:path';
import { z } from 'zod';
import { describeValue } from '../errors/describeValue.js';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { parseWith } from '../errors/validate.js';
import { jsonHash } from './canonicalJson.js';
import { WorkdirSchema } from './sandboxOptions.js';
import { taskRecords } from './taskRecords.js';

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

/** A task's `environment` (SPEC §14). */
export const LeafEnvironmentSchema = z
  .object({
    /**
     * A root filesystem, relative to the tasks file's folder (or absolute): an image archive
     * (`docker save`, OCI archive) or an OCI layout folder, imported into a cache once; any other
     * folder is an unpacked root filesystem used in place. The sandbox's `/`, read-only.
     */
    image: z.string().min(1).optional(),
    /** Where the repo copy is mounted and commands start. Default the image config's `WorkingDir`, else `/repo`. */
    workdir: WorkdirSchema.optional(),
    /** Variables of every call and of grading, over frognano's defaults and the image's `Env` (PATH included). */
    env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a variable name'), z.string()).optional(),
    /** Shell commands run once on each fresh repo copy before the first turn (no network, the same sandbox). */
    setup: z.string().min(1).optional(),
  })
  .strict();
/** A task's `environment`. */
export type LeafEnvironment = z.infer<typeof LeafEnvironmentSchema>;

/** One task record (SPEC §12): a line of the tasks JSONL file (or an element of its JSON array). Unknown fields are kept. */
export const LeafTaskSchema = z.looseObject({
  /** Task id, unique in the file. */
  id: z.string().min(1),
  /** The issue text the agent sees. */
  statement: z.string().min(1),
  /**
   * The repository folder, relative to the tasks file's folder (or absolute); copied afresh for every
   * episode. Optional with `environment.image`: the repo is then the image's `workdir` folder (SPEC §14).
   */
  repo: z.string().min(1).optional(),
  /** Grading. */
  tests: z
    .object({
      /** Shell command run in the repo root inside the sandbox; exit 0 = success. */
      command: z.string().min(1),
      /** Hidden test files (path relative to the repo -> content), absent during the episode, written before grading. */
      files: HiddenFiles.optional(),
      /**
       * Unified diff applied at grading after `files` (SWE-bench's `test_patch`: adds,
       * modifies or deletes files; SPEC §14). Its paths are hidden like `files`; every
       * path it touches is first restored to the snapshot's content.
       */
      patch: z.string().min(1).optional(),
      /** Test ids that must pass at grading (SPEC §14; needs `log`). */
      failToPass: z.array(z.string().min(1)).optional(),
      /** Test ids that must keep passing (SPEC §14; needs `log`). */
      passToPass: z.array(z.string().min(1)).optional(),
      /** How per-test results are read from the grading run. Default `exit-code` (no per-test results: exit 0 = success). */
      log: z.enum(['exit-code', 'pytest', 'unittest', 'tap', 'junit-xml']).optional(),
      /** For `log: "junit-xml"`: the report file the command writes, relative to the repo. */
      junitPath: z.string().min(1).optional(),
    })
    .strict()
    .superRefine((t, ctx) => {
      const log = t.log ?? 'exit-code';
      for (const field of ['failToPass', 'passToPass'] as const) {
        if (t[field] !== undefined && t[field].length > 0 && log === 'exit-code') ctx.addIssue({ code: 'custom', path: [field], message: `tests.${field} needs tests.log (pytest, unittest, tap or junit-xml): an exit code names no test`, params: { code: ErrorCode.INVALID_TYPE } });
      }
      if (log === 'junit-xml' && t.junitPath === undefined) ctx.addIssue({ code: 'custom', path: ['junitPath'], message: 'tests.junitPath is required with tests.log "junit-xml" (the report file the command writes)', params: { code: ErrorCode.INVALID_TYPE } });
      if (t.junitPath !== undefined && !isRepoRelative(t.junitPath)) ctx.addIssue({ code: 'custom', path: ['junitPath'], message: `${JSON.stringify(t.junitPath)} must be a relative path inside the repository`, params: { code: ErrorCode.INVALID_TYPE } });
    }),
  /** Unified diff of a reference solution (used by `validate-tasks`). */
  referencePatch: z.string().optional(),
  /** Per-task limits (override the run's defaults). */
  limits: LeafLimitsSchema.optional(),
  /** Where the commands run (SPEC §14): an image as the sandbox's root, the repo's place, variables, a set-up. */
  environment: LeafEnvironmentSchema.optional(),
}).superRefine((t, ctx) => {
  if (t.repo === undefined && t.environment?.image === undefined) ctx.addIssue({ code: 'custom', path: ['repo'], message: 'repo is required (a string) unless environment.image is given', params: { code: ErrorCode.INVALID_TYPE } });
});
/** One task record. */
export type LeafTask = z.infer<typeof LeafTaskSchema>;

/** A task with its repository resolved to an absolute folder. */
export type LoadedLeafTask = LeafTask & {
  /**
   * The absolute path of the task's repository folder. For a task with `environment.image`
   * and no `repo`: the image's workdir folder once known (`resolveEnvironment` sets it;
   * `''` until then for an archive).
   */
  repoDir: string;
  /** The absolute path of `environment.image`, resolved against the tasks file's folder. */
  imagePath?: string;
  /**
   * `sha256:<hex>` of the canonical JSON (keys sorted at every depth, no
   * whitespace) of the record as the tasks file holds it: the same record hashes
   * the same whatever its key order or spacing. Set by {@link loadLeafTasks} and
   * {@link parseLeafTask}; a task built by hand may leave it out (its rollout
   * records then hash its own fields). `frognano rollout` writes it as
   * `provenance.taskHash`, and `--resume` compares it.
   */
  recordHash?: string;
};

/**
 * Validates one task record, resolves its `repo` against `baseDir` (the
 * tasks file's folder) and hashes it (`recordHash`).
 * @throws FrognanoError `INVALID_TYPE` / `OUT_OF_RANGE` naming `<where>.<field>`
 */
export function parseLeafTask(value: unknown, baseDir: string, where = 'task'): LoadedLeafTask {
  return loaded(parseWith('parseLeafTask', where, LeafTaskSchema, value), value, baseDir);
}

/** The parsed task `t` of record `value`, with its repo resolved against `baseDir` and the record's hash. */
function loaded(t: LeafTask, value: unknown, baseDir: string): LoadedLeafTask {
  const abs = (p: string): string => (isAbsolute(p) ? p : resolve(baseDir, p));
  const image = t.environment?.image;
  const out: LoadedLeafTask = { ...t, repoDir: t.repo !== undefined ? abs(t.repo) : '', recordHash: jsonHash(value) };
  if (image !== undefined) out.imagePath = abs(image);
  return out;
}

/**
 * One record of a tasks file validated: errors say `<file> <where>: <what is
 * wrong, naming the field>` (`tasks.jsonl line 3: tests.command is required (a
 * string)`), with `field` `<where>.<field>`.
 */
function parseRecord(value: unknown, baseDir: string, file: string, where: string): LoadedLeafTask {
  const fn = 'loadLeafTasks';
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `${file} ${where}: a task must be a JSON object, got ${describeValue(value)}`, { fn, field: where });
  }
  try {
    return loaded(parseWith('', '', LeafTaskSchema, value), value, baseDir);
  } catch (e) {
    if (!(e instanceof FrognanoError)) throw e;
    const field = e.field === undefined ? where : `${where}.${e.field}`;
    throw new FrognanoError(e.code, `${file} ${where}: ${e.message}`, { fn, field, index: e.index });
  }
}

/**
 * Reads a tasks file (SPEC §12): JSONL, one task per line (blank lines and a
 * UTF-8 BOM skipped), or one JSON array of tasks, decided by the content (a
 * file whose first character other than white space is `[` is an array,
 * whatever its name; see `taskRecords`). Validates every record, checks that
 * ids are unique and that every `repo` folder exists, resolves `repo` relative
 * to the file's folder, and hashes each record (`recordHash`).
 *
 * Every error says where, then what, naming the field:
 * `tasks.jsonl line 3: tests.command is required (a string)`,
 * `tasks.json record 2: limits: unknown field(s) "turns"`,
 * `tasks.jsonl line 4: not JSON: ...`, `tasks.jsonl line 2: repo "r" is not a folder (resolved to /abs/r)`
 * (`file` as given; `FrognanoError.fn` is `loadLeafTasks`, `field` e.g. `line 3.tests.command`).
 *
 * @throws FrognanoError `INVALID_TYPE` / `OUT_OF_RANGE` for a record that is
 *   not JSON or fails the schema, a duplicate id, or a missing repo folder;
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
  const seen = new Map<string, string>();
  for (const { where, value } of taskRecords(text, file, fn)) {
    const t = parseRecord(value, baseDir, file, where);
    const first = seen.get(t.id);
    if (first !== undefined) throw new FrognanoError(ErrorCode.INVALID_TYPE, `${file} ${where}: id: duplicate task id ${JSON.stringify(t.id)} (${first} has it too)`, { fn, field: `${where}.id` });
    seen.set(t.id, where);
    if (t.imagePath !== undefined && !(await stat(t.imagePath).catch(() => null))) {
      throw new FrognanoError(ErrorCode.INVALID_TYPE, `${file} ${where}: environment.image ${JSON.stringify(t.environment!.image)} does not exist (resolved to ${t.imagePath})`, { fn, field: `${where}.environment.image` });
    }
    // without repo, the image's workdir: known once the image is resolved (resolveEnvironment)
    if (t.repo === undefined) {
      tasks.push(t);
      continue;
    }
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
