/**
 * Environment images (SPEC §14 "Environments"): import an image archive or OCI
 * layout into the content-addressed cache, list the cache.
 * @module
 */
export { importImage, listImages, ImportImageOptionsSchema, DEFAULT_IMAGE_MAX_BYTES, DEFAULT_IMAGE_MAX_ENTRIES } from './importImage.js';
export type { ImportImageOptions, ImageConfig, ImportedImage, CachedImage } from './importImage.js';
export { imageCacheDir } from './imageCache.js';
