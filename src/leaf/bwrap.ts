import { lstatSync, readlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import { findExecutable } from './findExecutable.js';

// Where bubblewrap is and what the sandbox's read-only root is made of.

/**
 * Finds bubblewrap: `explicit`, else `FROGNANO_BWRAP`, else `bwrap` on PATH,
 * else `/usr/bin/bwrap` or `/usr/local/bin/bwrap`.
 * Returns null when none is executable.
 */
export function findBwrap(explicit?: string, env: NodeJS.ProcessEnv = process.env): string | null {
  return findExecutable(['bwrap'], { explicit, envVar: 'FROGNANO_BWRAP', env, fallbacks: ['/usr/bin/bwrap', '/usr/local/bin/bwrap'] });
}

/** The `SANDBOX_UNAVAILABLE` message when no bubblewrap is found: what to install, or the unsafe way out. @internal */
export const MISSING_BWRAP =
  'the Leaf sandbox needs bubblewrap (`bwrap`): install the Debian/Ubuntu package `bubblewrap` (apt-get install bubblewrap; Fedora: dnf install bubblewrap), ' +
  'set FROGNANO_BWRAP to its path, or pass --unsafe-no-sandbox (UNSAFE: the model then runs commands on your machine unisolated)';

/** Binds of the read-only system part of the sandbox's root. @internal */
export function systemBinds(extra: readonly string[]): string[] {
  const args: string[] = ['--ro-bind', '/usr', '/usr'];
  for (const top of ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32']) {
    let st;
    try {
      st = lstatSync(top);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) args.push('--symlink', readlinkSync(top), top);
    else if (st.isDirectory()) args.push('--ro-bind', top, top);
  }
  args.push('--ro-bind', '/etc', '/etc');
  for (const p of extra) if (!p.startsWith('/usr/')) args.push('--ro-bind-try', p, p);
  return args;
}

/** The install prefix of the node running frognano when it is outside /usr (nvm, volta): bound so that `node` works inside. @internal */
export function nodePrefix(): string | null {
  const prefix = dirname(dirname(process.execPath));
  return prefix === '/usr' || prefix === '/usr/local' || prefix === '/' ? null : prefix;
}
