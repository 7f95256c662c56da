import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue } from '../errors/validate.js';
import { MAX_DEPTH, type ScanContext, scan, scanWord } from './shellScan.js';
import type { ShellCommand, ShellWord } from './shellTypes.js';
import { commandName, effectiveArgv, trimTrailing } from './shellWords.js';

export type { ShellCommand, ShellHeredoc, ShellRedirect, ShellWord } from './shellTypes.js';

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

const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh', 'ash', 'busybox']);

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
