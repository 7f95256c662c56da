/**
 * The parts of an image's config that fill a task's environment (SPEC §14
 * "Environments"): `Env` (`NAME=value`, split at the first `=`), `WorkingDir`
 * and `User`; and `rootfs.diff_ids`, the digests of the uncompressed layers.
 * @module
 */
import { z } from 'zod';
import { imageError } from './imageError.js';

/** What an image's config says about the processes run in it. */
export interface ImageConfig {
  /** The config's `Env`, `NAME=value` split at the first `=` (a later duplicate wins). */
  env: Record<string, string>;
  /** The config's `WorkingDir`, when set. */
  workdir?: string;
  /** The config's `User`, when set. */
  user?: string;
}

const ConfigSchema = z.object({
  config: z
    .object({
      Env: z.array(z.string()).nullish(),
      WorkingDir: z.string().nullish(),
      User: z.string().nullish(),
    })
    .nullish(),
  rootfs: z.object({ diff_ids: z.array(z.string()).nullish() }).nullish(),
});

/** The config's environment and its layers' uncompressed digests (`IMAGE_INVALID` naming `where` when malformed). */
export function parseImageConfig(value: unknown, where: string): { config: ImageConfig; diffIds: string[] } {
  const r = ConfigSchema.safeParse(value);
  if (!r.success) throw imageError(`${where}: not an image config (${r.error.issues[0]?.path.join('.')}: ${r.error.issues[0]?.message})`);
  const c = r.data.config ?? {};
  const env: Record<string, string> = {};
  for (const kv of c.Env ?? []) {
    const i = kv.indexOf('=');
    if (i > 0) env[kv.slice(0, i)] = kv.slice(i + 1);
  }
  const config: ImageConfig = { env };
  if (c.WorkingDir) config.workdir = c.WorkingDir;
  if (c.User) config.user = c.User;
  return { config, diffIds: r.data.rootfs?.diff_ids ?? [] };
}
