import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Whether `p` is a regular file this process may execute. @internal */
export function isExecutable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** Where {@link findExecutable} looks. @internal */
export interface ExecutableLookup {
  /** A path the caller chose: used if executable, else nothing (never replaced by a search). */
  explicit?: string;
  /** The environment variable that names the executable (`FROGNANO_BWRAP`); like `explicit`, never replaced by a search. */
  envVar: string;
  /** The environment (`process.env`): `envVar` and `PATH`. */
  env: NodeJS.ProcessEnv;
  /** Absolute paths tried after PATH (standard locations when PATH is empty). Default none. */
  fallbacks?: readonly string[];
}

/**
 * Finds an external program the way the sandbox (bubblewrap) and the web judge
 * (Chromium) do: `explicit`, else `env[envVar]`, else the first of `names` found
 * in a `PATH` folder (names outer, folders inner), else the first executable of
 * `fallbacks`. Returns null when none is executable.
 * @internal
 */
export function findExecutable(names: readonly string[], at: ExecutableLookup): string | null {
  if (at.explicit !== undefined) return isExecutable(at.explicit) ? at.explicit : null;
  const named = at.env[at.envVar];
  if (named) return isExecutable(named) ? named : null;
  const dirs = (at.env.PATH ?? '').split(delimiter).filter((d) => d !== '');
  for (const name of names) for (const dir of dirs) if (isExecutable(join(dir, name))) return join(dir, name);
  return at.fallbacks?.find(isExecutable) ?? null;
}
