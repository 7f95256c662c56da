import { formatPatch, structuredPatch } from 'diff';
import { quotePath } from './quotePath.js';

/** A git file mode as written in a diff. */
export type GitMode = '100644' | '100755' | '120000';

/**
 * One side of a file's section: its git mode and its bytes (a link's target),
 * `'large'` for a file over {@link MAX_TEXT_BYTES} (never read, shown as binary),
 * or `'same'` when both sides' bytes are known to be equal (a mode change only).
 */
export interface SectionSide {
  mode: GitMode;
  content: Buffer | 'large' | 'same';
}

/** Files larger than this are diffed as binary (`Binary files ... differ`) and never read. */
export const MAX_TEXT_BYTES = 8 * 1024 * 1024;

/** True when the bytes look binary (a NUL in the first 8000 bytes, git's rule). */
export function isBinary(data: Buffer): boolean {
  return data.subarray(0, 8000).includes(0);
}

/** A hunk replacing the whole file: the fallback when a line diff takes too long. */
export function wholeFileHunk(oldText: string, newText: string): string {
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

/** `a/P` or `b/P` as git writes it: C-quoted as a whole when the path needs it (see {@link quotePath}). */
const side = (prefix: 'a/' | 'b/', raw: Buffer): string => quotePath(Buffer.concat([Buffer.from(prefix), raw]));

/**
 * One file's section of a git-style unified diff: `diff --git a/P b/P`, then
 * `new file mode M` / `deleted file mode M` / `old mode M` + `new mode M`, then
 * either `Binary files a/P and b/P differ` (a NUL in the first 8000 bytes, or a
 * side over 8 MiB), nothing (equal bytes: a mode change only, or an empty new or
 * deleted file), or `--- a/P`, `+++ b/P` and the hunks with 3 lines of context
 * (as `git diff`; `/dev/null` for a missing side). Paths are quoted as git
 * quotes them. A line diff that takes longer than `timeoutMs` is replaced by one
 * hunk replacing the whole file, so the diff never stalls. Contents are decoded
 * as UTF-8. Pass at most one missing side.
 *
 * @param raw - the relative path's bytes
 * @param timeoutMs - time the line diff may take (ms); 0 or less: the whole-file hunk at once
 */
export function fileSection(raw: Buffer, before: SectionSide | undefined, after: SectionSide | undefined, timeoutMs: number): string {
  const a = side('a/', raw);
  const b = side('b/', raw);
  const header = [`diff --git ${a} ${b}`];
  if (!before) header.push(`new file mode ${after!.mode}`);
  else if (!after) header.push(`deleted file mode ${before.mode}`);
  else if (before.mode !== after.mode) header.push(`old mode ${before.mode}`, `new mode ${after.mode}`);
  const head = `${header.join('\n')}\n`;
  if (before?.content === 'same' || after?.content === 'same') return head;
  const from = before ? a : '/dev/null';
  const to = after ? b : '/dev/null';
  const x = before?.content ?? Buffer.alloc(0);
  const y = after?.content ?? Buffer.alloc(0);
  if (x === 'large' || y === 'large' || isBinary(x as Buffer) || isBinary(y as Buffer)) return `${head}Binary files ${from} and ${to} differ\n`;
  const oldText = (x as Buffer).toString('utf8');
  const newText = (y as Buffer).toString('utf8');
  if (oldText === newText) return head; // an empty new or deleted file, or bytes that decode alike
  const patch = timeoutMs > 0 ? structuredPatch(from, to, oldText, newText, undefined, undefined, { context: 3, timeout: timeoutMs }) : undefined;
  if (patch === undefined) return `${head}--- ${from}\n+++ ${to}\n${wholeFileHunk(oldText, newText)}`;
  // formatPatch writes its own header lines (with the names unquoted); keep only the hunks
  const body = formatPatch(patch).split('\n');
  const start = body.findIndex((l) => l.startsWith('@@ '));
  return `${head}--- ${from}\n+++ ${to}\n${body.slice(start).join('\n')}`;
}
