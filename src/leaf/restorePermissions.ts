import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { quotePath } from './quotePath.js';
import { TreeWalker } from './treeWalker.js';

/** Options of {@link restorePermissions}. */
export interface RestorePermissionsOptions {
  /** Seconds the whole walk may take. Default 300. */
  maxSeconds?: number;
  /** Stops the walk; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
}

/**
 * Gives the owner read, write and search permission on every folder below
 * `root` (and on `root`), and read and write permission on every regular file,
 * keeping every other bit (a file's executable bits included, so a diff taken
 * afterwards sees the same modes). Symbolic links are never followed nor
 * changed; sockets, FIFOs and devices are left alone. An agent that ran
 * `chmod 000 tests` (or took its own read, write or search bits anywhere) would
 * otherwise make the diff fail and leave a workspace nobody but root can remove.
 * Runs in a child process walking by relative names (see `treeWalker.ts`), so it
 * works at any depth, names as bytes, and never blocks the event loop; a mode
 * already complete is not touched. A missing `root` is nothing to do.
 *
 * @throws FrognanoError `OUT_OF_RANGE` for a `maxSeconds` that is not a finite number > 0
 * @throws FrognanoError `DIFF_UNAVAILABLE` when some entry could not be fixed
 *   (not this user's, say: the message counts them and names the first) or the
 *   walk took longer than `maxSeconds`; everything else below `root` is fixed all the same
 * @example
 * await restorePermissions(workspace.repo); // before the diff, and before removing the workspace
 */
export async function restorePermissions(root: string, opts: RestorePermissionsOptions = {}): Promise<void> {
  const maxSeconds = opts.maxSeconds ?? 300;
  if (!(maxSeconds > 0 && Number.isFinite(maxSeconds))) throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `opts.maxSeconds must be a finite number > 0, got ${maxSeconds}`, { fn: 'restorePermissions', field: 'opts.maxSeconds' });
  const walker = TreeWalker.start({ fn: 'restorePermissions', maxSeconds, ...(opts.signal ? { signal: opts.signal } : {}) });
  try {
    const r = await walker.restore(root);
    if (r.failed > 0) {
      const first = r.first ? `, the first ${r.first.path.length === 0 ? '.' : quotePath(r.first.path)} (${r.first.code})` : '';
      throw new FrognanoError(ErrorCode.DIFF_UNAVAILABLE, `could not restore the permissions of ${r.failed} of ${r.entries} entries below ${root}${first}`, { fn: 'restorePermissions' });
    }
  } finally {
    walker.close();
  }
}
