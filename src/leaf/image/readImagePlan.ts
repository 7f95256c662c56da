/**
 * What an image source holds (SPEC §14 "Environments"): its manifest digest
 * (the cache key), its config and its layers in order. Two formats:
 *
 * - OCI (an image layout folder, an OCI archive, and the `docker save` of
 *   Docker 25+, which writes `index.json` beside `manifest.json`): `index.json`
 *   -> manifest, an index inside an index followed (the only entry, else the
 *   `linux/amd64` one). The digest is the sha256 of the manifest's bytes; every
 *   blob is checked against its descriptor's digest.
 * - `docker save` before Docker 25 (only `manifest.json`; one image): there is
 *   no manifest blob, so the digest is the sha256 of the canonical manifest
 *   derived from the config: the bytes of
 *   `{"schemaVersion":2,"config":"sha256:<config sha256>","layers":[<diff_ids>]}`
 *   (JSON, no spaces). Each layer is checked against the config's `diff_ids`.
 *
 * The same image in the two formats thus has two digests.
 * @module
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { LayerSource } from './applyLayer.js';
import { type BlobStore, readJson, requireBlob } from './blobStore.js';
import { type ImageConfig, parseImageConfig } from './imageConfig.js';
import { imageError } from './imageError.js';

/** An image source read: its digest, config and layers. */
export interface ImagePlan {
  /** `sha256:<hex>`: the manifest digest (see the module's doc for `docker save` without a manifest). */
  digest: string;
  config: ImageConfig;
  layers: LayerSource[];
}

const DIGEST = /^sha256:[a-f0-9]{64}$/;
const DescriptorSchema = z.object({
  mediaType: z.string().optional(),
  digest: z.string(),
  size: z.number().int().min(0),
  platform: z.object({ architecture: z.string(), os: z.string() }).optional(),
});
type Descriptor = z.infer<typeof DescriptorSchema>;
const IndexSchema = z.object({ manifests: z.array(DescriptorSchema) });
const ManifestSchema = z.object({ config: DescriptorSchema, layers: z.array(DescriptorSchema) });
const DockerManifestSchema = z.array(z.object({ Config: z.string(), Layers: z.array(z.string()), RepoTags: z.array(z.string()).nullish() }));

const sha256 = (b: Buffer | string): string => `sha256:${createHash('sha256').update(b).digest('hex')}`;

/** `value` parsed by `schema`, else `IMAGE_INVALID` naming `where` and the first issue. */
function parse<T>(schema: z.ZodType<T>, value: unknown, where: string, what: string): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const i = r.error.issues[0]!;
  throw imageError(`${where}: not ${what} (${i.path.join('.') || 'the document'}: ${i.message})`);
}

/** The blob path of a descriptor (`IMAGE_INVALID` for a digest that is not sha256). */
function blobPath(store: BlobStore, d: Descriptor): string {
  if (!DIGEST.test(d.digest)) throw imageError(`${store.label}: unsupported or malformed digest ${JSON.stringify(d.digest)} (sha256:<64 hex> expected)`);
  return `blobs/sha256/${d.digest.slice(7)}`;
}

/** A JSON blob, its bytes checked against the descriptor. */
async function readDescribed(store: BlobStore, d: Descriptor): Promise<{ bytes: Buffer; value: unknown }> {
  const path = blobPath(store, d);
  const r = await readJson(store, path);
  if (sha256(r.bytes) !== d.digest) throw imageError(`${store.label}: ${path}: digest mismatch (the bytes are ${sha256(r.bytes)})`);
  return r;
}

/** The one manifest an index names: the only one, else the `linux/amd64` one. */
function pickManifest(store: BlobStore, manifests: Descriptor[], where: string): Descriptor {
  if (manifests.length === 1) return manifests[0]!;
  const amd64 = manifests.filter((m) => m.platform?.os === 'linux' && m.platform.architecture === 'amd64');
  if (amd64.length >= 1) return amd64[0]!;
  const platforms = manifests.map((m) => (m.platform ? `${m.platform.os}/${m.platform.architecture}` : 'no platform')).join(', ');
  throw imageError(`${store.label}: ${where} lists ${manifests.length} manifests and none for linux/amd64 (${platforms})`);
}

/** Follows `index.json` (and indexes inside it) to the image manifest. */
async function findManifest(store: BlobStore): Promise<{ bytes: Buffer; value: unknown; digest: string }> {
  let where = 'index.json';
  let index: unknown = (await readJson(store, where)).value;
  for (let depth = 0; depth < 4; depth++) {
    const { manifests } = parse(IndexSchema, index, `${store.label}: ${where}`, 'an OCI image index');
    const d = pickManifest(store, manifests, where);
    const blob = await readDescribed(store, d);
    const isIndex = Array.isArray((blob.value as { manifests?: unknown })?.manifests);
    if (!isIndex) return { ...blob, digest: d.digest };
    where = blobPath(store, d);
    index = blob.value;
  }
  throw imageError(`${store.label}: indexes nested more than 4 deep`);
}

/** The plan of an OCI source (a layout, an OCI archive, a Docker 25+ `docker save`). */
export async function readOciPlan(store: BlobStore): Promise<ImagePlan> {
  const m = await findManifest(store);
  const manifest = parse(ManifestSchema, m.value, `${store.label}: ${m.digest}`, 'an image manifest');
  const { config } = parseImageConfig((await readDescribed(store, manifest.config)).value, `${store.label}: config ${manifest.config.digest}`);
  const layers: LayerSource[] = [];
  for (const d of manifest.layers) {
    const range = await requireBlob(store, blobPath(store, d));
    if (range.size !== d.size) throw imageError(`${store.label}: layer ${d.digest} is ${range.size} bytes, its descriptor says ${d.size}`);
    layers.push({ range, label: d.digest, check: { digest: d.digest, over: 'stored' } });
  }
  return { digest: m.digest, config, layers };
}

/** The plan of a `docker save` archive without `index.json` (Docker before 25, `skopeo copy docker-archive:`). */
export async function readDockerPlan(store: BlobStore): Promise<ImagePlan> {
  const images = parse(DockerManifestSchema, (await readJson(store, 'manifest.json')).value, `${store.label}: manifest.json`, 'a docker save manifest');
  if (images.length !== 1) throw imageError(`${store.label}: manifest.json lists ${images.length} images; an archive of exactly one is expected`);
  const image = images[0]!;
  const cfg = await readJson(store, image.Config);
  const { config, diffIds } = parseImageConfig(cfg.value, `${store.label}: ${image.Config}`);
  if (diffIds.length !== image.Layers.length || !diffIds.every((d) => DIGEST.test(d))) {
    throw imageError(`${store.label}: ${image.Config}: rootfs.diff_ids has ${diffIds.length} sha256 digests for ${image.Layers.length} layers`);
  }
  const layers: LayerSource[] = [];
  for (const [i, path] of image.Layers.entries()) {
    layers.push({ range: await requireBlob(store, path), label: `${path} (${diffIds[i]})`, check: { digest: diffIds[i]!, over: 'uncompressed' } });
  }
  const canonical = JSON.stringify({ schemaVersion: 2, config: sha256(cfg.bytes), layers: diffIds });
  return { digest: sha256(canonical), config, layers };
}

/** The plan of any source: OCI when it has `index.json`, else `docker save` when it has `manifest.json`. */
export async function readImagePlan(store: BlobStore): Promise<ImagePlan> {
  if (await store.find('index.json')) return readOciPlan(store);
  if (await store.find('manifest.json')) return readDockerPlan(store);
  throw imageError(`${store.label}: neither index.json nor manifest.json: not an image archive (docker save, OCI archive) or OCI layout`);
}
