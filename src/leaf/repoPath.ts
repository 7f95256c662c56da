import { lstat, readlink } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { SANDBOX_REPO_ROOT } from './sandbox.js';

/** Where a file tool may act: the host folder of the repo copy and the names the agent may use for it. */
export interface RepoRoot {
  /** The repo copy on the host. */
  host: string;
  /** Absolute prefixes that mean the repo root to the agent: `/repo` (the sandbox's view), and the host path itself (what `pwd` shows without a sandbox). */
  aliases: readonly string[];
}

/** The result of {@link resolveRepoPath}. */
export type ResolvedPath =
  | { ok: true; /** Path relative to the repo root, POSIX, '' for the root. */ rel: string; /** The host path to act on. */ host: string; /** Whether it exists (after following links). */ exists: boolean }
  | { ok: false; /** Why the path is refused, for the `Error:` tool message. */ reason: string };

const MAX_LINKS = 40;

/** Relative components of an absolute/relative agent path, or null when it names a place outside the repo. */
function toRelative(root: RepoRoot, p: string): string[] | null {
  let rest: string;
  if (p.startsWith('/')) {
    const alias = root.aliases.find((a) => p === a || p.startsWith(`${a}/`));
    if (alias === undefined) return null;
    rest = p.slice(alias.length);
  } else rest = p;
  const parts: string[] = [];
  for (const c of rest.split('/')) {
    if (c === '' || c === '.') continue;
    if (c === '..') {
      if (parts.length === 0) return null;
      parts.pop();
    } else parts.push(c);
  }
  return parts;
}

/**
 * Resolves a file-tool path (FrogNano §2 tools; SPEC §12) inside the repo copy
 * only: a relative path, or an absolute one under `/repo` (the sandbox's view of
 * the copy). The `..` written in the path are resolved first, by name (as a
 * shell's `cd` does, so `link/../a` is `a` even when `link` points into a
 * folder); then symbolic links are followed component by component as the
 * sandbox would see them (an absolute target `/repo/x` is the copy's `x`); a
 * path that leaves the copy at any step (`..` past the root, an absolute path
 * elsewhere, a link to `/etc`, a link chain over 40) is refused and nothing is
 * touched. The last component need not exist (a file to create); when it is a
 * dangling link, the link's target is what would be written, and it is checked too.
 */
export async function resolveRepoPath(root: RepoRoot, path: string): Promise<ResolvedPath> {
  if (typeof path !== 'string' || path.trim() === '') return { ok: false, reason: 'the path is empty' };
  if (path.includes('\0')) return { ok: false, reason: 'the path contains a NUL byte' };
  const outside = { ok: false as const, reason: `${path} is outside the repository (${SANDBOX_REPO_ROOT}); file tools only work inside it` };
  const start = toRelative(root, path.trim()); // blanks around a path are a model's slip, not a file name
  if (start === null) return outside;
  const pending = [...start];
  const done: string[] = [];
  let links = 0;
  while (pending.length) {
    const c = pending.shift()!;
    if (c === '..') {
      if (done.length === 0) return outside;
      done.pop();
      continue;
    }
    const host = join(root.host, ...done, c);
    let st;
    try {
      st = await lstat(host);
    } catch {
      // does not exist: the rest is created below the resolved part
      const rel = [...done, c, ...pending].join('/');
      if (pending.some((x) => x === '..')) return outside;
      return { ok: true, rel, host: join(root.host, rel), exists: false };
    }
    if (!st.isSymbolicLink()) {
      done.push(c);
      continue;
    }
    if (++links > MAX_LINKS) return { ok: false, reason: `${path}: too many levels of symbolic links` };
    const target = await readlink(host);
    let next: string[] | null;
    if (target.startsWith('/')) next = toRelative(root, posix.normalize(target));
    else next = [...done, ...target.split('/').filter((x) => x !== '' && x !== '.')];
    if (next === null) return { ok: false, reason: `${path} leads through a symbolic link to ${target}, outside the repository` };
    done.length = 0;
    pending.unshift(...next);
  }
  const rel = done.join('/');
  return { ok: true, rel, host: join(root.host, rel), exists: true };
}
