import { posix } from 'node:path';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { type ChangeStatus, compareTrees, type EntryChange } from './compareTrees.js';
import { fileSection, type GitMode, isBinary, MAX_TEXT_BYTES, type SectionSide } from './diffSection.js';
import { quotePath } from './quotePath.js';
import { TreeWalker, type WalkEntry } from './treeWalker.js';

export { isBinary } from './diffSection.js';
export { restorePermissions, type RestorePermissionsOptions } from './restorePermissions.js';

/** What one {@link diffRepo} may cost; beyond the walk's bounds there is no diff, beyond the output caps file sections are omitted. */
export interface DiffLimits {
  /** Entries (files, links, folders) at most in each tree; more: `DIFF_UNAVAILABLE`. Default 100,000. */
  maxEntries: number;
  /** Seconds the whole diff may take (both walks, then the file sections). A walk past it: `DIFF_UNAVAILABLE`; sections not made by then are omitted (`cut.reason` `time`). Default 30. */
  maxSeconds: number;
  /** Bytes (UTF-8) of the whole diff at most; the section that would pass it and every later one are omitted. Default 8 MiB. */
  maxDiffBytes: number;
  /** Bytes of one file's section at most; a larger section is omitted (the others are still shown). Default 1 MiB. */
  maxFileDiffBytes: number;
  /** Changed files given a section at most (the first ones in path order). Default 2,000. */
  maxFiles: number;
  /** Bytes of all the relative paths of one tree together (folders included) at most; more: `DIFF_UNAVAILABLE`. Bounds the work a deep tree makes. Default 64 MiB. */
  maxPathBytes: number;
}

/** The default {@link DiffLimits}. */
export const DEFAULT_DIFF_LIMITS: Readonly<DiffLimits> = Object.freeze({
  maxEntries: 100_000,
  maxSeconds: 30,
  maxDiffBytes: 8 * 1024 * 1024,
  maxFileDiffBytes: 1024 * 1024,
  maxFiles: 2000,
  maxPathBytes: 64 * 1024 * 1024,
});

/** Why a changed file's section is not in the diff. */
export type DiffCutReason = 'total-bytes' | 'file-bytes' | 'files' | 'time';

/** What a capped diff left out. */
export interface DiffCut {
  /** The cap that omitted the first omitted file (in path order). */
  reason: DiffCutReason;
  /** Changed files whose sections are in the diff. */
  shownFiles: number;
  /** Changed files whose sections are not (`changes` lists them all). */
  omittedFiles: number;
  /** The byte cap of `reason` (`maxDiffBytes` or `maxFileDiffBytes`); absent for `files` and `time`. */
  limitBytes?: number;
  /** Omitted files by cap: beyond `maxFiles` (`files`), after the total ran out (`total-bytes`), a section over `maxFileDiffBytes` (`file-bytes`), past `maxSeconds` (`time`). */
  omittedBy: Partial<Record<DiffCutReason, number>>;
}

/** One changed path. */
export interface TreeChange {
  /** The path for display, as in the diff header without `a/`: C-quoted when it needs to be (see {@link quotePath}). */
  path: string;
  /** The relative path's bytes. */
  raw: Buffer;
  /** `added`, `modified` (content or executable bit), `deleted`, or `type-changed` (a file became a link or back). */
  status: ChangeStatus;
}

/** The result of {@link diffRepo}. */
export interface RepoDiff {
  /** The git-style unified diff (see {@link diffRepo}), without the omitted sections. */
  diff: string;
  /** Every changed path (never cut), in byte order of `raw`; the `exclude` paths left out. */
  changes: TreeChange[];
  /** Present when some changed file's section was omitted. */
  cut?: DiffCut;
  /** Added files that `ignoredBy` names (caches the repo's `.gitignore` ignores): in `changes`, not in `diff` (SPEC §14 `ignoredChanges`). */
  ignored: { path: string; bytes: number }[];
}

/** Options of {@link diffRepo} and {@link diffTrees}. */
export interface DiffRepoOptions {
  /** Relative POSIX paths left out of the diff and of `changes` (the hidden test files); normalized (`./x`, `a//b`). */
  exclude?: Iterable<string>;
  /** Overrides of {@link DEFAULT_DIFF_LIMITS}. */
  limits?: Partial<DiffLimits>;
  /** Stops the diff: the promise rejects with the signal's reason and the walkers are killed. */
  signal?: AbortSignal;
  /**
   * Added paths to leave out of the diff text (still in `changes`, listed in
   * `ignored`): the repository's own `.gitignore` rules (`gitignoreOf`). Default none.
   */
  ignoredBy?: (path: string) => boolean;
}

/** Options of {@link diffTrees}. */
export type DiffTreesOptions = DiffRepoOptions;

/** Top-level folders never diffed: the repository's version-control metadata is not part of the agent's change. */
const SKIP_TOP = ['.git', '.hg', '.svn'] as const;
/** Time one file's line diff may take before the whole file is shown replaced (ms). */
const DIFF_TIMEOUT_MS = 1000;
/**
 * Time the line diffs of one call may take together (ms): they run on the
 * caller's thread, so past this every further changed file gets the whole-file
 * hunk at once (linear time), and no diff holds the event loop for long in all.
 */
const LINE_DIFF_BUDGET_MS = 5000;

/** The limits with the defaults filled in, checked. */
function resolveLimits(given: Partial<DiffLimits> | undefined): DiffLimits {
  const l = { ...DEFAULT_DIFF_LIMITS, ...given };
  for (const k of ['maxEntries', 'maxDiffBytes', 'maxFileDiffBytes', 'maxFiles', 'maxPathBytes'] as const) {
    if (!Number.isSafeInteger(l[k]) || l[k] < 0) throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `opts.limits.${k} must be an integer >= 0, got ${l[k]}`, { fn: 'diffRepo', field: `opts.limits.${k}` });
  }
  if (!(l.maxSeconds > 0 && Number.isFinite(l.maxSeconds))) throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `opts.limits.maxSeconds must be a finite number > 0, got ${l.maxSeconds}`, { fn: 'diffRepo', field: 'opts.limits.maxSeconds' });
  return l;
}

/** The git mode of an entry (only the executable bits of a file count). */
const modeOf = (e: WalkEntry): GitMode => (e.kind === 'link' ? '120000' : e.executable ? '100755' : '100644');

/** Reads what one side of a section needs: a link's target, nothing for a file over 8 MiB, else at most `max` bytes. */
async function sideOf(walker: TreeWalker, root: string, e: WalkEntry | undefined, max: number): Promise<SectionSide | undefined> {
  if (e === undefined) return undefined;
  const mode = modeOf(e);
  if (e.kind === 'link') return { mode, content: e.target };
  if (e.size > MAX_TEXT_BYTES) return { mode, content: 'large' };
  if (e.size === 0) return { mode, content: Buffer.alloc(0) };
  return { mode, content: await walker.read(root, e.raw, Math.min(max, e.size)) };
}

/** Where the sections' bytes come from, and until when they may be made. */
interface SectionSource {
  before: { walker: TreeWalker; root: string };
  after: { walker: TreeWalker; root: string };
  maxFileDiffBytes: number;
  deadline: number;
  /** Line-diff time left to this call (ms), spent by {@link section}. */
  lineDiffMs: number;
}

/**
 * One section (`x` and `y` of the same kind, or one missing), or `'over'` when
 * it surely exceeds `maxFileDiffBytes`: a new or deleted text file larger than
 * that (its section holds all of it), found by reading only its first 8000 bytes.
 */
async function section(src: SectionSource, raw: Buffer, x: WalkEntry | undefined, y: WalkEntry | undefined): Promise<string | 'over'> {
  if (x && y && x.kind === 'file' && y.kind === 'file' && x.size === y.size && x.digest.equals(y.digest)) {
    return fileSection(raw, { mode: modeOf(x), content: 'same' }, { mode: modeOf(y), content: 'same' }, 0);
  }
  const lone = x && y ? undefined : (x ?? y);
  const over = lone !== undefined && lone.kind === 'file' && lone.size <= MAX_TEXT_BYTES && lone.size > src.maxFileDiffBytes;
  const max = over ? 8000 : MAX_TEXT_BYTES;
  const [a, b] = await Promise.all([sideOf(src.before.walker, src.before.root, x, max), sideOf(src.after.walker, src.after.root, y, max)]);
  if (over && !isBinary((a ?? b)!.content as Buffer)) return 'over';
  const t0 = performance.now();
  const text = fileSection(raw, a, b, Math.min(DIFF_TIMEOUT_MS, src.lineDiffMs, src.deadline - Date.now()));
  src.lineDiffMs -= performance.now() - t0;
  return text;
}

/** A change's text: a type change is git's pair of sections, the old entry deleted and the new one added. */
async function changeText(src: SectionSource, c: EntryChange): Promise<string | 'over'> {
  if (c.status !== 'type-changed') return section(src, c.raw, c.before, c.after);
  const gone = await section(src, c.raw, c.before, undefined);
  if (gone === 'over') return 'over';
  const added = await section(src, c.raw, undefined, c.after);
  return added === 'over' ? 'over' : gone + added;
}

/**
 * The change that turns the tree `before` into the tree `after`: the list of
 * every changed path, and a git-style unified diff of them, capped.
 *
 * The diff: sections in byte order of the paths, each `diff --git a/P b/P`, then
 * `new file mode M` / `deleted file mode M` / `old mode M` + `new mode M` (modes
 * 100644, 100755: any executable bit, 120000: a symbolic link, whose target is
 * its content), then `--- a/P` / `+++ b/P` (`/dev/null` for a missing side) and
 * hunks with 3 lines of context, as `git diff`; `Binary files a/P and b/P differ`
 * for a NUL in the first 8000 bytes or a file over 8 MiB (compared by SHA-256,
 * never read whole); nothing after the header for an empty new or deleted file
 * or a mode change only. A file turned into a link (or back) is git's pair of
 * sections: the old one deleted, then the new one added. A line diff that takes
 * over a second (a rewritten file of thousands of lines), or any once the line
 * diffs of the call have taken 5 s in all, is replaced by one hunk replacing the
 * whole file, so grading never stalls. A path holding a control
 * byte, DEL, `"`, `\` or invalid UTF-8 is C-quoted as git quotes it
 * (`"a/x\ny"`, `"a/caf\351.txt"`; see {@link quotePath}), so a file name can
 * neither add lines to the diff nor merge with another name; other paths,
 * valid non-ASCII UTF-8 included, are written as they are (git's
 * `core.quotePath=false`). Empty folders, sockets, FIFOs and devices are not
 * content. The top-level `.git`, `.hg` and `.svn` folders are skipped (deeper
 * ones are content), and so are the `exclude` paths. An unchanged tree gives
 * `''`; a missing root is an empty tree. The diff applies with `git apply`,
 * except a binary change, which is only noted (as `git diff` without `--binary`).
 *
 * The caps (see {@link DiffLimits}; a cut never splits a section): at most
 * `maxFiles` changed files get a section; a section over `maxFileDiffBytes` is
 * omitted; once the next section would take the diff over `maxDiffBytes`, it and
 * all later ones are omitted; sections not made by `maxSeconds` are omitted.
 * `cut` then says what was left out; `changes` always lists every changed path.
 *
 * How: each tree is walked by a child process (`treeWalker.ts`) relative to its
 * working directory, so a tree deeper than PATH_MAX is walked whole, names are
 * bytes, no link is followed, and frognano's event loop stays free; the child
 * hashes every file, so only changed files are read, by the child too, for their
 * sections. Both walks run at once.
 *
 * @param before - the task's original repository
 * @param after - the episode's repository copy
 * @throws FrognanoError `DIFF_UNAVAILABLE` when no diff can be made, saying why:
 *   a tree has more than `maxEntries` entries (`too many entries below R: N > maxEntries M`),
 *   its paths add up to more than `maxPathBytes`, a walk took longer than `maxSeconds`,
 *   an entry is unreadable (which one: {@link restorePermissions} first), or a tree changed during the walk
 * @throws FrognanoError `OUT_OF_RANGE` for a limit that is not a number >= 0 (`maxSeconds`: > 0)
 * @example
 * const { diff, changes, cut } = await diffRepo('tasks/py-median/repo', workspace.repo, { exclude: ['tests/test_hidden.py'] });
 */
export async function diffRepo(before: string, after: string, opts: DiffRepoOptions = {}): Promise<RepoDiff> {
  const limits = resolveLimits(opts.limits);
  const exclude = new Set([...(opts.exclude ?? [])].map((p) => Buffer.from(posix.normalize(p), 'utf8').toString('latin1')));
  const start = { fn: 'diffRepo', maxSeconds: limits.maxSeconds, ...(opts.signal ? { signal: opts.signal } : {}) };
  const deadline = Date.now() + limits.maxSeconds * 1000;
  const walkers = [TreeWalker.start(start), TreeWalker.start(start)] as const;
  try {
    const walk = { maxEntries: limits.maxEntries, maxPathBytes: limits.maxPathBytes, skipTop: SKIP_TOP };
    const [a, b] = await Promise.all([walkers[0].walk(before, walk), walkers[1].walk(after, walk)]);
    const all = compareTrees(a, b, exclude);
    const isIgnored = (c: EntryChange): boolean => opts.ignoredBy !== undefined && c.status === 'added' && opts.ignoredBy(c.raw.toString('utf8'));
    const ignored = all.filter(isIgnored);
    const changed = ignored.length === 0 ? all : all.filter((c) => !isIgnored(c));
    const src: SectionSource = { before: { walker: walkers[0], root: before }, after: { walker: walkers[1], root: after }, maxFileDiffBytes: limits.maxFileDiffBytes, deadline, lineDiffMs: LINE_DIFF_BUDGET_MS };
    const sections: string[] = [];
    const omittedBy: Partial<Record<DiffCutReason, number>> = {};
    let first: DiffCutReason | undefined;
    const omit = (r: DiffCutReason, n = 1): void => {
      omittedBy[r] = (omittedBy[r] ?? 0) + n;
      first ??= r;
    };
    let total = 0;
    let full = false;
    const shown = Math.min(changed.length, limits.maxFiles);
    for (let i = 0; i < shown; i++) {
      if (full) omit('total-bytes');
      else if (Date.now() >= deadline) omit('time');
      else {
        opts.signal?.throwIfAborted();
        const text = await changeText(src, changed[i]!);
        const n = text === 'over' ? Infinity : Buffer.byteLength(text, 'utf8');
        if (n > limits.maxFileDiffBytes) omit('file-bytes');
        else if (total + n > limits.maxDiffBytes) {
          full = true;
          omit('total-bytes');
        } else {
          total += n;
          sections.push(text as string);
        }
      }
    }
    if (changed.length > shown) omit('files', changed.length - shown);
    const changes = all.map((c) => ({ path: quotePath(c.raw), raw: c.raw, status: c.status }));
    const result: RepoDiff = { diff: sections.join(''), changes, ignored: ignored.map((c) => ({ path: quotePath(c.raw), bytes: c.after?.size ?? 0 })) };
    if (first !== undefined) {
      const limitBytes = first === 'total-bytes' ? limits.maxDiffBytes : first === 'file-bytes' ? limits.maxFileDiffBytes : undefined;
      result.cut = { reason: first, shownFiles: sections.length, omittedFiles: changed.length - sections.length, ...(limitBytes !== undefined ? { limitBytes } : {}), omittedBy };
    }
    return result;
  } finally {
    walkers[0].close();
    walkers[1].close();
  }
}

/**
 * The whole diff text of {@link diffRepo} (see there for the format, the caps and
 * the errors), for callers that need a patch (a task's `referencePatch`): a diff
 * that would be cut is refused with `DIFF_UNAVAILABLE` naming the cap, never
 * returned short. Use `diffRepo` to get a capped diff and its `cut`.
 *
 * @example
 * const diff = await diffTrees('tasks/py-median/repo', workspace.repo, { exclude: ['tests/test_hidden.py'] });
 */
export async function diffTrees(before: string, after: string, opts: DiffTreesOptions = {}): Promise<string> {
  const d = await diffRepo(before, after, opts);
  if (d.cut) throw new FrognanoError(ErrorCode.DIFF_UNAVAILABLE, `the diff would be cut (${d.cut.reason}: ${d.cut.omittedFiles} of ${d.changes.length} changed files left out); raise opts.limits or use diffRepo`, { fn: 'diffTrees' });
  return d.diff;
}
