import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve, sep } from 'node:path';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
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

const versionCache = new Map<string, [number, number, number] | null>();
/** bubblewrap's version (`bwrap --version`), or null when it does not say. @internal */
export function bwrapVersion(bwrap: string): [number, number, number] | null {
  if (versionCache.has(bwrap)) return versionCache.get(bwrap)!;
  const r = spawnSync(bwrap, ['--version'], { encoding: 'utf8', timeout: 5000 });
  const m = /(\d+)\.(\d+)(?:\.(\d+))?/.exec(r.stdout ?? '');
  const v: [number, number, number] | null = m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : null;
  versionCache.set(bwrap, v);
  return v;
}

/** True when `bwrap` has `--disable-userns` (0.8.0 and later): nested user namespaces can then be refused. @internal */
export function canDisableUserns(bwrap: string): boolean {
  const v = bwrapVersion(bwrap);
  return v !== null && (v[0] > 0 || v[1] >= 8);
}

/** True when `dir` is `p` or one of its ancestors (both absolute, normalised). @internal */
export function containsPath(dir: string, p: string): boolean {
  const d = resolve(dir);
  const q = resolve(p);
  return q === d || q.startsWith(d === sep ? sep : d + sep);
}

/**
 * Refuses a read-only bind that would expose what the sandbox must never see
 * (SPEC §12; issue 20 #7): a folder that is or contains the user's home, the
 * tasks file (hidden tests) or the workspace folder (other episodes' copies).
 * @throws FrognanoError `SANDBOX_UNAVAILABLE` naming the path and what it contains
 * @internal
 */
export function checkBind(path: string, protectedPaths: readonly { path: string; what: string }[]): void {
  for (const p of protectedPaths) {
    if (containsPath(path, p.path)) {
      throw new FrognanoError(ErrorCode.SANDBOX_UNAVAILABLE, `refusing to bind ${path} into the sandbox: it contains ${p.what} (${p.path})`, { fn: 'createSandbox', field: 'readOnlyPaths' });
    }
  }
}

/** Binds of the read-only system part of the sandbox's root: `/usr`, `/etc` and the `/bin`, `/lib*` tops (links recreated as links). @internal */
export function systemBinds(): string[] {
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
  return args;
}

/**
 * Binds of `extra` host paths read-only at the same path (skipped when missing;
 * paths under `/usr` are already there). The caller places them after the tmpfs
 * mounts, so that a path under `/tmp` is not hidden by the private `/tmp`. @internal
 */
export function extraBinds(extra: readonly string[]): string[] {
  return extra.filter((p) => !p.startsWith('/usr/')).flatMap((p) => ['--ro-bind-try', p, p]);
}

/** What of the running node the sandbox gets when node lives outside /usr: paths to bind read-only, links to recreate, the folder to put on PATH. @internal */
export interface NodeBinds {
  /** Files and folders bound read-only at the same path. */
  binds: string[];
  /** `[target, link]` pairs recreated as symbolic links (`npm`, `npx` next to `node`). */
  links: [string, string][];
  /** The folder holding `node`, put first on PATH. */
  binDir: string;
}

/**
 * The parts of node's install prefix (nvm, volta, a tarball under `~/bin`) that
 * commands need, and nothing else: the `node` executable itself, and npm and
 * corepack (`<prefix>/lib/node_modules/{npm,corepack}` with their `bin/` links).
 * Binding the whole prefix would bind a home folder when node is `~/bin/node`
 * (ssh keys, the tasks file with its hidden tests: issue 20 #7). Null when node
 * lives in `/usr` or `/usr/local/bin` (already visible).
 * @internal
 */
export function nodeBinds(execPath = process.execPath): NodeBinds | null {
  const binDir = dirname(execPath);
  const prefix = dirname(binDir);
  if (prefix === '/usr' || prefix === '/' || binDir.startsWith('/usr/')) return null;
  const out: NodeBinds = { binds: [execPath], links: [], binDir };
  for (const pkg of ['npm', 'corepack']) {
    const dir = join(prefix, 'lib', 'node_modules', pkg);
    if (existsSync(dir)) out.binds.push(dir);
  }
  for (const name of ['npm', 'npx', 'corepack']) {
    const link = join(binDir, name);
    try {
      if (lstatSync(link).isSymbolicLink()) {
        const target = readlinkSync(link);
        // only links into the bound packages (nvm's `npm -> ../lib/node_modules/npm/bin/npm-cli.js`)
        if (out.binds.some((b) => b !== execPath && containsPath(b, resolve(binDir, target)))) out.links.push([target, link]);
      }
    } catch {
      // not there
    }
  }
  return out;
}

/** `/proc` files that are host-wide counters (a covert channel between concurrent episodes: issue 20 #11), each replaced by a fixed view. @internal */
export function procViews(memoryMB: number, cpus: number): Record<string, string> {
  const kb = memoryMB * 1024;
  const meminfo = [
    `MemTotal:       ${kb} kB`,
    `MemFree:        ${kb} kB`,
    `MemAvailable:   ${kb} kB`,
    'Buffers:               0 kB',
    'Cached:                0 kB',
    'SwapCached:            0 kB',
    'Active:                0 kB',
    'Inactive:              0 kB',
    'SwapTotal:             0 kB',
    'SwapFree:              0 kB',
    'Dirty:                 0 kB',
    'Shmem:                 0 kB',
    '',
  ].join('\n');
  const cpuLines = ['cpu  0 0 0 0 0 0 0 0 0 0', ...Array.from({ length: cpus }, (_, i) => `cpu${i} 0 0 0 0 0 0 0 0 0 0`)];
  const stat = [...cpuLines, 'intr 0', 'ctxt 0', 'btime 0', 'processes 1', 'procs_running 1', 'procs_blocked 0', 'softirq 0', ''].join('\n');
  return { '/proc/loadavg': '0.00 0.00 0.00 1/1 1\n', '/proc/meminfo': meminfo, '/proc/stat': stat, '/proc/vmstat': '' };
}
