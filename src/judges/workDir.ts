import { NO_SEGMENTS, type RepoPathKind, type SegmentSummary, classifyRepoPath, classifySegments, extendSegments, isScratchPath, normalizeRepoPath } from './repoPaths.js';
import { GIT_INTERNAL_NAMES, GIT_INTERNALS } from './ruleGitHistory.js';
import type { ShellCommand } from './shellTypes.js';

/**
 * The directory a shell command runs in, tracked through top-level `cd` /
 * `pushd`, and where a path written there resolves: what it is
 * ({@link classifyRepoPath}), whether it is scratch, whether it reaches git's
 * internals. Built so that each path costs its own length, not the directory's.
 */

/** `p` resolved against `cwd` (`''`: the starting directory), `.` and `..` folded. @internal */
export function joinPath(cwd: string, p: string): string {
  const raw = p.startsWith('/') || p.startsWith('~') || !cwd ? p : `${cwd}/${p}`;
  const abs = raw.startsWith('/');
  const parts: string[] = [];
  for (const s of raw.split('/')) {
    if (!s || s === '.') continue;
    if (s === '..' && parts.length && parts[parts.length - 1] !== '..') parts.pop();
    else parts.push(s);
  }
  return (abs ? '/' : '') + parts.join('/');
}

/**
 * The directory the top-level `cd` / `pushd` commands so far left a command
 * in, kept as {@link joinPath}'s parts so that a `cd` costs the length of its
 * argument, not of the directory: rebuilding the string at every `cd` (and
 * joining it to every word) was quadratic on `cd a; cd a; ...` or on one long
 * `cd` followed by many words.
 */
export class WorkDir {
  /** joinPath's parts (`..` only leading). */
  readonly parts: string[] = [];
  /** Whether the path is absolute. */
  abs = false;
  /** Indices i with parts[i] === '.git' and parts[i + 1] a git-internals name, ascending. */
  readonly pairs: number[] = [];
  /** For each part k: the segments of parts[0..k] ({@link SegmentSummary}; a part splits further at `\\`). */
  readonly sums: SegmentSummary[] = [];
  /** The same with part k's trailing blank trimmed (when it ends the path), and part k's last `/`-piece then. */
  readonly ends: { sum: SegmentSummary; piece: string }[] = [];
  /** For each part k: the length of toString() up to the end of part k. */
  readonly offsets: number[] = [];
  private text: string | null = '';

  /** Whether this is the starting directory (toString() is `''`). */
  get isStart(): boolean {
    return !this.abs && this.parts.length === 0;
  }

  /** The directory as joinPath would have returned it (`''`: the starting directory). */
  toString(): string {
    this.text ??= (this.abs ? '/' : '') + this.parts.join('/');
    return this.text;
  }

  /** `cd to` (`cd`, `cd ~`, `cd -`: back to the start). */
  cd(to: string | undefined): void {
    this.text = null;
    if (!to || to === '~' || to === '-' || to.startsWith('/') || to.startsWith('~')) {
      this.parts.length = 0;
      this.pairs.length = 0;
      this.sums.length = 0;
      this.ends.length = 0;
      this.offsets.length = 0;
      this.abs = !!to && to.startsWith('/');
      if (!to || to === '~' || to === '-') return;
    }
    for (const seg of to.split('/')) {
      if (!seg || seg === '.') continue;
      const n = this.parts.length;
      if (seg === '..' && n && this.parts[n - 1] !== '..') {
        this.parts.pop();
        this.sums.pop();
        this.ends.pop();
        this.offsets.pop();
        if (this.pairs[this.pairs.length - 1] === n - 2) this.pairs.pop();
      } else {
        if (n && this.parts[n - 1] === '.git' && GIT_INTERNAL_NAMES.has(seg)) this.pairs.push(n - 1);
        const before = n ? this.sums[n - 1]! : NO_SEGMENTS;
        this.parts.push(seg);
        this.offsets.push((n ? this.offsets[n - 1]! + 1 : this.abs ? 1 : 0) + seg.length);
        this.sums.push(extendSegments(before, seg.split('\\')));
        const trimmed = seg.trimEnd();
        this.ends.push({ sum: extendSegments(before, trimmed.split('\\')), piece: lastPiece(trimmed) });
      }
    }
  }
}

/**
 * `GIT_INTERNALS.test(joinPath(dir, p))` without building the joined string:
 * `p`'s parts are resolved against the directory's (a leading `..` drops one of
 * them), then `.git` followed by an internals name is looked for in the kept
 * directory parts (precomputed), across the junction and in `p`'s own parts.
 * Linear in `p` (plus the `..` it holds), whatever the directory's length. @internal
 */
export function reachesGitInternals(dir: WorkDir, p: string): boolean {
  if (p.startsWith('/') || p.startsWith('~') || dir.isStart) return GIT_INTERNALS.test(joinPath('', p));
  let m = dir.parts.length; // directory parts kept
  const own: string[] = [];
  for (const seg of p.split('/')) {
    if (!seg || seg === '.') continue;
    if (seg === '..') {
      if (own.length ? own[own.length - 1] !== '..' : m > 0 && dir.parts[m - 1] !== '..') {
        if (own.length) own.pop();
        else m--;
        continue;
      }
    }
    own.push(seg);
  }
  if (dir.pairs.length && dir.pairs[0]! + 1 < m) return true;
  if (m > 0 && dir.parts[m - 1] === '.git' && own.length && GIT_INTERNAL_NAMES.has(own[0]!)) return true;
  for (let j = 0; j + 1 < own.length; j++) if (own[j] === '.git' && GIT_INTERNAL_NAMES.has(own[j + 1]!)) return true;
  return false;
}

/** The last `/`-piece of a path part once `\\` reads as `/` (what isGradingConfigText takes for the name). */
const lastPiece = (part: string): string => part.slice(part.lastIndexOf('\\') + 1);
/** A path part the normalization leaves alone: no blank (trimmed at the path's ends) and no `\\` (read as `/`). */
const plainPart = (part: string | undefined): boolean => part !== undefined && !/[\s\\]/.test(part);
const SCRATCH_HEADS = new Set(['tmp', 'dev', 'proc']);

/** Where a written path resolves and what it is: its {@link RepoPathKind}, whether it is scratch, its last `/`-piece, and (built on demand) the path. */
interface ResolvedWrite {
  kind: RepoPathKind;
  scratch: boolean;
  piece: string;
  path: () => string;
}

/**
 * `joinPath(dir, p)` classified, without building the joined string when the
 * directory's first part is plain: `classifyRepoPath` and `isScratchPath` of
 * the string then depend only on that first part (and the second under `/var`),
 * the directory's per-part summaries up to the parts `p` keeps, and `p`'s own
 * parts. So each written file costs its own length, not the directory's
 * (`cd <long path> && rm a b c ...` was quadratic). Other directories (a first
 * part with a blank or `\\`) take the string way, which is exact and linear per
 * file. test/judges/hostile-input.test.ts checks both ways agree.
 * @internal
 */
export function resolveWrite(dir: WorkDir, p: string): ResolvedWrite {
  const joined = () => joinPath(dir.toString(), p);
  const slow = (): ResolvedWrite => {
    const path = joined();
    const norm = normalizeRepoPath(path);
    return { kind: classifyRepoPath(path), scratch: isScratchPath(path), piece: norm.split('/').pop() ?? '', path: () => path };
  };
  if (p.startsWith('/') || p.startsWith('~') || dir.isStart) return slow(); // the directory plays no part
  let m = dir.parts.length; // directory parts kept
  const own: string[] = [];
  for (const seg of p.split('/')) {
    if (!seg || seg === '.') continue;
    if (seg === '..' && (own.length ? own[own.length - 1] !== '..' : m > 0 && dir.parts[m - 1] !== '..')) {
      if (own.length) own.pop();
      else m--;
      continue;
    }
    own.push(seg);
  }
  const head = dir.parts[0];
  // m === 0 and the `/var/<second>` head cases build a string no longer than `p` (plus `/var`)
  if (m === 0 || !plainPart(head) || (dir.abs && head === 'var' && (m < 2 || !plainPart(dir.parts[1])))) return slow();
  const scratch = dir.abs && (SCRATCH_HEADS.has(head!) || (head === 'var' && dir.parts[1] === 'tmp'));
  let sum: SegmentSummary;
  let piece: string;
  if (own.length) {
    sum = dir.sums[m - 1]!;
    for (let j = 0; j < own.length - 1; j++) sum = extendSegments(sum, own[j]!.split('\\'));
    const last = own[own.length - 1]!.trimEnd();
    sum = extendSegments(sum, last.split('\\'));
    piece = lastPiece(last);
  } else ({ sum, piece } = dir.ends[m - 1]!);
  // the path as joinPath builds it, but sharing the directory's string (a slice): many files
  // written in one long directory do not each copy it
  const path = () => {
    const prefix = dir.toString().slice(0, dir.offsets[m - 1]);
    return own.length ? `${prefix}/${own.join('/')}` : prefix;
  };
  return { kind: scratch ? 'other' : classifySegments(sum), scratch, piece, path };
}

/**
 * The simple commands other than top-level `cd` / `pushd`, each with its argv
 * values and the directory those left it in. The directory object is shared
 * and changes at the next `cd`: read it before resuming the iteration. @internal
 */
export function* commandsWithCwd(commands: readonly ShellCommand[]): Generator<{ cmd: ShellCommand; argv: string[]; dir: WorkDir }> {
  const dir = new WorkDir();
  for (const cmd of commands) {
    const argv = cmd.argv.map((w) => w.value);
    if ((argv[0] === 'cd' || argv[0] === 'pushd') && cmd.depth === 0) dir.cd(argv[1]);
    else yield { cmd, argv, dir };
  }
}
