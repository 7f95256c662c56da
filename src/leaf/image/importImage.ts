/**
 * `importImage`: an image archive or layout unpacked once into the
 * content-addressed cache (SPEC §14 "Environments"). Sources: a `docker save`
 * archive (the legacy `<id>/layer.tar` layout and Docker 25+'s
 * `blobs/sha256/...` with an OCI index), an OCI image layout folder
 * (`oci-layout`, `index.json`, `blobs/sha256/<hex>`) and an OCI archive (a tar
 * of such a layout). Layers may be plain tar, gzip or zstd (told by their
 * magic bytes). A plain folder without `oci-layout` is not an image: the
 * sandbox uses such a root folder in place.
 *
 * Limits (over all layers): `maxBytes` (default 8 GiB) bounds the disk the
 * root takes: each regular file counts its declared size (checked before its
 * data is read), each folder, symlink and hard link 4096 bytes plus its link
 * target's length; the decompressed tar streams may hold at most `maxBytes`
 * plus 1 MiB per layer and 16 KiB per entry (headers, padding), so a
 * compression bomb stops there; `maxEntries` tar entries (default 2,000,000);
 * `maxLayers` layers (default 500; Docker itself stops at 125). Any failure is `IMAGE_INVALID` naming the
 * source, the layer and the entry; the partial root is removed and nothing is
 * ever written outside the cache folder.
 * @module
 */
import { mkdir, rm, stat } from 'node:fs/promises';
import { join, posix, resolve } from 'node:path';
import { z } from 'zod';
import { parseOptions } from '../../errors/validate.js';
import { applyLayer, type UnpackTotals } from './applyLayer.js';
import { archiveStore } from './archiveStore.js';
import type { BlobStore } from './blobStore.js';
import { folderStore } from './folderStore.js';
import { type CachedImage, commitStaging, imageCacheDir, imageFolder, type ImportedImage, listCachedImages, makeStaging, readCachedImage } from './imageCache.js';
import { asImageError, imageError } from './imageError.js';
import { addMountPoints } from './mountPoints.js';
import { type ImagePlan, readImagePlan } from './readImagePlan.js';

export type { ImageConfig } from './imageConfig.js';
export type { CachedImage, ImportedImage } from './imageCache.js';

/** Default `maxBytes`: 8 GiB of file content. */
export const DEFAULT_IMAGE_MAX_BYTES = 8 * 1024 ** 3;
/** Default `maxEntries`: 2,000,000 tar entries. */
export const DEFAULT_IMAGE_MAX_ENTRIES = 2_000_000;
/** Default `maxLayers`: 500 layers (Docker's own limit is 125 or so; OCI images rarely pass 127). */
export const DEFAULT_IMAGE_MAX_LAYERS = 500;

/** Options of {@link importImage}. */
export const ImportImageOptionsSchema = z
  .object({
    /** The cache folder. Default `$FROGNANO_IMAGE_CACHE`, else `/var/cache/frognano/images` for root, else `$XDG_CACHE_HOME/frognano/images`, else `~/.cache/frognano/images`. */
    cacheDir: z.string().min(1).optional(),
    /**
     * Most bytes the root may take, all layers together: file content, plus 4096
     * per folder, symlink or hard link and its target's length (the decompressed
     * tar may hold this plus 1 MiB per layer and 16 KiB per entry). Default 8 GiB.
     */
    maxBytes: z.number().int().min(0).optional(),
    /** Most tar entries in all layers together. Default 2,000,000. */
    maxEntries: z.number().int().min(1).optional(),
    /** Most layers. Default 500. */
    maxLayers: z.number().int().min(1).optional(),
    /** An absolute path created as an empty folder in the root when missing (default: the config's `WorkingDir`). */
    workdir: z.string().startsWith('/').optional(),
  })
  .strict();
/** Options of {@link importImage} as the caller writes them. */
export type ImportImageOptions = z.input<typeof ImportImageOptionsSchema>;

/** Options of {@link listImages}. */
export const ListImagesOptionsSchema = z.object({ cacheDir: z.string().min(1).optional() }).strict();

const toImported = (c: CachedImage): ImportedImage => ({ root: c.root, digest: c.digest, config: c.config, source: c.source });

/** The store for `source`: a layout folder (with `oci-layout`) or an archive file. */
async function openSource(source: string): Promise<BlobStore> {
  const st = await stat(source).catch((e: NodeJS.ErrnoException) => {
    throw imageError(`${source}: cannot read the image (${e.code ?? e.message})`, e);
  });
  if (st.isFile()) return archiveStore(source);
  if (!st.isDirectory()) throw imageError(`${source}: not a file or a folder`);
  const layout = await stat(join(source, 'oci-layout')).catch(() => null);
  if (!layout?.isFile()) throw imageError(`${source}: a folder without oci-layout is not an image archive or OCI layout (a plain root folder is used in place, not imported)`);
  return folderStore(source);
}

/** Unpacks the plan's layers into a staging folder and commits it to the cache. */
async function unpack(cache: string, source: string, plan: ImagePlan, o: z.output<typeof ImportImageOptionsSchema>): Promise<CachedImage> {
  const maxLayers = o.maxLayers ?? DEFAULT_IMAGE_MAX_LAYERS;
  if (plan.layers.length > maxLayers) throw imageError(`${source}: ${plan.layers.length} layers, more than ${maxLayers} (opts.maxLayers)`);
  const staging = await makeStaging(cache, plan.digest);
  try {
    const root = join(staging, 'rootfs');
    await mkdir(root);
    const totals: UnpackTotals = { entries: 0, files: 0, bytes: 0, charged: 0, tarBytes: 0, layers: 0, skipped: 0 };
    const limits = { maxBytes: o.maxBytes ?? DEFAULT_IMAGE_MAX_BYTES, maxEntries: o.maxEntries ?? DEFAULT_IMAGE_MAX_ENTRIES };
    for (const layer of plan.layers) await applyLayer(root, layer, limits, totals);
    await addMountPoints(root, workdirOf(o.workdir ?? plan.config.workdir));
    const record = { digest: plan.digest, source, config: plan.config, layers: plan.layers.map((l) => l.check?.digest ?? l.label), bytes: totals.bytes, files: totals.files, importedAt: new Date().toISOString() };
    return await commitStaging(cache, staging, record);
  } catch (e) {
    await rm(staging, { recursive: true, force: true });
    throw asImageError(e, `${source}`);
  }
}

/** A workdir as an absolute normalized path (a relative `WorkingDir` is taken from `/`). */
const workdirOf = (w: string | undefined): string | undefined => (w ? posix.normalize(posix.join('/', w)) : undefined);

/**
 * Imports the image at `source` (an archive file or an OCI layout folder) into
 * the cache and returns its root filesystem, digest and config. An image
 * already cached (same manifest digest) is returned at once, without
 * unpacking (its workdir mount point added when `opts.workdir` asks for one).
 */
export async function importImage(source: string, opts?: ImportImageOptions): Promise<ImportedImage> {
  const o = parseOptions('importImage', ImportImageOptionsSchema, opts);
  const abs = resolve(source);
  const cache = imageCacheDir(o.cacheDir);
  const plan = await readImagePlan(await openSource(abs));
  const cached = await readCachedImage(imageFolder(cache, plan.digest));
  if (cached) {
    if (o.workdir) await addMountPoints(cached.root, workdirOf(o.workdir));
    return toImported(cached);
  }
  return toImported(await unpack(cache, abs, plan, o));
}

/** Every image in the cache (`opts.cacheDir`, else the default of {@link importImage}), by digest, with its record. */
export async function listImages(opts?: { cacheDir?: string }): Promise<CachedImage[]> {
  const o = parseOptions('listImages', ListImagesOptionsSchema, opts);
  return listCachedImages(imageCacheDir(o.cacheDir));
}
