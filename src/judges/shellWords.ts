import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue } from '../errors/validate.js';
import type { ShellWord } from './shellTypes.js';

/**
 * The words of a simple command: its command name, its effective argv (leading
 * assignments and wrappers such as `sudo`, `timeout 10`, `xargs -0` dropped).
 */

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
