/**
 * The content-addressed cache of unpacked images (SPEC §14 "Environments").
 * Folder: `opts.cacheDir`, else `$FROGNANO_IMAGE_CACHE`, else
 * `/var/cache/frognano/images` for root (whose sandbox runs as nobody, who cannot pass `/root`), else
 * `$XDG_CACHE_HOME/frognano/images`, else `~/.cache/frognano/images`. Each image
 * is `<cache>/sha256-<hex>/` holding `rootfs/` and `image.json`
 * (`{ digest, source, config, layers, bytes, files, importedAt }`). An image is
 * unpacked into a temporary folder `<cache>/.tmp-<hex>-*` and renamed into
 * place in one step: of two imports of one image, one wins and the other
 * reuses its folder; a failed import leaves no temporary folder.
 * @module
 */
import { chmod, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import type { ImageConfig } from './imageConfig.js';

/** An image as `importImage` returns it. */
export interface ImportedImage {
  /** Absolute path of the unpacked root filesystem. */
  root: string;
  /** `sha256:<hex>`, the manifest digest. */
  digest: string;
  config: ImageConfig;
  /** The archive or layout it was imported from (absolute). */
  source: string;
}

/** A cached image with its `image.json` record. */
export interface CachedImage extends ImportedImage {
  /** The layers' digests, in order. */
  layers: string[];
  /** Bytes of file content unpacked. */
  bytes: number;
  /** Entries written (files, folders, links). */
  files: number;
  /** ISO time of the import. */
  importedAt: string;
}

const RecordSchema = z.object({
  digest: z.string().regex(/^sha256:[a-f0-9]{64}$/),
  source: z.string(),
  config: z.object({ env: z.record(z.string(), z.string()), workdir: z.string().optional(), user: z.string().optional() }),
  layers: z.array(z.string()),
  bytes: z.number(),
  files: z.number(),
  importedAt: z.string(),
});

/** The default cache folder of root (FHS's place for a system's caches): reachable by the sandbox user a root-started sandbox runs as. */
export const ROOT_IMAGE_CACHE = '/var/cache/frognano/images';

/** The cache folder (absolute) by the precedence above. */
export function imageCacheDir(cacheDir?: string): string {
  if (cacheDir) return resolve(cacheDir);
  if (process.env.FROGNANO_IMAGE_CACHE) return resolve(process.env.FROGNANO_IMAGE_CACHE);
  // root: a sandbox started by root runs as nobody, who cannot pass /root (mode 700): the system's cache folder instead
  if (typeof process.getuid === 'function' && process.getuid() === 0) return ROOT_IMAGE_CACHE;
  if (process.env.XDG_CACHE_HOME) return resolve(process.env.XDG_CACHE_HOME, 'frognano', 'images');
  return join(homedir(), '.cache', 'frognano', 'images');
}

/** The folder of the image `digest` in `cache`. */
export const imageFolder = (cache: string, digest: string): string => join(cache, digest.replace(':', '-'));

/** The cached image in `folder`, or undefined when there is none (or its record is unreadable). */
export async function readCachedImage(folder: string): Promise<CachedImage | undefined> {
  const text = await readFile(join(folder, 'image.json'), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const r = RecordSchema.safeParse(value);
  return r.success ? { ...r.data, root: join(folder, 'rootfs') } : undefined;
}

/** A fresh temporary folder for unpacking `digest` inside `cache` (created with the cache). */
export async function makeStaging(cache: string, digest: string): Promise<string> {
  await mkdir(cache, { recursive: true });
  return mkdtemp(join(cache, `.tmp-${digest.slice(7, 19)}-`));
}

/**
 * Writes `image.json` into `staging` and renames it to the image's folder;
 * when another import got there first, `staging` is removed and that one kept.
 */
export async function commitStaging(cache: string, staging: string, record: Omit<CachedImage, 'root'>): Promise<CachedImage> {
  await writeFile(join(staging, 'image.json'), `${JSON.stringify(record, null, 2)}\n`);
  // mkdtemp made it 0700: the sandbox user of a root-started sandbox must reach the rootfs inside
  await chmod(staging, 0o755);
  const folder = imageFolder(cache, record.digest);
  try {
    await rename(staging, folder);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw e;
    await rm(staging, { recursive: true, force: true });
    const other = await readCachedImage(folder);
    if (other) return other;
    throw e;
  }
  return { ...record, root: join(folder, 'rootfs') };
}

/** Every image of the cache, by digest. */
export async function listCachedImages(cache: string): Promise<CachedImage[]> {
  const names = await readdir(cache).catch(() => [] as string[]);
  const out: CachedImage[] = [];
  for (const n of names.filter((x) => /^sha256-[a-f0-9]{64}$/.test(x)).sort()) {
    const img = await readCachedImage(join(cache, n));
    if (img) out.push(img);
  }
  return out;
}
