import type { WalkEntry } from './treeWalker.js';

/** How an entry differs between two trees. */
export type ChangeStatus = 'added' | 'modified' | 'deleted' | 'type-changed';

/** One path that differs: its entries on either side (one may be missing). */
export interface EntryChange {
  /** The relative path's bytes. */
  raw: Buffer;
  status: ChangeStatus;
  before?: WalkEntry;
  after?: WalkEntry;
}

/**
 * Same kind, executable bit and bytes: a file by size and SHA-256, a link by
 * its target. Only the executable bits count of a file's mode (git's rule).
 */
export function sameEntry(a: WalkEntry, b: WalkEntry): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'link') return a.target.equals(b.target);
  return a.executable === b.executable && a.size === b.size && a.digest.equals(b.digest);
}

/**
 * The paths that differ between two walks (each in byte order of `raw`, as
 * `TreeWalker.walk` returns them), in that order: `added` (only in `after`),
 * `deleted` (only in `before`), `type-changed` (a file on one side, a link on
 * the other), `modified` (else, when not {@link sameEntry}). Paths in `exclude`
 * (keys: the path bytes as `latin1` strings, a one-to-one mapping) are left out.
 * Two names that differ in any byte are two paths.
 */
export function compareTrees(before: readonly WalkEntry[], after: readonly WalkEntry[], exclude: ReadonlySet<string> = new Set()): EntryChange[] {
  const out: EntryChange[] = [];
  const keep = (raw: Buffer): boolean => exclude.size === 0 || !exclude.has(raw.toString('latin1'));
  let i = 0;
  let j = 0;
  while (i < before.length || j < after.length) {
    const x = before[i];
    const y = after[j];
    const c = x === undefined ? 1 : y === undefined ? -1 : Buffer.compare(x.raw, y.raw);
    if (c < 0) {
      i++;
      if (keep(x!.raw)) out.push({ raw: x!.raw, status: 'deleted', before: x! });
    } else if (c > 0) {
      j++;
      if (keep(y!.raw)) out.push({ raw: y!.raw, status: 'added', after: y! });
    } else {
      i++;
      j++;
      if (!sameEntry(x!, y!) && keep(x!.raw)) out.push({ raw: x!.raw, status: x!.kind === y!.kind ? 'modified' : 'type-changed', before: x!, after: y! });
    }
  }
  return out;
}
