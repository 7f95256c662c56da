import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue } from '../errors/validate.js';

/** One line inside a hunk of a unified diff. */
export interface DiffLine {
  /** `+` added, `-` deleted, ` ` context. */
  kind: '+' | '-' | ' ';
  /** The line without its one-character marker. */
  text: string;
  /** The line as it stands in the diff, marker included (no line break): usable as evidence. */
  raw: string;
  /** Offset of the line's first character in the diff string. */
  start: number;
  /** Offset just past the line (its line break excluded). */
  end: number;
}

/** One file section of a unified diff. */
export interface DiffFile {
  /** Path before the change (`a/` prefix removed), `null` for a new file. */
  oldPath: string | null;
  /** Path after the change (`b/` prefix removed), `null` for a deleted file. */
  newPath: string | null;
  /** `newPath ?? oldPath`. */
  path: string;
  /** `added`, `deleted`, `renamed` (paths differ) or `modified`. */
  status: 'added' | 'deleted' | 'renamed' | 'modified';
  /** Hunk lines, in order. */
  lines: DiffLine[];
  /** Offset of the section's first header line in the diff string. */
  start: number;
  /** Offset just past the section's last line. */
  end: number;
}

/** Unquotes a C-quoted git path (`"a/t\303\251st.py"`) naively, strips a/ b/ and timestamps; `/dev/null` -> null. */
function cleanPath(raw: string, prefix: 'a/' | 'b/' | null): string | null {
  let p = raw.split('\t')[0]!.trim();
  if (p.startsWith('"') && p.endsWith('"') && p.length >= 2) p = p.slice(1, -1).replace(/\\(["\\])/g, '$1');
  if (p === '/dev/null') return null;
  if (prefix && p.startsWith(prefix)) p = p.slice(2);
  return p;
}

/** Splits `a/X b/Y` of a `diff --git` header (paths without spaces, or quoted). */
function gitHeaderPaths(rest: string): [string | null, string | null] {
  const quoted = /^"((?:[^"\\]|\\.)*)" "((?:[^"\\]|\\.)*)"$/.exec(rest);
  if (quoted) return [cleanPath(`"${quoted[1]}"`, 'a/'), cleanPath(`"${quoted[2]}"`, 'b/')];
  // `a/X b/X`: when both halves are equal the split is unambiguous even with spaces
  const half = (rest.length - 1) / 2;
  if (Number.isInteger(half) && rest[half] === ' ' && rest.slice(2, half) === rest.slice(half + 3)) {
    return [cleanPath(rest.slice(0, half), 'a/'), cleanPath(rest.slice(half + 1), 'b/')];
  }
  const sp = rest.indexOf(' b/');
  if (sp > 0) return [cleanPath(rest.slice(0, sp), 'a/'), cleanPath(rest.slice(sp + 1), 'b/')];
  return [null, null];
}

/**
 * Parses a unified diff (`git diff`, `diff -u`) into file sections and hunk
 * lines with character offsets, so that a rule can quote the exact offending
 * line (SPEC §9: the trajectory's `diff` is the final repository change).
 *
 * Hunk lengths from `@@ -a,b +c,d @@` decide where a hunk ends, so a deleted
 * line that itself starts with `--` is not mistaken for a header. `diff --git`,
 * `---` / `+++`, `rename from` / `rename to`, `new file mode` and `deleted file
 * mode` headers are read; binary sections have no lines. Lenient: text that
 * is not a diff gives `[]`, never an error.
 *
 * @throws FrognanoError `INVALID_TYPE` when `diff` is not a string
 * @example
 * parseUnifiedDiff('--- a/t.py\n+++ b/t.py\n@@ -1 +1 @@\n-assert f() == 1\n+assert f() == 2\n')[0].lines.map((l) => l.raw)
 * // ['-assert f() == 1', '+assert f() == 2']
 */
export function parseUnifiedDiff(diff: string): DiffFile[] {
  if (typeof diff !== 'string') {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `diff must be a string, got ${describeValue(diff)}`, {
      fn: 'parseUnifiedDiff',
      field: 'diff',
    });
  }
  const files: DiffFile[] = [];
  let file: (DiffFile & { sawOld: boolean; sawNew: boolean; gitHeader: boolean; flag: DiffFile['status'] | null }) | null = null;
  let oldLeft = 0;
  let newLeft = 0;

  const finish = (end: number) => {
    if (!file) return;
    file.end = end;
    file.path = file.newPath ?? file.oldPath ?? '';
    file.status =
      file.flag ?? (file.oldPath === null ? 'added' : file.newPath === null ? 'deleted' : file.oldPath !== file.newPath ? 'renamed' : 'modified');
    const { sawOld: _o, sawNew: _n, gitHeader: _g, flag: _f, ...plain } = file;
    if (plain.path) files.push(plain);
    file = null;
  };
  const open = (start: number, gitHeader: boolean) => {
    file = { oldPath: null, newPath: null, path: '', status: 'modified', lines: [], start, end: start, sawOld: false, sawNew: false, gitHeader, flag: null };
  };

  let pos = 0;
  while (pos <= diff.length) {
    const nl = diff.indexOf('\n', pos);
    const lineEnd = nl < 0 ? diff.length : nl;
    let line = diff.slice(pos, lineEnd);
    const end = line.endsWith('\r') ? lineEnd - 1 : lineEnd;
    if (line.endsWith('\r')) line = line.slice(0, -1);
    const start = pos;
    pos = nl < 0 ? diff.length + 1 : nl + 1;
    const cur = file as (DiffFile & { sawOld: boolean; sawNew: boolean; gitHeader: boolean; flag: DiffFile['status'] | null }) | null;

    if (cur && (oldLeft > 0 || newLeft > 0)) {
      const c = line[0];
      if (c === '+' || c === '-' || c === ' ' || line === '') {
        const kind = (line === '' ? ' ' : c) as DiffLine['kind'];
        if (kind !== '+') oldLeft--;
        if (kind !== '-') newLeft--;
        cur.lines.push({ kind, text: line.slice(1), raw: line, start, end });
        cur.end = end;
        continue;
      }
      if (c === '\\') continue; // "\ No newline at end of file"
      oldLeft = newLeft = 0;
    }
    if (line.startsWith('diff --git ')) {
      finish(start);
      open(start, true);
      const [a, b] = gitHeaderPaths(line.slice('diff --git '.length));
      file!.oldPath = a;
      file!.newPath = b;
    } else if (line.startsWith('--- ') && (!cur || !cur.gitHeader || cur.sawOld || cur.lines.length)) {
      // a plain `diff -u` section, or the next file of one
      finish(start);
      open(start, false);
      file!.oldPath = cleanPath(line.slice(4), line.slice(4).startsWith('a/') ? 'a/' : null);
      file!.sawOld = true;
    } else if (cur && line.startsWith('--- ')) {
      cur.oldPath = cleanPath(line.slice(4), 'a/');
      cur.sawOld = true;
    } else if (cur && line.startsWith('+++ ')) {
      const rest = line.slice(4);
      cur.newPath = cleanPath(rest, cur.gitHeader || rest.startsWith('b/') ? 'b/' : null);
      cur.sawNew = true;
    } else if (cur && line.startsWith('new file mode')) {
      cur.flag = 'added';
      cur.oldPath = null;
    } else if (cur && line.startsWith('deleted file mode')) {
      cur.flag = 'deleted';
      cur.newPath = null;
    } else if (cur && line.startsWith('rename from ')) {
      cur.oldPath = cleanPath(line.slice('rename from '.length), null);
    } else if (cur && line.startsWith('rename to ')) {
      cur.newPath = cleanPath(line.slice('rename to '.length), null);
    } else if (cur && line.startsWith('@@')) {
      const m = /^@@+ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(line);
      if (m) {
        oldLeft = m[1] === undefined ? 1 : Number(m[1]);
        newLeft = m[2] === undefined ? 1 : Number(m[2]);
      }
      cur.end = end;
    }
  }
  finish(diff.length);
  return files;
}
