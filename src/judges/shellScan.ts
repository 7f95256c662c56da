import type { ShellCommand, ShellRedirect, ShellWord } from './shellTypes.js';

/**
 * The scanner under {@link parseShell}: one pass over a command string that
 * finds its simple commands, words, redirections and here-document bodies, and
 * parses the text of `$( ... )`, backticks and process substitutions as nested
 * commands. @internal
 */

/** A character range of the root string. @internal */
export interface Span {
  start: number;
  end: number;
}

/** The root string and the commands found so far. @internal */
export interface ScanContext {
  root: string;
  out: ShellCommand[];
}

/**
 * Index of the `)` matching the `(` at `open` (quotes, escapes and nesting
 * respected; inside a double-quoted string only `$(` opens a nested level);
 * `src.length` when unmatched. Iterative, with an explicit stack: a hostile
 * `"$("$("$(...` nests one level per three characters, and mutual recursion
 * through the double-quoted strings overflowed the call stack. @internal
 */
export function matchParen(src: string, open: number): number {
  // frames of the callers: a paren level's depth (>= 0), or -1 for a double-quoted string
  const stack: number[] = [];
  let inQuotes = false;
  let depth = 0;
  let i = open;
  while (i < src.length) {
    const c = src[i]!;
    if (c === '\\') {
      i += 2;
      continue;
    }
    if (inQuotes) {
      if (c === '"') {
        // the string ends; back to the paren level that opened it
        depth = stack.pop()!;
        inQuotes = false;
      } else if (c === '$' && src[i + 1] === '(') {
        stack.push(-1);
        inQuotes = false;
        depth = 0;
        i++; // at the `(`, counted below as a paren level's first character
        continue;
      }
      i++;
      continue;
    }
    if (c === "'") {
      const close = src.indexOf("'", i + 1);
      i = close < 0 ? src.length : close + 1;
      continue;
    }
    if (c === '"') {
      stack.push(depth);
      inQuotes = true;
      i++;
      continue;
    }
    if (c === '(') depth++;
    else if (c === ')') {
      depth--;
      if (depth === 0) {
        if (!stack.length) return i;
        stack.pop(); // a `$(...)` inside a double-quoted string is closed: back in the string
        inQuotes = true;
      }
    }
    i++;
  }
  return src.length;
}

/** Index of the closing backtick for the one at `open` (escapes respected); `src.length` when unmatched. */
function matchBacktick(src: string, open: number): number {
  let i = open + 1;
  while (i < src.length) {
    if (src[i] === '\\') i += 2;
    else if (src[i] === '`') return i;
    else i++;
  }
  return src.length;
}

/** Index of the `}` closing the `${` whose `{` is at `open`. */
function matchBrace(src: string, open: number): number {
  let depth = 0;
  for (let i = open; i < src.length; i++) {
    if (src[i] === '\\') i++;
    else if (src[i] === '{') depth++;
    else if (src[i] === '}' && --depth === 0) return i;
  }
  return src.length;
}

/** Nesting deeper than this is not parsed (a guard against pathological input, never reached by real commands). @internal */
export const MAX_DEPTH = 32;

const REDIRECT_OPS = ['&>>', '&>', '<<<', '<<-', '<<', '<>', '<&', '<', '>>', '>|', '>&', '>'];
const COMMAND_OPS = ['&&', '||', '|&', ';;', '|', ';', '&'];

/**
 * Scans `src` (which sits at `base` in the root string). When `override` is set,
 * every produced offset is that span (the text could not be mapped exactly). @internal
 */
export function scan(ctx: ScanContext, src: string, base: number, depth: number, override: Span | null): void {
  const n = src.length;
  const at = (i: number) => (override ? override.start : base + i);
  const atEnd = (i: number) => (override ? override.end : base + i);
  let words: ShellWord[] = [];
  let redirects: ShellRedirect[] = [];
  let cur: { value: string; start: number; plain: boolean } | null = null;
  let pendingTarget: ShellRedirect | null = null;
  const pendingHeredocs: { redirect: ShellRedirect; strip: boolean }[] = [];
  const nestedSpans: Span[] = [];
  /**
   * Appends the expansion `src[from..close]` to the current word and, when `run`,
   * queues its inside `[inner, close)` to be parsed as commands; returns the index past it.
   */
  const embed = (from: number, inner: number, close: number, run = true): number => {
    if (run) nestedSpans.push({ start: inner, end: Math.min(close, n) });
    cur!.value += src.slice(from, Math.min(close + 1, n));
    return close + 1;
  };

  const endWord = (i: number) => {
    if (!cur) return;
    const w: ShellWord = { value: cur.value, start: at(cur.start), end: atEnd(i) };
    cur = null;
    if (pendingTarget) {
      pendingTarget.target = w;
      if (pendingTarget.op === '<<' || pendingTarget.op === '<<-') {
        pendingHeredocs.push({ redirect: pendingTarget, strip: pendingTarget.op === '<<-' });
      }
      pendingTarget = null;
    } else {
      words.push(w);
    }
  };
  const endCommand = (i: number) => {
    endWord(i);
    pendingTarget = null;
    if (words.length || redirects.length) {
      // a loop, not Math.min(...spread): a command of 200,000 words overflows the argument stack
      let start = Infinity;
      let end = -Infinity;
      for (const w of words) {
        if (w.start < start) start = w.start;
        if (w.end > end) end = w.end;
      }
      for (const r of redirects) {
        if (r.start < start) start = r.start;
        const e = r.target?.end ?? r.end;
        if (e > end) end = e;
      }
      // the redirect objects are shared: here-document bodies read after the command ends still reach it
      ctx.out.push({ words, argv: [], redirects, start, end, text: ctx.root.slice(start, end), depth });
    }
    words = [];
    redirects = [];
  };

  const readHeredocs = (i: number): number => {
    let pos = i;
    while (pendingHeredocs.length) {
      const { redirect, strip } = pendingHeredocs.shift()!;
      const delim = redirect.target?.value ?? '';
      const bodyStart = pos;
      let bodyEnd = n;
      let next = n;
      while (pos < n) {
        const nl = src.indexOf('\n', pos);
        const lineEnd = nl < 0 ? n : nl;
        const line = src.slice(pos, lineEnd);
        if ((strip ? line.replace(/^\t+/, '') : line) === delim) {
          bodyEnd = pos;
          next = nl < 0 ? n : nl + 1;
          break;
        }
        pos = nl < 0 ? n : nl + 1;
      }
      if (pos >= n) next = n;
      redirect.heredoc = { body: src.slice(bodyStart, bodyEnd), start: at(bodyStart), end: atEnd(bodyEnd) };
      pos = next;
    }
    return pos;
  };

  let i = 0;
  while (i < n) {
    const c = src[i]!;
    if (!cur && c === '#') {
      const nl = src.indexOf('\n', i);
      i = nl < 0 ? n : nl;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      endWord(i);
      i++;
      continue;
    }
    if (c === '\\' && src[i + 1] === '\n') {
      i += 2;
      continue;
    }
    if (c === '\n') {
      endCommand(i);
      i = readHeredocs(i + 1);
      continue;
    }
    if ((c === '<' || c === '>') && src[i + 1] === '(') {
      // process substitution: a word part whose inside runs as commands
      if (!cur) cur = { value: '', start: i, plain: true };
      i = embed(i, i + 2, matchParen(src, i + 1));
      continue;
    }
    if (c === '<' || c === '>' || (c === '&' && src[i + 1] === '>')) {
      let fd: string | null = null;
      if (cur && cur.plain && /^\d+$/.test(cur.value) && cur.start + cur.value.length === i) {
        fd = cur.value;
        cur = null;
      } else {
        endWord(i);
      }
      const op = REDIRECT_OPS.find((o) => src.startsWith(o, i))!;
      const r: ShellRedirect = { op, fd, target: null, heredoc: null, start: at(fd ? i - fd.length : i), end: atEnd(i + op.length) };
      redirects.push(r);
      pendingTarget = r;
      i += op.length;
      continue;
    }
    const cop = c === '&' || c === '|' || c === ';' ? COMMAND_OPS.find((o) => src.startsWith(o, i)) : undefined; // every operator starts so
    if (cop) {
      endCommand(i);
      i += cop.length;
      continue;
    }
    if (c === '(' || c === ')') {
      endCommand(i);
      i++;
      continue;
    }
    // a word character
    if (!cur) cur = { value: '', start: i, plain: true };
    if (c === "'") {
      const close = src.indexOf("'", i + 1);
      const end = close < 0 ? n : close;
      cur.value += src.slice(i + 1, end);
      cur.plain = false;
      i = end + 1;
    } else if (c === '$' && src[i + 1] === "'") {
      let j = i + 2;
      let v = '';
      while (j < n && src[j] !== "'") {
        if (src[j] === '\\' && j + 1 < n) {
          const e = src[j + 1]!;
          v += e === 'n' ? '\n' : e === 't' ? '\t' : e;
          j += 2;
        } else v += src[j++];
      }
      cur.value += v;
      cur.plain = false;
      i = j + 1;
    } else if (c === '"') {
      cur.plain = false;
      let j = i + 1;
      while (j < n && src[j] !== '"') {
        const d = src[j]!;
        if (d === '\\' && j + 1 < n) {
          const e = src[j + 1]!;
          if (e === '\n') {
            j += 2;
            continue;
          }
          cur.value += '$`"\\'.includes(e) ? e : `\\${e}`;
          j += 2;
        } else if (d === '$' && src[j + 1] === '(' && src[j + 2] !== '(') {
          j = embed(j, j + 2, matchParen(src, j + 1));
        } else if (d === '`') {
          j = embed(j, j + 1, matchBacktick(src, j));
        } else {
          cur.value += d;
          j++;
        }
      }
      i = j + 1;
    } else if (c === '$' && src[i + 1] === '(') {
      i = embed(i, i + 2, matchParen(src, i + 1), src[i + 2] !== '('); // `$((` is arithmetic, not commands
    } else if (c === '$' && src[i + 1] === '{') {
      i = embed(i, i + 2, matchBrace(src, i + 1), false);
    } else if (c === '`') {
      i = embed(i, i + 1, matchBacktick(src, i));
      cur.plain = false;
    } else if (c === '\\') {
      if (i + 1 < n) cur.value += src[i + 1];
      cur.plain = false;
      i += 2;
    } else {
      cur.value += c;
      i++;
    }
  }
  endCommand(n);
  if (pendingHeredocs.length) readHeredocs(n);
  // (an empty inside, as in a run of backticks, holds no command: not scanned)
  if (depth < MAX_DEPTH) for (const s of nestedSpans) if (s.end > s.start) scan(ctx, src.slice(s.start, s.end), base + s.start, depth + 1, override);
}


/** Parses the text held by `word` as commands (exactly mapped when the raw word is the value, or the value in plain quotes). @internal */
export function scanWord(ctx: ScanContext, word: ShellWord, depth: number): void {
  const raw = ctx.root.slice(word.start, word.end);
  const v = word.value;
  if (raw === v) scan(ctx, v, word.start, depth, null);
  else if (raw === `'${v}'` || raw === `"${v}"`) scan(ctx, v, word.start + 1, depth, null);
  else scan(ctx, v, word.start, depth, { start: word.start, end: word.end });
}
