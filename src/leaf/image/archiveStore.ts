/**
 * A tar archive (`docker save`, an OCI archive) as a {@link BlobStore} (SPEC §14
 * "Environments"): one pass with tar-stream records where each member's bytes
 * lie; members are then read in place by byte range. Symlinks and hard links
 * between members (`docker save` links repeated layers) are followed inside
 * the archive only.
 * @module
 */
import { createReadStream } from 'node:fs';
import { posix } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { extract } from 'tar-stream';
import type { BlobRange, BlobStore } from './blobStore.js';
import { asImageError, imageError } from './imageError.js';

/** One member of the archive: its data range, or the member it links to. */
interface Member {
  start: number;
  size: number;
  link?: string;
}

/** Most links followed from one name (a loop is refused). */
const MAX_LINK_DEPTH = 8;
/** Most members an image archive may have (its layers are members, not their files). */
const MAX_MEMBERS = 100_000;

/** A member name as a clean relative path (`./a//b` -> `a/b`). */
const clean = (name: string): string => posix.normalize(name.replace(/^\/+/, '')).replace(/^\.\/|\/$/g, '');

/** Reads the archive's table of members (one sequential pass; data skipped). */
async function indexArchive(file: string): Promise<Map<string, Member>> {
  const members = new Map<string, Member>();
  const ex = extract();
  const piping = pipeline(createReadStream(file, { highWaterMark: 1 << 20 }), ex as unknown as NodeJS.WritableStream);
  piping.catch(() => {});
  for await (const entry of ex) {
    const h = entry.header as typeof entry.header & { byteOffset: number };
    const name = clean(h.name);
    if (h.type === 'file' || h.type === 'contiguous-file') members.set(name, { start: h.byteOffset, size: h.size });
    else if (h.type === 'symlink') members.set(name, { start: 0, size: 0, link: posix.join(posix.dirname(name), h.linkname) });
    else if (h.type === 'link') members.set(name, { start: 0, size: 0, link: clean(h.linkname) });
    if (members.size > MAX_MEMBERS) throw imageError(`${file}: more than ${MAX_MEMBERS} members: not an image archive`);
    entry.resume();
  }
  await piping;
  return members;
}

/** The tar archive `file` (absolute) as a store; `IMAGE_INVALID` when it is not a readable tar. */
export async function archiveStore(file: string): Promise<BlobStore> {
  let members: Map<string, Member>;
  try {
    members = await indexArchive(file);
  } catch (e) {
    throw asImageError(e, `${file}: not a readable tar archive`);
  }
  return {
    label: file,
    async find(path: string): Promise<BlobRange | undefined> {
      let name = clean(path);
      for (let depth = 0; depth <= MAX_LINK_DEPTH; depth++) {
        const m = members.get(name);
        if (!m) return undefined;
        if (m.link === undefined) return { file, start: m.start, size: m.size };
        name = clean(m.link);
      }
      throw imageError(`${file}: ${path}: more than ${MAX_LINK_DEPTH} links between members`);
    },
  };
}
