import { lstatSync, mkdirSync, readlinkSync } from 'node:fs';
import { join, posix } from 'node:path';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';

// A root filesystem folder (an unpacked image, SPEC §14) as the sandbox's `/`: paths inside it
// are resolved as the sandbox would see them, never by the host's links.

/** The shells the sandbox's preamble can run in (it is bash: `exec {fd}>&-`, `ulimit -u`), in order of preference. */
const BASH_PATHS = ['/bin/bash', '/usr/bin/bash'];

/**
 * The host path of `path` (absolute, as seen inside the sandbox) in the root
 * filesystem `root`, every symbolic link on the way followed inside the root (an
 * absolute target is relative to the root, `..` stops at it), or null when it
 * does not exist or the links loop.
 * @internal
 */
export function resolveInRoot(root: string, path: string): string | null {
  let parts = path.split('/').filter((p) => p !== '' && p !== '.');
  const done: string[] = [];
  for (let hops = 0; parts.length > 0; ) {
    const part = parts.shift()!;
    if (part === '..') {
      done.pop();
      continue;
    }
    const host = join(root, ...done, part);
    const st = lstatSync(host, { throwIfNoEntry: false });
    if (st === undefined) return null;
    if (!st.isSymbolicLink()) {
      done.push(part);
      continue;
    }
    if (++hops > 40) return null;
    const target = readlinkSync(host);
    if (target.startsWith('/')) done.length = 0;
    parts = [...target.split('/').filter((p) => p !== '' && p !== '.'), ...parts];
  }
  return join(root, ...done);
}

/**
 * The bash of the image at `root` (`/bin/bash`, else `/usr/bin/bash`, links
 * followed inside the image), as the sandbox names it.
 * @throws FrognanoError `SANDBOX_UNAVAILABLE` naming the image when it has no bash
 * @internal
 */
export function rootShell(root: string): string {
  for (const p of BASH_PATHS) {
    const host = resolveInRoot(root, p);
    if (host !== null && lstatSync(host).isFile()) return p;
  }
  throw new FrognanoError(ErrorCode.SANDBOX_UNAVAILABLE, `the image ${root} has no bash (${BASH_PATHS.join(' or ')}): the sandbox runs every command through bash, so an environment image must contain it`, { fn: 'sandbox.run', field: 'image' });
}

/** True when `path` (inside the sandbox) is a real folder of the image at `root` (not a link). @internal */
export function isRootFolder(root: string, path: string): boolean {
  return lstatSync(join(root, path), { throwIfNoEntry: false })?.isDirectory() === true;
}

/** The mount points every sandbox call over an image needs, besides `workdir`. */
export const ROOT_MOUNT_POINTS = ['/proc', '/dev', '/tmp'];

/**
 * Makes sure the image at `root` has every mount point the sandbox needs
 * (`/proc`, `/dev`, `/tmp`, `workdir`) as a real folder, each component a folder
 * and no symbolic link (bwrap cannot create one in a read-only `/`, and a link
 * would lead the mount elsewhere). With `create`, missing ones are made (a plain
 * root folder the user can write); otherwise, or when that fails, it throws.
 * @throws FrognanoError `SANDBOX_UNAVAILABLE` naming the image and the mount point
 * @internal
 */
export function ensureMountPoints(root: string, workdir: string, create: boolean): void {
  for (const point of [...ROOT_MOUNT_POINTS, workdir]) {
    const parts = posix.normalize(point).split('/').filter((p) => p !== '');
    for (let i = 1; i <= parts.length; i++) {
      const sub = `/${parts.slice(0, i).join('/')}`;
      const st = lstatSync(join(root, sub), { throwIfNoEntry: false });
      if (st?.isDirectory()) continue;
      const fail = (why: string): never => {
        throw new FrognanoError(ErrorCode.SANDBOX_UNAVAILABLE, `the image ${root} cannot be the sandbox's root: mount point ${point} ${why}`, { fn: 'sandbox', field: 'environment.image' });
      };
      if (st !== undefined) fail(`is not a folder (${sub} is ${st.isSymbolicLink() ? 'a symbolic link' : 'not a folder'})`);
      if (!create) fail('is missing (the image must contain it as an empty folder)');
      try {
        mkdirSync(join(root, sub), { mode: 0o755 });
      } catch (e) {
        fail(`is missing and cannot be created (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
      }
    }
  }
}

/**
 * Checks that the sandbox user `owner` (frognano runs as root and bwrap as nobody) can
 * reach the image folder `root`: every folder from `/` down to it searchable by that user
 * (an image cache under root's home, or made 0700, is not).
 * @throws FrognanoError `SANDBOX_UNAVAILABLE` naming the first folder it cannot pass
 * @internal
 */
export function checkReachable(root: string, owner: { uid: number; gid: number }): void {
  const parts = root.split('/').filter((p) => p !== '');
  for (let i = 0; i <= parts.length; i++) {
    const dir = `/${parts.slice(0, i).join('/')}`;
    const st = lstatSync(dir, { throwIfNoEntry: false });
    if (st === undefined) continue; // bwrap says it is missing
    const bits = st.uid === owner.uid ? 0o100 : st.gid === owner.gid ? 0o010 : 0o001;
    if ((st.mode & bits) === 0) {
      throw new FrognanoError(ErrorCode.SANDBOX_UNAVAILABLE, `the image ${root} is out of the sandbox user's reach (uid ${owner.uid}): ${dir} is mode ${(st.mode & 0o777).toString(8)}; make the folders down to the image searchable by all (chmod o+x) or keep images elsewhere`, { fn: 'sandbox.run', field: 'image' });
    }
  }
}
