import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { formatPatch, structuredPatch } from 'diff';

/** One entry of a tree snapshot: a regular file (read only when compared), or a symbolic link's target. */
type Entry = { kind: 'file'; host: Buffer; size: number; mode: string } | { kind: 'link'; target: string };

/** Files larger than this are compared by a streamed digest and diffed as binary, never read whole. */
const MAX_TEXT_BYTES = 8 * 1024 * 1024;
/** Time one file's line diff may take before the whole file is shown replaced (ms). */
const DIFF_TIMEOUT_MS = 1000;

/** Top-level folders never diffed: the repository's version-control metadata is not part of the agent's change. */
const SKIP_DIRS = new Set(['.git', '.hg', '.svn']);
const SLASH = Buffer.from('/');

/**
 * Lists every file and link below `root` (relative POSIX paths), skipping `.git`;
 * a missing root is empty. Names are read as bytes, so a file name that is not
 * UTF-8 is still found (and shown decoded). Contents are not read here.
 */
export async function snapshotTree(root: string): Promise<Map<string, Entry>> {
  const out = new Map<string, Entry>();
  const rootBuf = Buffer.from(root);
  const walk = async (rel: Buffer | null): Promise<void> => {
    const dir = rel === null ? rootBuf : Buffer.concat([rootBuf, SLASH, rel]);
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true, encoding: 'buffer' });
    } catch (e) {
      if (rel === null && (e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    for (const e of entries) {
      const name = e.name as unknown as Buffer;
      const relPath = rel === null ? name : Buffer.concat([rel, SLASH, name]);
      const host = Buffer.concat([rootBuf, SLASH, relPath]);
      const p = relPath.toString('utf8');
      if (e.isDirectory()) {
        // only the repository's own metadata folder is skipped: a `.git` deeper down is content
        // the agent made or changed, and hiding it would hide changes from the rule funnel
        if (!(rel === null && SKIP_DIRS.has(name.toString('utf8')))) await walk(relPath);
      } else if (e.isSymbolicLink()) {
        out.set(p, { kind: 'link', target: await readlink(host, { encoding: 'utf8' }) });
      } else if (e.isFile()) {
        const st = await lstat(host);
        out.set(p, { kind: 'file', host, size: st.size, mode: st.mode & 0o111 ? '100755' : '100644' });
      }
      // sockets, FIFOs and devices are not repository content
    }
  };
  await walk(null);
  return out;
}

/** True when the bytes look binary (a NUL in the first 8000 bytes, git's rule). */
export function isBinary(data: Buffer): boolean {
  return data.subarray(0, 8000).includes(0);
}

async function digestOf(path: Buffer): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest('hex');
}

/** Same kind, mode and bytes (large files by digest). */
async function sameEntry(a: Entry, b: Entry): Promise<boolean> {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'link') return a.target === (b as { target: string }).target;
  const f = b as Extract<Entry, { kind: 'file' }>;
  if (a.mode !== f.mode || a.size !== f.size) return false;
  if (a.size > MAX_TEXT_BYTES) return (await digestOf(a.host)) === (await digestOf(f.host));
  const [x, y] = await Promise.all([readFile(a.host), readFile(f.host)]);
  return x.equals(y);
}

/** The git mode of an entry. */
const modeOf = (e: Entry): string => (e.kind === 'link' ? '120000' : e.mode);

/** A hunk replacing the whole file: the fallback when a line diff takes too long. */
function wholeFileHunk(oldText: string, newText: string): string {
  const lines = (t: string): string[] => (t === '' ? [] : t.replace(/\n$/, '').split('\n'));
  const a = lines(oldText);
  const b = lines(newText);
  const range = (n: number): string => (n === 0 ? '0,0' : `1,${n}`);
  const out = [`@@ -${range(a.length)} +${range(b.length)} @@`];
  for (const l of a) out.push(`-${l}`);
  if (a.length && !oldText.endsWith('\n')) out.push('\\ No newline at end of file');
  for (const l of b) out.push(`+${l}`);
  if (b.length && !newText.endsWith('\n')) out.push('\\ No newline at end of file');
  return `${out.join('\n')}\n`;
}

/** One file's section of a git-style unified diff (3 lines of context, as `git diff`). */
async function fileDiff(path: string, before: Entry | undefined, after: Entry | undefined): Promise<string> {
  const header = [`diff --git a/${path} b/${path}`];
  if (!before) header.push(`new file mode ${modeOf(after!)}`);
  else if (!after) header.push(`deleted file mode ${modeOf(before)}`);
  else if (modeOf(before) !== modeOf(after)) header.push(`old mode ${modeOf(before)}`, `new mode ${modeOf(after)}`);
  const binaryNote = (): string => `${header.join('\n')}\nBinary files ${before ? `a/${path}` : '/dev/null'} and ${after ? `b/${path}` : '/dev/null'} differ\n`;
  const large = (e: Entry | undefined): boolean => e?.kind === 'file' && e.size > MAX_TEXT_BYTES;
  if (large(before) || large(after)) return binaryNote();
  const content = async (e: Entry | undefined): Promise<Buffer> => (e === undefined ? Buffer.alloc(0) : e.kind === 'link' ? Buffer.from(e.target) : readFile(e.host));
  const [x, y] = await Promise.all([content(before), content(after)]);
  if (isBinary(x) || isBinary(y)) return binaryNote();
  const oldText = x.toString('utf8');
  const newText = y.toString('utf8');
  if (oldText === newText) return `${header.join('\n')}\n`; // a mode change only
  const from = before ? `a/${path}` : '/dev/null';
  const to = after ? `b/${path}` : '/dev/null';
  const patch = structuredPatch(from, to, oldText, newText, undefined, undefined, { context: 3, timeout: DIFF_TIMEOUT_MS });
  if (patch === undefined) return `${header.join('\n')}\n--- ${from}\n+++ ${to}\n${wholeFileHunk(oldText, newText)}`;
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
 * files in path order. Contents are read one pair at a time, when compared. A
 * line diff that takes over a second (a rewritten file of thousands of lines) is
 * replaced by one hunk replacing the whole file, so grading never stalls.
 * The top-level `.git`, `.hg` and `.svn` folders are skipped, and so are
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
    if (x && y && (await sameEntry(x, y))) continue;
    out += await fileDiff(p, x, y);
  }
  return out;
}
