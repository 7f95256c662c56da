import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { formatPatch, structuredPatch } from 'diff';

/** One entry of a tree snapshot: a regular file's bytes (or, past 8 MiB, its digest), or a symbolic link's target. */
type Entry = { kind: 'file'; data: Buffer; mode: string; digest?: string } | { kind: 'link'; target: string };

/** Files larger than this are compared by digest and diffed as binary, never read whole into memory. */
const MAX_TEXT_BYTES = 8 * 1024 * 1024;

async function digestOf(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest('hex');
}

/** Folders never diffed: version-control metadata is not part of the agent's change. */
const SKIP_DIRS = new Set(['.git', '.hg', '.svn']);

/** Reads every file and link below `root` (relative POSIX paths), skipping `.git`; a missing root is empty. */
export async function snapshotTree(root: string): Promise<Map<string, Entry>> {
  const out = new Map<string, Entry>();
  const walk = async (rel: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(join(root, rel), { withFileTypes: true });
    } catch (e) {
      if (rel === '' && (e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    for (const e of entries) {
      const p = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name)) await walk(p);
      } else if (e.isSymbolicLink()) {
        out.set(p, { kind: 'link', target: await readlink(join(root, p)) });
      } else if (e.isFile()) {
        const st = await lstat(join(root, p));
        const mode = st.mode & 0o111 ? '100755' : '100644';
        if (st.size > MAX_TEXT_BYTES) out.set(p, { kind: 'file', data: Buffer.from([0]), mode, digest: `${st.size}:${await digestOf(join(root, p))}` });
        else out.set(p, { kind: 'file', data: await readFile(join(root, p)), mode });
      }
      // sockets, FIFOs and devices are not repository content
    }
  };
  await walk('');
  return out;
}

/** True when the bytes look binary (a NUL in the first 8000 bytes, git's rule). */
export function isBinary(data: Buffer): boolean {
  return data.subarray(0, 8000).includes(0);
}

function entryText(e: Entry): string {
  return e.kind === 'link' ? e.target : e.data.toString('utf8');
}

function sameEntry(a: Entry, b: Entry): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'link') return a.target === (b as { target: string }).target;
  const bf = b as { data: Buffer; mode: string; digest?: string };
  if (a.digest !== undefined || bf.digest !== undefined) return a.mode === bf.mode && a.digest === bf.digest;
  return a.mode === bf.mode && a.data.equals(bf.data);
}

/** The git mode of an entry. */
const modeOf = (e: Entry): string => (e.kind === 'link' ? '120000' : e.mode);

/** One file's section of a git-style unified diff (3 lines of context, as `git diff`). */
function fileDiff(path: string, before: Entry | undefined, after: Entry | undefined): string {
  const binary = (before?.kind === 'file' && isBinary(before.data)) || (after?.kind === 'file' && isBinary(after.data));
  const header = [`diff --git a/${path} b/${path}`];
  if (!before) header.push(`new file mode ${modeOf(after!)}`);
  else if (!after) header.push(`deleted file mode ${modeOf(before)}`);
  else if (modeOf(before) !== modeOf(after)) header.push(`old mode ${modeOf(before)}`, `new mode ${modeOf(after)}`);
  if (binary) {
    return `${header.join('\n')}\nBinary files ${before ? `a/${path}` : '/dev/null'} and ${after ? `b/${path}` : '/dev/null'} differ\n`;
  }
  const oldText = before ? entryText(before) : '';
  const newText = after ? entryText(after) : '';
  if (oldText === newText) return `${header.join('\n')}\n`; // a mode change only
  const patch = structuredPatch(before ? `a/${path}` : '/dev/null', after ? `b/${path}` : '/dev/null', oldText, newText, undefined, undefined, { context: 3 });
  // formatPatch writes its own header lines; keep only the ---/+++ lines and the hunks
  const body = formatPatch(patch).split('\n');
  const start = body.findIndex((l) => l.startsWith('--- '));
  return `${header.join('\n')}\n${body.slice(start).join('\n')}`;
}

/** Options of {@link diffTrees}. */
export interface DiffTreesOptions {
  /** Relative paths left out of the diff (the hidden test files). */
  exclude?: Iterable<string>;
}

/**
 * The unified diff (git style: `diff --git a/P b/P`, `new file mode`,
 * `deleted file mode`, `---`/`+++`, hunks with 3 lines of context,
 * `Binary files ... differ`, also for files over 8 MiB, which are compared by a
 * streamed SHA-256 and never read whole) that turns the tree `before` into the tree `after`,
 * files in path order. `.git`, `.hg` and `.svn` folders are skipped, and so are
 * the `exclude` paths (the hidden test files, SPEC §12). An unchanged tree gives `''`.
 * The result applies with `git apply` and with {@link applyUnifiedDiff}, except a
 * binary change, which is only noted (`Binary files a/P and b/P differ`, as `git diff`
 * without `--binary`): both refuse to apply that.
 *
 * @param before - the task's original repository
 * @param after - the episode's repository copy
 * @example
 * const diff = await diffTrees('tasks/py-median/repo', workspace.repo, { exclude: ['tests/test_hidden.py'] });
 */
export async function diffTrees(before: string, after: string, opts: DiffTreesOptions = {}): Promise<string> {
  const exclude = new Set([...(opts.exclude ?? [])].map((p) => posix.normalize(p)));
  const [a, b] = await Promise.all([snapshotTree(before), snapshotTree(after)]);
  const paths = [...new Set([...a.keys(), ...b.keys()])].filter((p) => !exclude.has(p)).sort();
  let out = '';
  for (const p of paths) {
    const x = a.get(p);
    const y = b.get(p);
    if (x && y && sameEntry(x, y)) continue;
    out += fileDiff(p, x, y);
  }
  return out;
}
