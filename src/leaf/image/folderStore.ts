/**
 * An OCI image layout folder as a {@link BlobStore} (SPEC §14 "Environments"):
 * `oci-layout`, `index.json`, `blobs/<alg>/<hex>`. Only regular files are
 * members (a symlink in the layout is not followed).
 * @module
 */
import { lstat } from 'node:fs/promises';
import { join, posix } from 'node:path';
import type { BlobRange, BlobStore } from './blobStore.js';

/** The member paths a layout may hold: the two top files and content-addressed blobs. */
const MEMBER = /^(?:oci-layout|index\.json|manifest\.json|blobs\/[a-z0-9]+\/[a-zA-Z0-9=_-]+)$/;

/** The layout folder `dir` (absolute) as a store. */
export function folderStore(dir: string): BlobStore {
  return {
    label: dir,
    async find(path: string): Promise<BlobRange | undefined> {
      const p = posix.normalize(path);
      if (!MEMBER.test(p)) return undefined;
      const file = join(dir, ...p.split('/'));
      const st = await lstat(file).catch(() => null);
      return st?.isFile() ? { file, start: 0, size: st.size } : undefined;
    },
  };
}
