/**
 * "Did you mean" warnings for the fields of a tasks file (SPEC §12, §14). The
 * loader keeps unknown top-level fields (a record may carry its own metadata),
 * so a mistyped `reference_patch` would be ignored without a word: `rollout` and
 * `validate-tasks` warn on stderr about every unknown field that resembles a
 * known one, `tasks.jsonl line 3: unknown field "reference_patch" (did you mean
 * "referencePatch"?)`.
 */
import { editDistance } from '../commands/index.js';
import { type TaskRecord, taskRecords } from '../leaf/index.js';

/** The known fields of each object of a task record, by its path (`''` = the record). */
const KNOWN: Readonly<Record<string, readonly string[]>> = {
  '': ['id', 'statement', 'repo', 'tests', 'referencePatch', 'limits', 'environment'],
  tests: ['command', 'files', 'patch', 'failToPass', 'passToPass', 'log', 'junitPath'],
  limits: ['maxTurns', 'maxContextTokens', 'maxSeconds', 'commandSeconds'],
  environment: ['image', 'workdir', 'env', 'setup'],
};

/** SWE-bench's names whose spelling does not resemble frognano's (SPEC §14's import mapping), by the object they are found in. */
const ALIASES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  '': { patch: 'referencePatch', testpatch: 'tests.patch', problemstatement: 'statement' },
  tests: { testpatch: 'patch' },
};

/** A field name compared case-, underscore- and hyphen-insensitively. */
const norm = (name: string): string => name.toLowerCase().replace(/[_-]/g, '');

/** Edits allowed between two normalized names: none up to 3 characters, 1 up to 6, 2 beyond. */
const allowed = (a: string, b: string): number => {
  const n = Math.min(a.length, b.length);
  return n <= 3 ? 0 : n <= 6 ? 1 : 2;
};

/** The known field (as a path from `at`) that `name` resembles, or undefined. At the top level, the fields of `tests`, `limits` and `environment` are candidates too (`failToPass` written beside `tests`). */
export function resemblance(name: string, at: string): string | undefined {
  const n = norm(name);
  const alias = ALIASES[at]?.[n];
  if (alias !== undefined) return alias;
  const own = (KNOWN[at] ?? []).map((f) => ({ f, path: f }));
  const nested = at === '' ? ['tests', 'limits', 'environment'].flatMap((o) => KNOWN[o]!.map((f) => ({ f, path: `${o}.${f}` }))) : [];
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const { f, path } of [...own, ...nested]) {
    const k = norm(f);
    const d = editDistance(n, k);
    if (d <= allowed(n, k) && d < bestDistance) {
      best = path;
      bestDistance = d;
    }
  }
  return best;
}

/** Whether `o` is a JSON object (not an array, not null). */
const isObject = (o: unknown): o is Record<string, unknown> => typeof o === 'object' && o !== null && !Array.isArray(o);

/** Whether the record has the field at `path` (`tests.patch`). */
function has(record: Record<string, unknown>, path: string): boolean {
  const [head, tail] = path.split('.', 2) as [string, string | undefined];
  if (!Object.hasOwn(record, head)) return false;
  return tail === undefined || (isObject(record[head]) && Object.hasOwn(record[head], tail));
}

/**
 * The warnings of one record: an unknown field of the record, of its `tests`,
 * `limits` or `environment`, that resembles a known one the record lacks (a
 * `problem_statement` beside a `statement` is the record's own data).
 */
export function recordFieldWarnings(record: TaskRecord, file: string): string[] {
  const root = record.value;
  if (!isObject(root)) return [];
  const out: string[] = [];
  for (const at of Object.keys(KNOWN)) {
    const obj = at === '' ? root : root[at];
    if (!isObject(obj)) continue;
    const prefix = at === '' ? '' : `${at}.`;
    for (const name of Object.keys(obj)) {
      if (KNOWN[at]!.includes(name)) continue;
      const near = resemblance(name, at);
      const target = near === undefined ? undefined : at === '' ? near : `${prefix}${near}`;
      if (target === undefined || has(root, target)) continue;
      out.push(`${file} ${record.where}: unknown field "${prefix}${name}" (did you mean "${target}"?)`);
    }
  }
  return out;
}

/**
 * The warnings of a tasks file's text, record by record in file order. A text
 * that is not a tasks file gives none: the loader reports it.
 */
export function taskFieldWarnings(text: string, file: string): string[] {
  let records: TaskRecord[];
  try {
    records = taskRecords(text, file, 'loadLeafTasks');
  } catch {
    return [];
  }
  return records.flatMap((r) => recordFieldWarnings(r, file));
}
