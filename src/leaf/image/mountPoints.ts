/**
 * The mount points the sandbox binds over an image's root (SPEC §14
 * "Environments": "The import adds the mount points the sandbox needs (/proc,
 * /dev, /tmp, workdir) when the image lacks them"): created as empty folders
 * (mode 0755, /tmp 1777) where missing. A path the image already has (a
 * folder, or a symlink the sandbox resolves inside the image) is left as it
 * is, and so is one below a symlink (never followed here).
 * @module
 */
import { chmod, lstat, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { FrognanoError } from '../../errors/index.js';
import { entryComponents, safeFolder } from './entryPath.js';

/** Creates `path` (absolute inside the image) under `root` when it is missing; false when left as it was. */
export async function ensureMountPoint(root: string, path: string): Promise<boolean> {
  const comps = entryComponents(path, `mount point ${path}`);
  if (comps.length === 0) return false;
  let parent: string | undefined;
  try {
    parent = await safeFolder(root, comps.slice(0, -1), true, `mount point ${path}`);
  } catch (e) {
    if (e instanceof FrognanoError) return false;
    throw e;
  }
  const target = join(parent!, comps[comps.length - 1]!);
  if (await lstat(target).catch(() => null)) return false;
  await mkdir(target);
  await chmod(target, path === '/tmp' ? 0o1777 : 0o755);
  return true;
}

/** `/proc`, `/dev`, `/tmp` and `workdir` (when given) under `root`, where missing. */
export async function addMountPoints(root: string, workdir?: string): Promise<void> {
  for (const p of ['/proc', '/dev', '/tmp', ...(workdir ? [workdir] : [])]) await ensureMountPoint(root, p);
}
