/**
 * Applies one layer to a root filesystem being built (SPEC §14 "Environments",
 * the OCI image spec's layer rules): entries in tar order; `.wh.NAME` deletes
 * NAME of the lower layers, `.wh..wh..opq` empties its folder of the lower
 * layers' content; regular files, folders, symlinks (target kept verbatim,
 * even absolute: it is resolved inside the image at run time) and hard links
 * (target inside the root, already unpacked) are written; device nodes, fifos
 * and unknown types are skipped and counted. Modes keep their permission and
 * sticky bits, setuid/setgid are stripped; folders also get owner rwx (so later
 * entries can be written); owners are not kept (the sandbox maps one user);
 * regular files keep their mtime. Nothing is followed: every parent is
 * checked by {@link safeFolder}, a file is created with `O_EXCL | O_NOFOLLOW`.
 *
 * Bounds (over all layers, see {@link UnpackLimits}): `maxBytes` counts every
 * entry that takes disk: a regular file its declared size (checked from its
 * header, before its data is read), a folder, symlink or hard link
 * {@link ENTRY_CHARGE} bytes plus its link target's length. The tar streams
 * themselves (decompressed) may hold at most `maxBytes` plus
 * {@link TAR_LAYER_ALLOWANCE} per layer and {@link TAR_ENTRY_ALLOWANCE} per
 * entry read (headers, long-name and pax records, padding): a compression bomb
 * (zeros after the archive's end, say) stops there, its decompression cut
 * short. A layer refused that way fails before its digest is checked; that is
 * fine, as the import fails anyway.
 * @module
 */
import { constants } from 'node:fs';
import { chmod, type FileHandle, link, lstat, mkdir, open, readdir, rm, symlink } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { type Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { extract, type Header } from 'tar-stream';
import { FrognanoError } from '../../errors/index.js';
import { type BlobRange, openRange } from './blobStore.js';
import { entryComponents, safeFolder } from './entryPath.js';
import { imageError } from './imageError.js';
import { describeStreamError, type LayerDigestCheck, layerTransforms } from './layerStream.js';

/** What a folder, symlink or hard link entry counts against `maxBytes` (one block), besides its link target's length. */
export const ENTRY_CHARGE = 4096;
/** The decompressed tar bytes allowed per layer beyond `maxBytes` (the end-of-archive blocks, a blocking factor's padding, the read-ahead). */
export const TAR_LAYER_ALLOWANCE = 1024 * 1024;
/** The decompressed tar bytes allowed per entry beyond `maxBytes` (its header, long-name or pax records, padding). */
export const TAR_ENTRY_ALLOWANCE = 16 * 1024;

/** The limits of one import, over all its layers. */
export interface UnpackLimits {
  /**
   * Most bytes the unpacked root may take: each regular file's declared size
   * (checked before its data is read) plus {@link ENTRY_CHARGE} and the link
   * target's length per folder, symlink or hard link. The decompressed tar
   * streams may hold this plus the allowances ({@link TAR_LAYER_ALLOWANCE},
   * {@link TAR_ENTRY_ALLOWANCE}).
   */
  maxBytes: number;
  /** Most tar entries in all. */
  maxEntries: number;
}

/** What the layers wrote so far (updated in place). */
export interface UnpackTotals {
  entries: number;
  files: number;
  /** Bytes of file content written. */
  bytes: number;
  /** Bytes counted against `maxBytes` (file content, plus {@link ENTRY_CHARGE} and the target's length per folder or link). */
  charged: number;
  /** Decompressed tar bytes read, all layers together. */
  tarBytes: number;
  /** Layers started. */
  layers: number;
  skipped: number;
}

/** One layer to apply: where its bytes lie, the digest to check, its name in messages. */
export interface LayerSource {
  range: BlobRange;
  label: string;
  check?: LayerDigestCheck;
}

/** The state of one layer's application. */
interface LayerContext {
  root: string;
  limits: UnpackLimits;
  totals: UnpackTotals;
  /** Entries this layer wrote (relative paths): an opaque whiteout keeps them. */
  written: Set<string>;
}

/** Applies `layer` to `root` (absolute, a folder this import owns); `IMAGE_INVALID` naming the layer and the entry. */
export async function applyLayer(root: string, layer: LayerSource, limits: UnpackLimits, totals: UnpackTotals): Promise<void> {
  const ctx: LayerContext = { root, limits, totals, written: new Set() };
  const where = `layer ${layer.label}`;
  totals.layers++;
  const ex = extract();
  const cap = tarCap(ctx, where);
  const stages = [openRange(layer.range), ...(await layerTransforms(layer.range, layer.check, where)), cap.stream, ex as unknown as NodeJS.WritableStream];
  const piping = pipeline(stages);
  piping.catch(() => {});
  try {
    for await (const entry of ex) {
      const name = entry.header.name;
      try {
        await applyEntry(ctx, entry.header, entry as unknown as Readable, `${where}: entry ${JSON.stringify(name)}`);
      } catch (e) {
        if (e instanceof FrognanoError) throw e;
        throw imageError(`${where}: entry ${JSON.stringify(name)}: ${describeStreamError(e)}`, e);
      }
    }
    await piping;
  } catch (e) {
    // past the cap, the entry being read fails as a cut-off stream: the cap's own error says why
    if (cap.error) throw cap.error;
    if (e instanceof FrognanoError) throw e;
    throw imageError(`${where}: ${describeStreamError(e)}`, e);
  }
}

/** The most decompressed tar bytes the import may read so far: `maxBytes` plus the allowances of the layers started and the entries read. */
const tarLimit = (ctx: LayerContext): number => ctx.limits.maxBytes + TAR_LAYER_ALLOWANCE * ctx.totals.layers + TAR_ENTRY_ALLOWANCE * ctx.totals.entries;

/** A pass-through counting the decompressed tar bytes; past {@link tarLimit} it fails (and the decompression upstream stops). */
function tarCap(ctx: LayerContext, where: string): { stream: Transform; error?: FrognanoError } {
  const cap: { stream: Transform; error?: FrognanoError } = {
    stream: new Transform({
      transform(chunk: Buffer, _enc, cb: TransformCallback) {
        ctx.totals.tarBytes += chunk.length;
        const limit = tarLimit(ctx);
        if (ctx.totals.tarBytes <= limit) return cb(null, chunk);
        cap.error = imageError(
          `${where}: the layers' tar data (decompressed) passes ${limit} bytes: more than opts.maxBytes (${ctx.limits.maxBytes}) allows with ${TAR_LAYER_ALLOWANCE} per layer and ${TAR_ENTRY_ALLOWANCE} per entry for headers and padding (a compression bomb?)`,
        );
        cb(cap.error);
      },
    }),
  };
  return cap;
}

/** Counts `n` bytes of `what` against `maxBytes`, else `IMAGE_INVALID` (nothing is written then). */
function charge(ctx: LayerContext, n: number, what: string, where: string): void {
  const { maxBytes } = ctx.limits;
  if (n > maxBytes - ctx.totals.charged) {
    throw imageError(
      `${where}: ${what} (${n} bytes) would take the image past its limit of ${maxBytes} bytes (opts.maxBytes; ${ctx.totals.charged} already counted: file content, plus ${ENTRY_CHARGE} per folder or link and the link's target)`,
    );
  }
  ctx.totals.charged += n;
}

/** Reads an entry's data to its end (entries that write none). */
async function drain(data: Readable): Promise<void> {
  for await (const chunk of data) void chunk;
}

/** One tar entry. */
async function applyEntry(ctx: LayerContext, h: Header, data: Readable, where: string): Promise<void> {
  if (++ctx.totals.entries > ctx.limits.maxEntries) throw imageError(`${where}: more than ${ctx.limits.maxEntries} entries in the image (opts.maxEntries)`);
  const comps = entryComponents(h.name, where);
  const base = comps[comps.length - 1];
  if (base === undefined) return drain(data);
  if (base.startsWith('.wh.')) {
    await whiteout(ctx, comps, where);
    return drain(data);
  }
  if (await writeEntry(ctx, comps, h, data, where)) {
    for (let i = 1; i <= comps.length; i++) ctx.written.add(comps.slice(0, i).join('/'));
  }
}

/** Writes the entry by its type; false for a skipped one (device node, fifo, unknown type). */
async function writeEntry(ctx: LayerContext, comps: readonly string[], h: Header, data: Readable, where: string): Promise<boolean> {
  switch (h.type) {
    case 'file':
    case 'contiguous-file':
      await writeFile(ctx, comps, h, data, where);
      return true;
    case 'directory':
      charge(ctx, ENTRY_CHARGE, 'a folder', where);
      await makeFolder(ctx, comps, h, where);
      break;
    case 'symlink':
      charge(ctx, ENTRY_CHARGE + Buffer.byteLength(h.linkname ?? ''), 'a symlink', where);
      await makeSymlink(ctx, comps, h, where);
      break;
    case 'link':
      charge(ctx, ENTRY_CHARGE + Buffer.byteLength(h.linkname ?? ''), 'a hard link', where);
      await makeHardLink(ctx, comps, h, where);
      break;
    default:
      ctx.totals.skipped++;
      await drain(data);
      return false;
  }
  await drain(data);
  return true;
}

/** The permission bits kept: rwx and sticky; setuid and setgid stripped. */
const keptMode = (mode: number): number => mode & 0o1777;

/** The absolute path of the entry, its parents created and checked; whatever lay there removed (not followed). */
async function prepareTarget(ctx: LayerContext, comps: readonly string[], where: string, keepFolder = false): Promise<string> {
  const parent = (await safeFolder(ctx.root, comps.slice(0, -1), true, where))!;
  const target = join(parent, comps[comps.length - 1]!);
  const st = await lstat(target).catch(() => null);
  if (st && !(keepFolder && st.isDirectory())) await rm(target, { recursive: true, force: true });
  return target;
}

/** A regular file: its size checked against the limit before any byte is read. */
async function writeFile(ctx: LayerContext, comps: readonly string[], h: Header, data: Readable, where: string): Promise<void> {
  charge(ctx, h.size ?? 0, 'a file', where);
  const target = await prepareTarget(ctx, comps, where);
  const fh = await open(target, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    await fh.chmod(keptMode(h.mode ?? 0o644));
    for await (const chunk of data) await writeAll(fh, chunk as Buffer);
    if (h.mtime) await fh.utimes(h.mtime, h.mtime);
  } finally {
    await fh.close();
  }
  ctx.totals.bytes += h.size;
  ctx.totals.files++;
}

/** Writes all of `buf` at the handle's position (a write may be partial). */
async function writeAll(fh: FileHandle, buf: Buffer): Promise<void> {
  for (let off = 0; off < buf.length; ) off += (await fh.write(buf, off, buf.length - off)).bytesWritten;
}

/** A folder (an existing one keeps its content; its mode is updated). */
async function makeFolder(ctx: LayerContext, comps: readonly string[], h: Header, where: string): Promise<void> {
  const target = await prepareTarget(ctx, comps, where, true);
  await mkdir(target, { mode: 0o700 }).catch((e: NodeJS.ErrnoException) => {
    if (e.code !== 'EEXIST') throw e;
  });
  await chmod(target, keptMode(h.mode ?? 0o755) | 0o700);
  ctx.totals.files++;
}

/** A symlink, its target kept verbatim (never followed here). */
async function makeSymlink(ctx: LayerContext, comps: readonly string[], h: Header, where: string): Promise<void> {
  if (h.linkname.includes('\0')) throw imageError(`${where}: the symlink target holds a NUL byte`);
  await symlink(h.linkname, await prepareTarget(ctx, comps, where));
  ctx.totals.files++;
}

/** A hard link to an entry already unpacked inside the root (not a folder). */
async function makeHardLink(ctx: LayerContext, comps: readonly string[], h: Header, where: string): Promise<void> {
  let to: string[];
  try {
    to = entryComponents(h.linkname, where);
  } catch {
    throw imageError(`${where}: the hard link target ${JSON.stringify(h.linkname)} leaves the root`);
  }
  const parent = to.length ? await safeFolder(ctx.root, to.slice(0, -1), false, `${where}: hard link target`) : undefined;
  const source = parent && join(parent, to[to.length - 1]!);
  const st = source ? await lstat(source).catch(() => null) : null;
  if (!source || !st) throw imageError(`${where}: the hard link target ${JSON.stringify(h.linkname)} is not unpacked (a link must follow its target)`);
  if (st.isDirectory()) throw imageError(`${where}: the hard link target ${JSON.stringify(h.linkname)} is a folder`);
  if (posix.join(...to) === comps.join('/')) return;
  await link(source, await prepareTarget(ctx, comps, where));
  ctx.totals.files++;
}

/** `.wh.NAME` removes NAME of the lower layers; `.wh..wh..opq` empties its folder of them; other `.wh..wh.*` are ignored. */
async function whiteout(ctx: LayerContext, comps: readonly string[], where: string): Promise<void> {
  const base = comps[comps.length - 1]!;
  const parentComps = comps.slice(0, -1);
  if (base === '.wh..wh..opq') return opaque(ctx, parentComps, where);
  if (base.startsWith('.wh..wh.')) return;
  const name = base.slice(4);
  if (name === '' || name === '.' || name === '..') throw imageError(`${where}: a whiteout of ${JSON.stringify(name)} is refused`);
  const parent = await safeFolder(ctx.root, parentComps, false, where);
  if (parent !== undefined) await rm(join(parent, name), { recursive: true, force: true });
}

/** Empties the folder `comps` of what the lower layers put there (this layer's entries stay). */
async function opaque(ctx: LayerContext, comps: readonly string[], where: string): Promise<void> {
  const dir = await safeFolder(ctx.root, comps, false, where);
  if (dir === undefined) return;
  for (const child of await readdir(dir)) {
    if (!ctx.written.has([...comps, child].join('/'))) await rm(join(dir, child), { recursive: true, force: true });
  }
}
