/**
 * Where a layer entry goes inside the root filesystem (SPEC §14 "Environments"),
 * without ever following a symlink. Entry names are read as the OCI image spec
 * reads them: relative to the root, a leading `/` (an absolute name) or `./`
 * ignored, so `/etc/x` lands at `<root>/etc/x`; a name whose `..` components
 * climb above the root is refused. Each parent component is checked with
 * `lstat`: a symlink (planted by an earlier entry or layer) or a file on the
 * way is refused, so nothing can be written through a link out of the root.
 * @module
 */
import { lstat, mkdir } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { imageError } from './imageError.js';

/** The path components of an entry name under the root (`[]`: the root itself); `IMAGE_INVALID` when it climbs out. */
export function entryComponents(name: string, where: string): string[] {
  if (name.includes('\0')) throw imageError(`${where}: the path holds a NUL byte`);
  const norm = posix.normalize(`./${name.replace(/^\/+/, '')}`);
  if (norm === '..' || norm.startsWith('../')) throw imageError(`${where}: the path leaves the root (${JSON.stringify(name)})`);
  return norm.split('/').filter((c) => c !== '' && c !== '.');
}

/**
 * The absolute folder `root/comps...`, walked component by component with
 * `lstat`. A missing folder is created (mode 0755) when `create`, else the walk
 * answers undefined. A symlink or a non-folder on the way is `IMAGE_INVALID`.
 */
export async function safeFolder(root: string, comps: readonly string[], create: boolean, where: string): Promise<string | undefined> {
  let dir = root;
  for (let i = 0; i < comps.length; i++) {
    dir = join(dir, comps[i]!);
    const shown = posix.join('/', ...comps.slice(0, i + 1));
    const st = await lstat(dir).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return null;
      throw e;
    });
    if (st === null) {
      if (!create) return undefined;
      await mkdir(dir, { mode: 0o755 });
    } else if (st.isSymbolicLink()) {
      throw imageError(`${where}: the path goes through the symlink ${shown}: refused, a symlink is never followed while unpacking`);
    } else if (!st.isDirectory()) {
      throw imageError(`${where}: ${shown} is not a folder`);
    }
  }
  return dir;
}
