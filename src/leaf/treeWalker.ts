import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { quotePath } from './quotePath.js';
import { WALKER_SCRIPT } from './treeWalkerScript.js';

/** One regular file or symbolic link of a walked tree. */
export interface WalkEntry {
  /** The path relative to the root, as bytes (`/`-separated). */
  raw: Buffer;
  /** A regular file or a symbolic link (folders are not listed; sockets, FIFOs and devices are skipped). */
  kind: 'file' | 'link';
  /** Any executable bit set (files; false for links). */
  executable: boolean;
  /** Bytes: the file's length, or the link target's. */
  size: number;
  /** The file's SHA-256 (32 bytes); empty for a link. */
  digest: Buffer;
  /** The link's target bytes; empty for a file. */
  target: Buffer;
}

/** What one walk may cost. */
export interface WalkLimits {
  /** Entries (files, links, folders, anything else) at most below the root. */
  maxEntries: number;
  /** Bytes of all the entries' relative paths together (folders included) at most. */
  maxPathBytes: number;
  /** Folder names left out at the top level only (e.g. `.git`). */
  skipTop: readonly string[];
}

/** How a {@link TreeWalker} runs. */
export interface TreeWalkerOptions {
  /** The public function using it, named in error messages (e.g. `diffRepo`). */
  fn: string;
  /** Seconds every command of this walker together may take (from {@link TreeWalker.start}). */
  maxSeconds: number;
  /** Stops the child; pending commands reject with the signal's reason. */
  signal?: AbortSignal;
  /** Runs the child as this user (a test of an unprivileged walk; frognano never sets it). Default: this process's user. */
  user?: { uid: number; gid: number };
}

/** What {@link TreeWalker.restore} did. */
export interface RestoreResult {
  /** Entries seen below the root. */
  entries: number;
  /** Entries whose permissions could not be fixed or whose folder could not be entered. */
  failed: number;
  /** The first of those, and why (an errno code). */
  first?: { path: Buffer; code: string };
}

/** Milliseconds the parent waits past the deadline for the child's own time-limit answer before killing it. */
const KILL_GRACE_MS = 2000;
/** Characters of the child's stderr kept for a crash message. */
const STDERR_KEEP = 2000;

type Frame = { type: string; payload: Buffer };
interface Pending {
  onFrame(f: Frame): boolean; // true when the command is complete
  reject(e: unknown): void;
}

/** The child's `X` answer. */
interface Failure {
  kind: 'too-many' | 'path-bytes' | 'time' | 'unreadable' | 'changed' | 'internal';
  path?: string;
  count?: number;
  partial?: boolean;
  code?: string;
  message?: string;
}

/** Splits the child's stdout into `[u32 length][u8 type][payload]` frames without copying large payloads twice. */
class FrameReader {
  private chunks: Buffer[] = [];
  private total = 0;
  constructor(private readonly onFrame: (f: Frame) => void) {}
  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.total += chunk.length;
    for (;;) {
      if (this.total < 5) return;
      if (this.chunks[0]!.length < 5) this.merge();
      const need = 5 + this.chunks[0]!.readUInt32BE(0);
      if (this.total < need) return;
      if (this.chunks[0]!.length < need) this.merge();
      const head = this.chunks[0]!;
      const f = { type: String.fromCharCode(head[4]!), payload: head.subarray(5, need) };
      if (head.length === need) this.chunks.shift();
      else this.chunks[0] = head.subarray(need);
      this.total -= need;
      this.onFrame(f);
    }
  }
  private merge(): void {
    this.chunks = [Buffer.concat(this.chunks, this.total)];
  }
}

/** Decodes an `E` frame. */
function decodeEntry(p: Buffer): WalkEntry {
  const kind = p[0] === 0 ? 'file' : 'link';
  const pathLen = p.readUInt32BE(10);
  const raw = Buffer.from(p.subarray(14, 14 + pathLen));
  const auxLen = p.readUInt32BE(14 + pathLen);
  const aux = Buffer.from(p.subarray(18 + pathLen, 18 + pathLen + auxLen));
  const empty = Buffer.alloc(0);
  return { raw, kind, executable: p[1] === 1, size: p.readDoubleBE(2), digest: kind === 'file' ? aux : empty, target: kind === 'link' ? aux : empty };
}

/** A path from the child (hex) for a message: git-quoted when need be, `.` for the root. */
const shown = (hex: string | undefined): string => (hex ? quotePath(Buffer.from(hex, 'hex')) : '.');

/**
 * A child process (see `treeWalkerScript.ts`) that walks, reads and repairs
 * repository trees for the parent without blocking its event loop, at any
 * depth, with names as bytes and without following symbolic links. Commands
 * run one after another; all of them together get `maxSeconds` (the child stops
 * itself at the deadline, and is killed 2 s later if it has not). Failures are
 * `FrognanoError` `DIFF_UNAVAILABLE` saying why (too many entries: the count;
 * the time limit; an unreadable entry: which; the paths' total length; a tree
 * changed during the walk). Always {@link TreeWalker.close} it.
 */
export class TreeWalker {
  private readonly child: ChildProcessByStdio<Writable, Readable, Readable>;
  private readonly pending: Pending[] = [];
  private readonly deadline: number;
  private readonly timer: NodeJS.Timeout;
  private readonly onAbort: () => void;
  private stderr = '';
  private ended: unknown = undefined;

  private constructor(private readonly opts: TreeWalkerOptions) {
    this.deadline = Date.now() + opts.maxSeconds * 1000;
    this.child = spawn(process.execPath, ['--input-type=module', '-e', WALKER_SCRIPT], {
      cwd: '/',
      env: {},
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(opts.user ? { uid: opts.user.uid, gid: opts.user.gid } : {}),
    });
    const reader = new FrameReader((f) => {
      const p = this.pending[0];
      if (p && p.onFrame(f)) this.pending.shift();
    });
    this.child.stdout.on('data', (c: Buffer) => reader.push(c));
    this.child.stderr.on('data', (c: Buffer) => {
      this.stderr = (this.stderr + c.toString('utf8')).slice(-STDERR_KEEP);
    });
    this.child.stdin.on('error', () => {}); // a dead child: reported by 'close'
    this.child.on('error', (e) => this.fail(this.error(`cannot start the tree walker (${process.execPath}): ${e.message}`)));
    this.child.on('close', (code, sig) => this.fail(this.error(`the tree walker exited (${sig ?? `code ${code}`})${this.stderr ? `: ${this.stderr.trim()}` : ''}`)));
    this.timer = setTimeout(() => this.fail(this.error(`the walk took longer than ${opts.maxSeconds} s (maxSeconds)`)), Math.max(0, this.deadline - Date.now()) + KILL_GRACE_MS);
    this.onAbort = () => this.fail(opts.signal!.reason);
    opts.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  /** Starts the child (it loads in the background; commands queue until it reads them). */
  static start(opts: TreeWalkerOptions): TreeWalker {
    const w = new TreeWalker(opts);
    if (opts.signal?.aborted) w.fail(opts.signal.reason);
    return w;
  }

  /**
   * Every regular file and link below `root`, in git's path order (byte order of
   * the relative paths), each file with its SHA-256; folders named in `skipTop`
   * are left out at the top level. A missing `root` is an empty tree.
   */
  walk(root: string, limits: WalkLimits): Promise<WalkEntry[]> {
    const entries: WalkEntry[] = [];
    return this.command({ op: 'walk', root, skipTop: limits.skipTop, maxEntries: limits.maxEntries, maxPathBytes: limits.maxPathBytes }, root, limits, (f) => {
      if (f.type !== 'E') return entries;
      entries.push(decodeEntry(f.payload));
      return undefined;
    });
  }

  /** The first `max` bytes of the regular file `raw` below `root` (no component may be a link). */
  read(root: string, raw: Buffer, max: number): Promise<Buffer> {
    return this.command({ op: 'read', root, path: raw.toString('hex'), max }, root, undefined, (f) => Buffer.from(f.payload));
  }

  /** Gives the owner `rwx` on every folder and `rw` on every regular file below `root` (and `root`); links untouched. */
  restore(root: string): Promise<RestoreResult> {
    return this.command({ op: 'restore', root }, root, undefined, (f) => {
      const d = JSON.parse(f.payload.toString('utf8')) as { entries: number; failed: number; first?: { path: string; code: string } };
      return { entries: d.entries, failed: d.failed, ...(d.first ? { first: { path: Buffer.from(d.first.path, 'hex'), code: d.first.code } } : {}) };
    });
  }

  /** Stops the child (pending commands reject). */
  close(): void {
    this.fail(this.error('the tree walker was closed'));
  }

  /** Sends one command; `take` sees its frames until it returns a value (`X` frames are turned into errors here). */
  private command<T>(cmd: object, root: string, limits: WalkLimits | undefined, take: (f: Frame) => T | undefined): Promise<T> {
    if (this.ended !== undefined) return Promise.reject(this.ended);
    return new Promise<T>((resolve, reject) => {
      this.pending.push({
        reject,
        onFrame: (f) => {
          if (f.type === 'X') {
            reject(this.failure(JSON.parse(f.payload.toString('utf8')) as Failure, root, limits));
            return true;
          }
          const v = take(f);
          if (v === undefined) return false;
          resolve(v);
          return true;
        },
      });
      this.child.stdin.write(`${JSON.stringify({ ...cmd, deadline: this.deadline })}\n`);
    });
  }

  /** The error for the child's `X` answer. */
  private failure(x: Failure, root: string, limits: WalkLimits | undefined): FrognanoError {
    const at = shown(x.path);
    switch (x.kind) {
      case 'too-many':
        return this.error(`too many entries below ${root}: ${x.partial ? 'at least ' : ''}${x.count} > maxEntries ${limits?.maxEntries}`);
      case 'path-bytes':
        return this.error(`the relative paths below ${root} add up to more than maxPathBytes ${limits?.maxPathBytes} bytes (at ${at})`);
      case 'time':
        return this.error(`the walk of ${root} took longer than ${this.opts.maxSeconds} s (maxSeconds), at ${at}`);
      case 'unreadable':
        return this.error(`an unreadable entry below ${root}: ${at} (${x.code}); restorePermissions makes a tree readable`);
      case 'changed':
        return this.error(`the tree below ${root} changed during the walk, at ${at}`);
      default:
        return this.error(`the tree walker failed below ${root}: ${x.message}`);
    }
  }

  private error(message: string): FrognanoError {
    return new FrognanoError(ErrorCode.DIFF_UNAVAILABLE, message, { fn: this.opts.fn });
  }

  /** Ends the walker once: kills the child and rejects what is pending with `e`. */
  private fail(e: unknown): void {
    if (this.ended !== undefined) return;
    this.ended = e;
    clearTimeout(this.timer);
    this.opts.signal?.removeEventListener('abort', this.onAbort);
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    for (const p of this.pending.splice(0)) p.reject(e);
  }
}
