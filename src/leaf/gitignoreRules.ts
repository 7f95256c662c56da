import { readdir, readFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import ignore, { type Ignore } from 'ignore';

/**
 * The repository's own `.gitignore` rules as a predicate on relative paths
 * (SPEC §14: files the repo's `.gitignore` ignores and the agent's commands
 * created are left out of `diff` and listed in `ignoredChanges`). Every
 * `.gitignore` of the snapshot counts, each for the folder it sits in; the
 * deepest file that has a say (a match or a `!` negation) decides, as git does.
 * The rules are read with `ignore` (the `.gitignore` implementation eslint uses).
 * Only the snapshot's files count: a `.gitignore` the agent adds hides nothing.
 */
export type GitignorePredicate = (path: string) => boolean;

const cache = new Map<string, Promise<GitignorePredicate>>();

/** The predicate of the snapshot at `repoDir` (read once per folder and process). */
export function gitignoreOf(repoDir: string): Promise<GitignorePredicate> {
  let p = cache.get(repoDir);
  if (!p) {
    p = load(repoDir);
    cache.set(repoDir, p);
  }
  return p;
}

/** The folders (relative, `''` for the root) holding a `.gitignore`, below `root` (`.git` skipped). */
async function gitignoreDirs(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(join(root, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.isFile() && e.name === '.gitignore') out.push(rel);
      else if (e.isDirectory() && e.name !== '.git') await walk(rel === '' ? e.name : `${rel}/${e.name}`);
    }
  };
  await walk('');
  return out;
}

async function load(repoDir: string): Promise<GitignorePredicate> {
  const rules: { dir: string; ig: Ignore }[] = [];
  for (const dir of await gitignoreDirs(repoDir)) {
    const text = await readFile(join(repoDir, dir, '.gitignore'), 'utf8').catch(() => '');
    rules.push({ dir, ig: ignore().add(text) });
  }
  // deepest first: the nearest .gitignore with a say decides
  rules.sort((a, b) => b.dir.split('/').length - a.dir.split('/').length || (a.dir === '' ? 1 : 0) - (b.dir === '' ? 1 : 0));
  if (rules.length === 0) return () => false;
  return (path: string): boolean => {
    const p = posix.normalize(path);
    for (const { dir, ig } of rules) {
      if (dir !== '' && !p.startsWith(`${dir}/`)) continue;
      const rel = dir === '' ? p : p.slice(dir.length + 1);
      if (rel === '' || rel.startsWith('..')) continue;
      const t = ig.test(rel);
      if (t.ignored) return true;
      if (t.unignored) return false;
    }
    return false;
  };
}
