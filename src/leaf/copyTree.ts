import { constants } from 'node:fs';
import { chmod, copyFile, lchown, lstat, mkdir, readdir, readlink, symlink } from 'node:fs/promises';
import { join } from 'node:path';

/** Options of {@link copyTree}. */
export interface CopyTreeOptions {
  /** Gives every entry made (the root folder included) to this owner, links not followed; null or absent: left to the caller's user. */
  owner?: { uid: number; gid: number } | null;
  /** Copies in flight at once (each one a libuv threadpool job). Default 16. */
  concurrency?: number;
}

/** What {@link copyTree} made. */
export interface CopyTreeResult {
  files: number;
  folders: number;
  links: number;
  /** Sockets, FIFOs and device files met in the source: never copied. */
  skipped: number;
}

/**
 * Copies the folder `src` to `dest` (which must not exist), the parallel copy of a
 * workspace (issue 21): folders first, each as soon as it is listed, then a bounded
 * pool of `copyFile(COPYFILE_FICLONE)`, so the kernel clones the file where the file
 * system has reflinks and otherwise copies it in the kernel (libuv: `copy_file_range`
 * / `sendfile`, never through JavaScript buffers). `fs.promises.cp` does the same
 * work one entry at a time, with an extra `stat` of source and destination per entry.
 *
 * - regular files keep their mode bits (libuv `fchmod`s the copy to the source's
 *   mode: the executable bit shows in a diff); times are not kept (diffs compare contents);
 * - symbolic links are copied as links with their target verbatim, never followed
 *   (a link to a folder is not entered, a dangling link stays dangling);
 * - folders keep their mode, set once their content is in (a read-only folder is still filled);
 * - sockets, FIFOs and device files are skipped (counted in `skipped`);
 * - `src` itself is taken as given: the caller resolves a symlinked root first
 *   (`createWorkspace` copies `realpath(root)`); a root that is a link is refused.
 *
 * With `owner`, each entry is `lchown`ed right after it is made, in the same pool
 * (no second walk over the copy).
 */
export async function copyTree(src: string, dest: string, opts: CopyTreeOptions = {}): Promise<CopyTreeResult> {
  const owner = opts.owner ?? null;
  const limit = Math.max(1, opts.concurrency ?? 16);
  const rootStat = await lstat(src);
  if (!rootStat.isDirectory()) throw new Error(`copyTree: ${src} is not a folder`);
  const result: CopyTreeResult = { files: 0, folders: 0, links: 0, skipped: 0 };
  // folders to chmod once everything is copied (deepest first: a 0555 parent must stay writable until its children are in)
  const folderModes: [string, number][] = [];

  // a tiny bounded job queue: the walk and the copies share it
  const queue: (() => Promise<void>)[] = [];
  let running = 0;
  let failure: unknown = null;
  let settle!: () => void;
  let fail!: (e: unknown) => void;
  const done = new Promise<void>((res, rej) => {
    settle = res;
    fail = rej;
  });
  const pump = (): void => {
    while (failure === null && running < limit && queue.length > 0) {
      const job = queue.shift()!;
      running++;
      job().then(
        () => {
          running--;
          pump();
        },
        (e: unknown) => {
          running--;
          if (failure === null) {
            failure = e;
            fail(e);
          }
        },
      );
    }
    if (failure === null && running === 0 && queue.length === 0) settle();
  };
  const push = (job: () => Promise<void>): void => {
    queue.push(job);
  };
  const give = async (p: string): Promise<void> => {
    if (owner) await lchown(p, owner.uid, owner.gid);
  };

  const walk = (from: string, to: string, mode: number) => async (): Promise<void> => {
    // made writable and searchable for us first; its own mode is set at the end
    await mkdir(to, { mode: 0o700 });
    await give(to);
    result.folders++;
    folderModes.push([to, mode & 0o7777]);
    for (const e of await readdir(from, { withFileTypes: true })) {
      const s = join(from, e.name);
      const d = join(to, e.name);
      if (e.isDirectory()) {
        push(async () => {
          const st = await lstat(s);
          await walk(s, d, st.mode)();
        });
      } else if (e.isFile()) {
        push(async () => {
          await copyFile(s, d, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
          await give(d);
          result.files++;
        });
      } else if (e.isSymbolicLink()) {
        push(async () => {
          await symlink(await readlink(s), d);
          await give(d);
          result.links++;
        });
      } else {
        result.skipped++;
      }
    }
  };
  push(walk(src, dest, rootStat.mode));
  pump();
  await done;
  for (let i = folderModes.length - 1; i >= 0; i--) {
    const [p, mode] = folderModes[i]!;
    await chmod(p, mode);
  }
  return result;
}
