import { createWriteStream, unlinkSync, type WriteStream } from 'node:fs';
import { lstat, open, readlink, realpath, rename, stat, unlink } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { finished } from 'node:stream/promises';
import { IoError, UsageError } from '../commands/index.js';

/**
 * Opening `--out FILE`: what happens depends on what FILE is, so that
 * `--out` behaves like shell redirection (`> FILE`) where replacing the file
 * would be wrong, and atomically where it is safe.
 *
 * | FILE is | `atomic: true` (record subcommands) | `atomic: false` (`rollout`) |
 * | --- | --- | --- |
 * | absent | a temporary file next to it, renamed onto it on success | created and written |
 * | a regular file | the same; the new file gets the old one's mode (and owner, where allowed) | truncated and written |
 * | a symlink | followed to its final target, which is then treated as above: the link stays a link (a dangling link: its target is created) | written through the link |
 * | a FIFO or a character device (`/dev/null`, `/dev/stdout`, a terminal) | opened and written directly, no temporary file | the same |
 * | a directory, a socket, a block device | refused: bad usage (exit 2) before any record is read | the same |
 *
 * A link into `/proc` (`/dev/stdout`, `/dev/fd/1` on Linux) is written through,
 * never replaced: its "target" is a descriptor the shell already holds open.
 *
 * While a temporary file exists, SIGINT, SIGTERM and SIGHUP delete it before
 * the process dies of the signal, so an interrupted run leaves no `.tmp-` file.
 */

/** An opened `--out`. */
export interface OutputFile {
  /** Where the records go. */
  readonly stream: WriteStream;
  /** How it is written: `atomic` (temporary file, renamed on commit) or `direct` (written in place). */
  readonly how: 'atomic' | 'direct';
  /** Ends the stream; an atomic output is then renamed onto its destination. */
  commit(): Promise<void>;
  /** Stops writing; an atomic output's temporary file is deleted (a direct output keeps what was written). */
  abort(): Promise<void>;
}

/** Options of {@link openOutputFile}. */
export interface OpenOutputOptions {
  /** Write a regular file (or a new path) through a temporary file renamed on commit. */
  atomic: boolean;
  /** The flag for messages (default `--out`). */
  flag?: string;
}

/** Symlink hops followed before giving up, as Linux does (ELOOP). */
const MAX_LINKS = 40;

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

function errorCode(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null ? (e as NodeJS.ErrnoException).code : undefined;
}

async function lstatOrNull(path: string): Promise<Stats | null> {
  try {
    return await lstat(path);
  } catch (e) {
    if (errorCode(e) === 'ENOENT') return null;
    throw e;
  }
}

/**
 * Follows `path` through its symlinks to the final path (which may not exist:
 * a dangling link). `proc` is true when a hop lives in `/proc` (Linux magic
 * links such as `/proc/self/fd/1`), whose target must not be replaced.
 */
async function followLinks(path: string): Promise<{ final: string; proc: boolean }> {
  let cur = resolve(path);
  for (let hop = 0; hop <= MAX_LINKS; hop++) {
    const st = await lstatOrNull(cur);
    if (st === null || !st.isSymbolicLink()) return { final: cur, proc: false };
    const dir = await realpath(dirname(cur));
    if (dir === '/proc' || dir.startsWith('/proc/')) return { final: cur, proc: true };
    cur = resolve(dir, await readlink(cur));
  }
  const e = new Error(`too many levels of symbolic links`) as NodeJS.ErrnoException;
  e.code = 'ELOOP';
  throw e;
}

function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isSocket()) return 'a socket';
  if (st.isBlockDevice()) return 'a block device';
  return 'not a file, FIFO or character device';
}

function openStream(stream: WriteStream): Promise<void> {
  return new Promise<void>((ok, fail) => {
    stream.once('open', () => ok());
    stream.once('error', fail);
  });
}

/** Writes straight into `path`, truncating a regular file as `> path` does (`w`), or appending as `>> path` does (`a`). */
async function openDirect(path: string, flags: 'w' | 'a' = 'w'): Promise<OutputFile> {
  const stream = createWriteStream(path, { flags });
  await openStream(stream);
  return {
    stream,
    how: 'direct',
    async commit() {
      stream.end();
      await finished(stream);
    },
    async abort() {
      stream.destroy();
    },
  };
}

/** Writes a temporary file next to `target`, renamed onto it by commit; `existing` is the file it replaces, if any. */
async function openAtomic(target: string, existing: Stats | null): Promise<OutputFile> {
  const tmp = join(dirname(target), `.${basename(target)}.tmp-${process.pid}-${Date.now()}`);
  const mode = existing ? existing.mode & 0o7777 : 0o666;
  let removed = false;
  const removeSync = (): void => {
    if (removed) return;
    removed = true;
    try {
      unlinkSync(tmp);
    } catch {
      /* already gone */
    }
  };
  const onSignal = (sig: NodeJS.Signals): void => {
    removeSync();
    unwatch();
    // die of the signal, as without a handler, unless someone else handles it
    if (process.listenerCount(sig) === 0) process.kill(process.pid, sig);
  };
  const unwatch = (): void => {
    for (const s of SIGNALS) process.off(s, onSignal);
  };
  // watch before the file exists: a signal between its creation and the
  // watching would leave it behind (unlinking a file not yet there is harmless)
  for (const s of SIGNALS) process.on(s, onSignal);
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(tmp, 'wx', mode);
  } catch (e) {
    unwatch();
    throw e;
  }
  if (removed) {
    // a signal came while the file was being created: it may exist now
    await handle.close().catch(() => {});
    await unlink(tmp).catch(() => {});
  }
  try {
    if (existing) {
      // the replacement keeps the file's owner (where allowed) and mode; chown first, it may clear set-id bits
      await handle.chown(existing.uid, existing.gid).catch(() => {});
      await handle.chmod(mode);
    }
  } catch (e) {
    await handle.close().catch(() => {});
    removeSync();
    unwatch();
    throw e;
  }
  const stream = handle.createWriteStream();
  return {
    stream,
    how: 'atomic',
    async commit() {
      try {
        stream.end();
        await finished(stream);
        if (removed) throw new IoError(`the temporary file ${tmp} was removed (interrupted by a signal)`);
        await rename(tmp, target);
        removed = true;
      } catch (e) {
        stream.destroy();
        removeSync();
        throw e;
      } finally {
        unwatch();
      }
    },
    async abort() {
      stream.destroy();
      if (!removed) {
        removed = true;
        await unlink(tmp).catch(() => {});
      }
      unwatch();
    },
  };
}

/**
 * Opens `path` for output according to what it is (see the module comment).
 * Throws {@link UsageError} (exit 2) for a destination that cannot be written:
 * a directory, a socket, a block device, a missing folder, no permission.
 */
export async function openOutputFile(path: string, opts: OpenOutputOptions): Promise<OutputFile> {
  const flag = opts.flag ?? '--out';
  try {
    const { final, proc } = await followLinks(path);
    const st = proc ? await stat(final) : await lstatOrNull(final);
    if (st && !st.isFile() && !st.isFIFO() && !st.isCharacterDevice()) throw new UsageError(`cannot write ${flag} ${path}: it is ${kindOf(st)}`);
    if (!opts.atomic || proc || (st && !st.isFile())) return await openDirect(proc ? path : final);
    return await openAtomic(final, st);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw new UsageError(`cannot write ${flag} ${path}: ${errorCode(e) ?? (e as Error).message}`);
  }
}

/**
 * Opens `path` to append to it, as `>> path` does (`rollout --resume` after its
 * rewrite of the kept groups). Throws {@link UsageError} (exit 2) naming the flag
 * when it cannot be opened.
 */
export async function openAppendFile(path: string, flag = '--out'): Promise<OutputFile> {
  try {
    return await openDirect(path, 'a');
  } catch (e) {
    throw new UsageError(`cannot write ${flag} ${path}: ${errorCode(e) ?? (e as Error).message}`);
  }
}
