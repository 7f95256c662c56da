import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, posix } from 'node:path';
import { applyPatch, parsePatch } from 'diff';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';

/** Strips git's `a/` / `b/` prefix; `/dev/null` is null. */
function patchPath(name: string | undefined): string | null {
  if (name === undefined || name === '' || name === '/dev/null') return null;
  const p = name.split('\t')[0]!.trim();
  return /^[ab]\//.test(p) ? p.slice(2) : p;
}

/** A relative path that stays inside the tree, or null. */
function safeRelative(p: string): string | null {
  const n = posix.normalize(p);
  if (n.startsWith('/') || n === '..' || n.startsWith('../') || n === '.' || n.includes('\0')) return null;
  return n;
}

/**
 * Applies a unified diff (`git diff` / `diff -u` output, several files, new and
 * deleted files included) to the folder `dir`, as `git apply` would: every
 * hunk must match (exact context, no fuzz), and paths must stay inside `dir`.
 * Used by `validateLeafTasks` to apply a task's `referencePatch`.
 *
 * @returns the relative paths written or deleted
 * @throws FrognanoError `INVALID_TYPE` when the text is not a diff or a path leaves `dir`;
 *   `OUT_OF_RANGE` when a hunk does not apply, or for a binary change (`Binary files ... differ`:
 *   a text diff does not carry the bytes), naming the file
 */
export async function applyUnifiedDiff(dir: string, patch: string): Promise<string[]> {
  const fn = 'applyUnifiedDiff';
  // A text diff only says a binary file changed, not how: refuse, as `git apply` does without its full index
  const binary = /^Binary files (\S+) and (\S+) differ$|^GIT binary patch$/m.exec(patch);
  if (binary) {
    const path = patchPath(binary[2] === '/dev/null' ? binary[1] : binary[2]) ?? 'a file';
    throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `the patch has a binary change to ${path}, which a text diff cannot carry; apply it another way`, { fn, field: 'patch' });
  }
  let files;
  try {
    files = parsePatch(patch);
  } catch (e) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `not a unified diff: ${(e as Error).message}`, { fn, field: 'patch' });
  }
  files = files.filter((f) => f.hunks.length > 0 || f.isCreate || f.isDelete);
  if (files.length === 0) throw new FrognanoError(ErrorCode.INVALID_TYPE, 'the patch changes no file', { fn, field: 'patch' });
  const touched: string[] = [];
  for (const f of files) {
    const oldPath = patchPath(f.oldFileName);
    const newPath = patchPath(f.newFileName);
    const raw = newPath ?? oldPath;
    const rel = raw === null ? null : safeRelative(raw);
    if (rel === null) throw new FrognanoError(ErrorCode.INVALID_TYPE, `patch path ${JSON.stringify(raw)} leaves the repository`, { fn, field: 'patch' });
    const target = join(dir, rel);
    const creating = oldPath === null || f.isCreate === true;
    const deleting = newPath === null || f.isDelete === true;
    let old = '';
    if (!creating) {
      try {
        old = await readFile(target, 'utf8');
      } catch {
        throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `the patch changes ${rel}, which does not exist`, { fn, field: 'patch' });
      }
    }
    const next = applyPatch(old, f);
    if (next === false) throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `a hunk of ${rel} does not apply`, { fn, field: 'patch' });
    if (deleting) await rm(target, { force: true });
    else {
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, next);
    }
    touched.push(rel);
  }
  return touched;
}
