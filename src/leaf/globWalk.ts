import { type Dir, type Dirent } from 'node:fs';
import { lstat, opendir } from 'node:fs/promises';
import type { GlobMatcher } from './globPattern.js';

/** One listed file: its path below the search root (bytes), its display form and its mtime. */
export interface GlobHit {
  /** Path below the walk's base, as bytes (`a/b.py`). */
  rel: Buffer;
  /** The line `glob` shows for it (what `show` returned). */
  shown: string;
  /** `lstat` mtime in milliseconds. */
  mtime: number;
}

/** The bounds of one walk. */
export interface GlobWalkLimits {
  /** Most hits kept (the newest ones). */
  keep: number;
  /** Most directory entries looked at (files and folders, at any depth). */
  maxEntries: number;
  /** Wall-clock budget of the walk, in milliseconds. */
  maxMs: number;
}

/** What a walk found. */
export interface GlobWalkResult {
  /** The kept hits, newest first, equal mtimes in `shown` order. */
  hits: GlobHit[];
  /** Matching files seen (kept or not). */
  matched: number;
  /** Directory entries looked at. */
  entries: number;
  /** Why the walk stopped early, or null when it saw the whole tree. */
  stopped: null | 'entries' | 'time';
}

/** The walk gives the event loop a turn at least this often (ms of work between turns). */
const YIELD_EVERY_MS = 20;
/** `lstat` calls in flight at once (the libuv pool is shared with everything else in the process). */
const LSTAT_BATCH = 16;
/** Entries `opendir` reads per call. */
const DIR_BUFFER = 128;
const SLASH = Buffer.from('/');

/** True when `a` is listed before `b`: newer, or as new and earlier in display order. */
const before = (a: GlobHit, b: GlobHit): boolean => a.mtime > b.mtime || (a.mtime === b.mtime && a.shown < b.shown);

/**
 * The `keep` best hits seen so far, as a binary heap whose root is the one
 * listed last (the first to drop). Memory is O(keep) however many files match.
 */
class TopHits {
  private readonly h: GlobHit[] = [];
  constructor(private readonly keep: number) {}

  /** Whether a hit with this mtime could enter the selection (then its display form is worth computing). */
  wants(mtime: number): boolean {
    if (this.keep <= 0) return false;
    return this.h.length < this.keep || mtime >= this.h[0]!.mtime;
  }

  offer(x: GlobHit): void {
    const h = this.h;
    if (h.length < this.keep) {
      h.push(x);
      for (let i = h.length - 1; i > 0; ) {
        const p = (i - 1) >> 1;
        if (!before(h[p]!, h[i]!)) break;
        [h[p], h[i]] = [h[i]!, h[p]!];
        i = p;
      }
    } else if (this.keep > 0 && before(x, h[0]!)) {
      h[0] = x;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && before(h[m]!, h[l]!)) m = l;
        if (r < h.length && before(h[m]!, h[r]!)) m = r;
        if (m === i) break;
        [h[m], h[i]] = [h[i]!, h[m]!];
        i = m;
      }
    }
  }

  sorted(): GlobHit[] {
    return [...this.h].sort((a, b) => (before(a, b) ? -1 : 1));
  }
}

/**
 * Walks the folder `base` (bytes) for files whose path below it matches
 * `matches` (tested on the path's UTF-8 decoding), skipping `.git` and
 * `node_modules` folders and never entering linked folders, and keeps the
 * `limits.keep` newest by `lstat` mtime (equal times in `show` order).
 *
 * Bounded whatever the tree holds: it looks at most `limits.maxEntries`
 * directory entries and runs at most `limits.maxMs` (then stops and says so
 * in `stopped`), reads each folder as a stream (`opendir`, never a whole
 * listing at once) with one folder open at a time, stores only the kept hits
 * and the names of folders still to visit (at most one name per entry looked
 * at), and gives the event loop a turn every few milliseconds. A subfolder
 * that cannot be read (gone meanwhile, unreadable, a path too long) is left
 * out; an unreadable `base` throws.
 */
export async function walkGlob(base: Buffer, matches: GlobMatcher, show: (rel: Buffer) => string, limits: GlobWalkLimits): Promise<GlobWalkResult> {
  const start = performance.now();
  let lastYield = start;
  const top = new TopHits(limits.keep);
  let matched = 0;
  let entries = 0;
  let stopped: GlobWalkResult['stopped'] = null;
  const under = (rel: Buffer): Buffer => Buffer.concat([base, SLASH, rel]);

  /** Stat a batch of matching paths (in parallel, bounded) and offer them to the selection. */
  const settle = async (batch: Buffer[]): Promise<void> => {
    const stats = await Promise.all(batch.map((p) => lstat(under(p)).catch(() => null)));
    for (let i = 0; i < batch.length; i++) {
      const st = stats[i];
      if (!st) continue;
      matched++;
      if (top.wants(st.mtimeMs)) top.offer({ rel: batch[i]!, shown: show(batch[i]!), mtime: st.mtimeMs });
    }
  };

  /** Reads one folder (`rel` below base, null for base); returns the names of its subfolders to visit. */
  const readFolder = async (rel: Buffer | null): Promise<string[]> => {
    let dir: Dir;
    try {
      dir = await opendir(rel === null ? base : under(rel), { encoding: 'buffer' as BufferEncoding, bufferSize: DIR_BUFFER });
    } catch (e) {
      if (rel === null) throw e;
      return [];
    }
    const subdirs: string[] = []; // latin1: one byte a character, the name's bytes exactly, no Buffer each
    let batch: Buffer[] = [];
    try {
      for (;;) {
        let e: Dirent<Buffer> | null;
        try {
          e = (await dir.read()) as unknown as Dirent<Buffer> | null;
        } catch {
          break; // a folder that fails mid-read: keep what it gave
        }
        if (e === null) break;
        if (entries >= limits.maxEntries) {
          stopped = 'entries';
          break;
        }
        const now = performance.now();
        if (now - start > limits.maxMs) {
          stopped = 'time';
          break;
        }
        entries++;
        const p = rel === null ? e.name : Buffer.concat([rel, SLASH, e.name]);
        if (e.isDirectory()) {
          const name = e.name.toString('latin1');
          if (name !== '.git' && name !== 'node_modules') subdirs.push(name);
        } else if (matches(p.toString('utf8'))) {
          batch.push(p);
          if (batch.length >= LSTAT_BATCH) {
            await settle(batch);
            batch = [];
          }
        }
        if (now - lastYield > YIELD_EVERY_MS) {
          await new Promise<void>((resolve) => setImmediate(resolve));
          lastYield = performance.now();
        }
      }
      if (batch.length > 0) await settle(batch);
    } finally {
      await dir.close().catch(() => undefined);
    }
    return subdirs;
  };

  // Depth first. A frame is an open level: its path and the names (not paths:
  // at most 255 bytes each, as latin1 strings) of its subfolders still to visit.
  const stack: { rel: Buffer | null; names: string[] }[] = [{ rel: null, names: await readFolder(null) }];
  while (stopped === null && stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    const next = frame.names.pop();
    if (next === undefined) {
      stack.pop();
      continue;
    }
    const name = Buffer.from(next, 'latin1');
    const rel = frame.rel === null ? name : Buffer.concat([frame.rel, SLASH, name]);
    stack.push({ rel, names: await readFolder(rel) });
  }
  return { hits: top.sorted(), matched, entries, stopped };
}
