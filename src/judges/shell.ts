import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue } from '../errors/validate.js';

/**
 * A small, total POSIX-shell tokenizer for reading an agent's `bash` tool calls
 * (FrogNano §5.2: the first, rule-based stage of the reward-hacking detector
 * reads the commands an agent ran). It is not a shell: it never expands
 * variables, globs or `~`, and it never fails; it only finds the simple
 * commands, their words and their redirections, with character offsets into
 * the original string, so that a rule can say exactly which substring fired.
 *
 * Handled: `;`, `&&`, `||`, `|`, `|&`, `&`, newlines and `( ... )` grouping as
 * command separators; single quotes, double quotes, `$'...'`, backslash escapes
 * and line continuations; comments; redirections (`>`, `>>`, `>|`, `&>`, `&>>`,
 * `<`, `<>`, `>&`, `<&`, `<<<`, here-documents `<<` / `<<-` whose bodies are
 * captured, not parsed as commands); and commands hidden inside other commands,
 * which are parsed too and returned with `depth > 0`: `$( ... )`, backticks,
 * `<( ... )` / `>( ... )`, `bash -c '...'` (also `sh`, `zsh`, `dash`, `ksh`,
 * option clusters such as `-lc`), `eval ...`, a shell fed by a here-document or
 * here-string (`bash <<EOF`), and `find ROOT ... -exec cmd {} ;` (where the `{}` placeholder
 * becomes the `-path` pattern, `ROOT/<-name pattern>` or `ROOT/{}`, so that a
 * path keeps what is known of it).
 *
 * The effective command of a simple command ({@link ShellCommand.argv}) drops
 * leading variable assignments and the wrappers `sudo`, `env`, `timeout`,
 * `nohup`, `time`, `nice`, `command`, `exec`, `builtin`, `stdbuf`, `unbuffer`,
 * `xargs` (with their options), `{`, `}` and `!`.
 *
 * What a quoted string contains is data, not a command: `echo "git reflog"` is
 * an `echo`. Only the constructs above run their text as commands.
 */

/** One word of a simple command. */
export interface ShellWord {
  /** The word after quote removal and escape processing; expansions (`$VAR`, `$(...)`) are kept as written. */
  value: string;
  /** Offset of the word's first character in the parsed string. */
  start: number;
  /** Offset just past the word's last character (exclusive). */
  end: number;
}

/** A here-document body (the lines between `<<EOF` and `EOF`). */
export interface ShellHeredoc {
  /** The body, terminator line excluded. */
  body: string;
  /** Offset of the body's first character in the parsed string. */
  start: number;
  /** Offset just past the body (exclusive). */
  end: number;
}

/** One redirection of a simple command. */
export interface ShellRedirect {
  /** The operator: `>`, `>>`, `>|`, `&>`, `&>>`, `<`, `<>`, `>&`, `<&`, `<<`, `<<-` or `<<<`. */
  op: string;
  /** An explicit file-descriptor prefix (`2` in `2>err.log`), or `null`. */
  fd: string | null;
  /** The target word (file, descriptor, here-document delimiter or here-string); `null` when the command ends first. */
  target: ShellWord | null;
  /** For `<<` / `<<-`: the captured body; otherwise `null`. */
  heredoc: ShellHeredoc | null;
  /** Offset of the operator (its descriptor prefix included). */
  start: number;
  /** Offset just past the operator. */
  end: number;
}

/** One simple command. */
export interface ShellCommand {
  /** Every word, as written (wrappers and assignments included). */
  words: ShellWord[];
  /** The effective command: {@link ShellCommand.words} without leading assignments and wrappers (`sudo`, `timeout 10`, `xargs -0`, ...). May be empty. */
  argv: ShellWord[];
  /** Its redirections, in order. */
  redirects: ShellRedirect[];
  /** Offset of its first word or redirection in the parsed string. */
  start: number;
  /** Offset just past its last word or redirection (here-document bodies excluded). */
  end: number;
  /** `source.slice(start, end)`: the exact substring, usable as evidence. */
  text: string;
  /**
   * 0 for a command written at the top level; 1 + the container's depth for a
   * command found inside another one (`$(...)`, `bash -c`, `eval`, `find -exec`, ...).
   * When the inner text cannot be mapped back character by character (escapes
   * inside `bash -c "..."`), the nested command's offsets are those of the word holding it.
   */
  depth: number;
}

interface Span {
  start: number;
  end: number;
}

interface ScanContext {
  root: string;
  out: ShellCommand[];
}

const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh', 'ash', 'busybox']);
const SIMPLE_WRAPPERS = new Set(['nohup', 'exec', 'builtin', 'unbuffer', 'command', 'time', 'stdbuf']);

/**
 * `s` without its trailing run of characters from `chars`: what `s.replace(/[chars]+$/, '')`
 * gives, in linear time (that regex restarts at every position of a long run
 * that does not reach the end, which is quadratic). @internal
 */
export function trimTrailing(s: string, chars: string): string {
  let e = s.length;
  while (e > 0 && chars.includes(s[e - 1]!)) e--;
  return e === s.length ? s : s.slice(0, e);
}

/** The last path component of a command name (`/usr/bin/git` -> `git`). */
export function commandName(word: ShellWord | string | undefined): string {
  const v = typeof word === 'string' ? word : word === undefined ? '' : wordValue('commandName', 'word', word);
  const slash = v.lastIndexOf('/');
  return slash >= 0 ? v.slice(slash + 1) : v;
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

/** Nesting deeper than this is not parsed (a guard against pathological input, never reached by real commands). */
const MAX_DEPTH = 32;

const REDIRECT_OPS = ['&>>', '&>', '<<<', '<<-', '<<', '<>', '<&', '<', '>>', '>|', '>&', '>'];
const COMMAND_OPS = ['&&', '||', '|&', ';;', '|', ';', '&'];

/**
 * Scans `src` (which sits at `base` in the root string). When `override` is set,
 * every produced offset is that span (the text could not be mapped exactly).
 */
function scan(ctx: ScanContext, src: string, base: number, depth: number, override: Span | null): void {
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

/** True when `name` looks like a variable assignment word (`FOO=bar`). */
function isAssignment(v: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/.test(v);
}

/** Options of wrappers that take a separate value. */
const WRAPPER_VALUE_OPTS: Record<string, Set<string>> = {
  sudo: new Set(['-u', '-g', '-h', '-p', '-C', '-D', '-r', '-t', '-U', '--user', '--group']),
  env: new Set(['-u', '--unset', '-C', '--chdir', '-S', '--split-string']),
  timeout: new Set(['-s', '--signal', '-k', '--kill-after']),
  nice: new Set(['-n', '--adjustment']),
  xargs: new Set(['-I', '-n', '-P', '-d', '-L', '-s', '-E', '-a', '--max-args', '--max-procs', '--delimiter', '--arg-file', '--replace']),
  stdbuf: new Set(['-i', '-o', '-e']),
};

/** The effective command of a word list (see {@link ShellCommand.argv}). */
export function effectiveArgv(words: readonly ShellWord[]): ShellWord[] {
  if (!Array.isArray(words)) throw new FrognanoError(ErrorCode.INVALID_TYPE, `effectiveArgv: words must be an array of shell words, got ${describeValue(words)}`, { fn: 'effectiveArgv', field: 'words' });
  for (let i = 0; i < words.length; i++) wordValue('effectiveArgv', `words[${i}]`, words[i], i);
  let k = 0;
  for (let guard = 0; guard < 64 && k < words.length; guard++) {
    const v = words[k]!.value;
    if (v === '{' || v === '}' || v === '!' || isAssignment(v)) {
      k++;
      continue;
    }
    const name = commandName(v);
    const valueOpts = WRAPPER_VALUE_OPTS[name];
    if (valueOpts || SIMPLE_WRAPPERS.has(name)) {
      k++;
      while (k < words.length) {
        const w = words[k]!.value;
        if (w === '--') {
          k++;
          break;
        }
        if (name === 'env' && isAssignment(w)) {
          k++;
          continue;
        }
        if (!w.startsWith('-') || w === '-') break;
        k += valueOpts?.has(w) ? 2 : 1;
      }
      if (name === 'timeout' && k < words.length && /^\d/.test(words[k]!.value)) k++; // the duration
      continue;
    }
    break;
  }
  const argv = words.slice(k);
  if (argv.length > 1 && argv[argv.length - 1]!.value === '}') argv.pop();
  return argv;
}

/** Index of the script word of `bash -c SCRIPT` / `sh -lc SCRIPT` in argv, or -1. */
function shellScriptIndex(argv: readonly ShellWord[]): number {
  for (let k = 1; k < argv.length; k++) {
    const v = argv[k]!.value;
    if (v === '--') return -1;
    // not /^-[A-Za-z]*c[A-Za-z]*$/: its two stars backtrack quadratically on a long `-aaaa...a1`
    if (/^-[A-Za-z]+$/.test(v) && v.includes('c')) return k + 1 < argv.length ? k + 1 : -1;
    if (!v.startsWith('-') && !v.startsWith('+')) return -1;
    if (v === '-o' || v === '+o' || v === '-O' || v === '+O') k++;
  }
  return -1;
}

/** Parses the text held by `word` as commands (exactly mapped when the raw word is the value, or the value in plain quotes). */
function scanWord(ctx: ScanContext, word: ShellWord, depth: number): void {
  const raw = ctx.root.slice(word.start, word.end);
  const v = word.value;
  if (raw === v) scan(ctx, v, word.start, depth, null);
  else if (raw === `'${v}'` || raw === `"${v}"`) scan(ctx, v, word.start + 1, depth, null);
  else scan(ctx, v, word.start, depth, { start: word.start, end: word.end });
}

/** Fills `argv` and adds commands run by other commands (`bash -c`, `eval`, shell here-docs, `find -exec`). */
function expand(ctx: ScanContext, cmd: ShellCommand): void {
  cmd.argv = effectiveArgv(cmd.words);
  const argv = cmd.argv;
  if (!argv.length || cmd.depth >= MAX_DEPTH) return;
  const name = commandName(argv[0]);
  if (SHELLS.has(name)) {
    const k = shellScriptIndex(argv);
    if (k >= 0) {
      scanWord(ctx, argv[k]!, cmd.depth + 1);
    } else if (argv.slice(1).every((w) => w.value.startsWith('-'))) {
      // `bash <<'EOF' ... EOF` / `bash <<< "cmd"`: the shell reads its commands from stdin
      for (const r of cmd.redirects) {
        if (r.heredoc) scan(ctx, r.heredoc.body, r.heredoc.start, cmd.depth + 1, null);
        else if (r.op === '<<<' && r.target) scanWord(ctx, r.target, cmd.depth + 1);
      }
    }
  } else if (name === 'eval' && argv.length > 1) {
    if (argv.length === 2) scanWord(ctx, argv[1]!, cmd.depth + 1);
    else {
      const span = { start: argv[1]!.start, end: argv[argv.length - 1]!.end };
      scan(ctx, argv.slice(1).map((w) => w.value).join(' '), span.start, cmd.depth + 1, span);
    }
  } else if (name === 'find') {
    // `{}` stands for each found file: ROOT/NAME-PATTERN, the -path pattern, or ROOT/{}
    const root = argv.slice(1).find((w) => !w.value.startsWith('-') && !w.value.startsWith('('))?.value ?? '.';
    const optValue = (opts: string[]) => {
      const k = argv.findIndex((w) => opts.includes(w.value));
      return k >= 0 && k + 1 < argv.length ? argv[k + 1]!.value : null;
    };
    const pathPattern = optValue(['-path', '-ipath', '-wholename']);
    const namePattern = optValue(['-name', '-iname']);
    const found = pathPattern ?? `${trimTrailing(root, '/')}/${namePattern ?? '{}'}`;
    for (let k = 1; k < argv.length; k++) {
      if (!['-exec', '-execdir', '-ok', '-okdir'].includes(argv[k]!.value)) continue;
      let e = k + 1;
      while (e < argv.length && argv[e]!.value !== ';' && argv[e]!.value !== '+') e++;
      const sub = argv.slice(k + 1, e).map((w) => (w.value.includes('{}') ? { ...w, value: w.value.replace('{}', found) } : w));
      if (sub.length) {
        const start = sub[0]!.start;
        const end = sub[sub.length - 1]!.end;
        const inner: ShellCommand = { words: sub, argv: [], redirects: [], start, end, text: ctx.root.slice(start, end), depth: cmd.depth + 1 };
        ctx.out.push(inner);
      }
      k = e;
    }
  }
}

/**
 * Splits a shell command string into its simple commands, nested ones included
 * (see the module notes above). Never throws on any string; offsets always lie
 * inside `[0, command.length]`. Output is ordered by start offset, an outer
 * command before the commands nested in it.
 *
 * @param command - the `command` argument of a `bash` tool call
 * @returns the simple commands, each with its words, effective argv, redirections and exact span
 * @throws FrognanoError `INVALID_TYPE` when `command` is not a string
 * @example
 * parseShell('cd src && git log --all --oneline | head -5').map((c) => c.text)
 * // ['cd src', 'git log --all --oneline', 'head -5']
 */
export function parseShell(command: string): ShellCommand[] {
  if (typeof command !== 'string') {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `command must be a string, got ${describeValue(command)}`, {
      fn: 'parseShell',
      field: 'command',
    });
  }
  const ctx: ScanContext = { root: command, out: [] };
  scan(ctx, command, 0, 0, null);
  // expand() may append further commands (bash -c, find -exec); they are expanded in turn
  // (each nesting parses a strictly shorter text, so this terminates)
  for (let k = 0; k < ctx.out.length; k++) expand(ctx, ctx.out[k]!);
  const order = ctx.out.map((c, k) => ({ c, k }));
  order.sort((a, b) => a.c.start - b.c.start || a.c.depth - b.c.depth || a.k - b.k);
  return order.map((o) => o.c);
}

/** A shell word's text, checked at a public boundary (a word from parseShell always passes). */
function wordValue(fn: string, field: string, w: unknown, index?: number): string {
  const v = typeof w === 'object' && w !== null ? (w as { value?: unknown }).value : undefined;
  if (typeof v !== 'string') {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `${fn}: ${field} must be a shell word { value: string, ... }, got ${describeValue(w)}`, {
      fn,
      field,
      ...(index === undefined ? {} : { index: [index] }),
    });
  }
  return v;
}
