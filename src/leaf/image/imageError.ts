/**
 * The one error the image import throws for a bad image (SPEC §14 "Environments").
 * @module
 */
import { ErrorCode, FrognanoError } from '../../errors/index.js';

/** `IMAGE_INVALID` from `importImage`, the message naming the file, layer and entry at fault. */
export function imageError(message: string, cause?: unknown): FrognanoError {
  return new FrognanoError(ErrorCode.IMAGE_INVALID, message, { fn: 'importImage', ...(cause === undefined ? {} : { cause }) });
}

/** Rethrows a FrognanoError as is; wraps anything else (a fs or stream error) as `IMAGE_INVALID` with `where` in front. */
export function asImageError(e: unknown, where: string): FrognanoError {
  if (e instanceof FrognanoError) return e;
  const reason = e instanceof Error ? e.message : String(e);
  return imageError(`${where}: ${reason}`, e);
}
