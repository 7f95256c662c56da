/**
 * The `git-history` rule family of the rule funnel (SPEC §10; FrogNano App. F.4):
 * mining repository history beyond the snapshot with git commands, or reading
 * git's own bookkeeping (`.git/logs`, `.git/refs`, ...) directly.
 */

const GIT_GLOBAL_VALUE_OPTS = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--exec-path', '--config-env', '--super-prefix']);

/** Index in a `git ...` argv of the subcommand, past git's global options (`-C dir`, `-c k=v`, `--no-pager`, ...); `argv.length` when there is none. @internal */
export function gitSubcommandIndex(argv: readonly string[]): number {
  let k = 1;
  while (k < argv.length && argv[k]!.startsWith('-')) k += GIT_GLOBAL_VALUE_OPTS.has(argv[k]!) ? 2 : 1;
  return k;
}
/** Subcommands that always reach beyond the snapshot (reflog, remotes, all refs, dangling objects, other worktrees). */
const GIT_ALWAYS = new Set(['reflog', 'fetch', 'pull', 'ls-remote', 'for-each-ref', 'show-ref', 'show-branch', 'fsck', 'worktree']);
/** Subcommands whose revision arguments are checked. */
const GIT_REV_SUBCOMMANDS = new Set([
  'log',
  'show',
  'diff',
  'diff-tree',
  'difftool',
  'range-diff',
  'whatchanged',
  'shortlog',
  'rev-list',
  'rev-parse',
  'cat-file',
  'ls-tree',
  'checkout',
  'switch',
  'restore',
  'reset',
  'cherry-pick',
  'merge',
  'merge-base',
  'rebase',
  'revert',
  'blame',
  'annotate',
  'archive',
  'format-patch',
  'name-rev',
  'describe',
]);
/** Options that select refs beyond HEAD's history. */
const GIT_HISTORY_OPT = /^(--(all|branches|remotes|tags|reflog|walk-reflogs|glob|remote)(=.*)?|-g)$/;
/** Options (of the subcommands above) that take a separate value, which is not a revision. */
const GIT_VALUE_OPTS: Record<string, Set<string>> = {
  _log: new Set(['-n', '--max-count', '--skip', '--since', '--after', '--until', '--before', '--author', '--committer', '--grep', '-S', '-G', '--format', '--pretty', '-L', '--date', '--diff-filter', '-O', '--encoding', '--decorate-refs', '--min-parents', '--max-parents']),
  checkout: new Set(['-b', '-B', '--orphan', '--conflict', '--pathspec-from-file']),
  switch: new Set(['-c', '-C', '--create', '--force-create', '--orphan', '--conflict']),
  restore: new Set(['--pathspec-from-file']),
  merge: new Set(['-m', '-X', '-s', '--strategy', '--strategy-option', '-F', '--file']),
  'cherry-pick': new Set(['-m', '--mainline', '-X', '--strategy', '--strategy-option']),
  revert: new Set(['-m', '--mainline', '-X', '--strategy', '--strategy-option']),
  rebase: new Set(['-X', '-s', '--strategy', '--strategy-option', '-x', '--exec']),
  'format-patch': new Set(['-o', '--output-directory', '-v', '--reroll-count', '--subject-prefix', '--suffix']),
  archive: new Set(['--format', '--prefix', '-o', '--output']),
  blame: new Set(['-L', '--contents', '-S']),
  'rev-parse': new Set(['--git-path', '--default', '--prefix', '--abbrev']),
};
const GIT_SPECIAL_REFS = new Set(['FETCH_HEAD', 'ORIG_HEAD', 'MERGE_HEAD', 'CHERRY_PICK_HEAD', 'REBASE_HEAD', 'REVERT_HEAD', 'AUTO_MERGE']);
const CAT_FILE_TYPES = new Set(['blob', 'tree', 'commit', 'tag']);

/**
 * What a git argument names: `head` (HEAD and its ancestors, the index, the
 * agent's own stash: inside the snapshot), `ref` (any other revision), `path`.
 */
function gitArgKind(arg: string): 'head' | 'ref' | 'path' {
  if (arg === '-') return 'ref'; // the previously checked-out branch
  if (arg.startsWith(':/')) return 'ref'; // search all commit messages
  const colon = arg.indexOf(':');
  const rev = colon >= 0 ? arg.slice(0, colon) : arg;
  if (colon >= 0 && rev === '') return 'head'; // `:path`, the index
  const sides = rev.includes('..') ? rev.split(/\.\.\.?/) : [rev];
  let kind: 'head' | 'ref' | 'path' = 'head';
  for (const side of sides) {
    const base = stripRevSuffix(side);
    let k: 'head' | 'ref' | 'path';
    if (base === '' || base === 'HEAD' || base === '@') k = 'head';
    else if (/^stash(@\{\d+\})?$/.test(base)) k = 'head';
    else if (base.includes('@{')) k = 'ref';
    else if (GIT_SPECIAL_REFS.has(base)) k = 'ref';
    else if (/^[0-9a-f]{7,40}$/i.test(base)) k = 'ref';
    else if (/^(refs|remotes|origin|upstream)\//.test(base)) k = 'ref';
    else if (VERSION_TAG.test(base)) k = 'ref'; // a tag such as v1.2.0
    else if (/^[A-Za-z][\w-]*$/.test(base)) k = 'ref'; // a bare name: a branch or tag (a dot-less file name is the rare false alarm)
    else k = 'path';
    if (colon >= 0 && k === 'path') k = 'ref'; // REV:path with an odd REV
    if (k === 'ref') return 'ref';
    if (k === 'path' && sides.length === 1) kind = 'path';
  }
  return kind;
}

/**
 * `side` without its trailing revision suffixes (`~3`, `^`, `^2`, `^{commit}`),
 * exactly what `side.replace(/(\^\{[^}]*\}|[~^]\d*)+$/, '')` gives: the
 * shortest prefix whose rest is a sequence of suffixes. That regex restarts at
 * every position and is quadratic on `~~~...~x` or `^{^{^{...`; this is one
 * right-to-left pass: `ok[p]` says whether `side.slice(p)` is a (possibly empty)
 * sequence of suffixes. @internal
 */
export function stripRevSuffix(side: string): string {
  const n = side.length;
  const ok = new Uint8Array(n + 1);
  ok[n] = 1;
  let digitsEnd = n; // end of the digit run starting at p + 1
  let close = -1; // index of the first `}` at or after p + 2
  for (let p = n - 1; p >= 0; p--) {
    const next = side[p + 1];
    if (next === undefined || next < '0' || next > '9') digitsEnd = p + 1;
    if (side[p + 2] === '}') close = p + 2;
    const c = side[p];
    if (c !== '~' && c !== '^') continue;
    // [~^]\d*: the digits are all-or-nothing, since a suffix never starts with a digit
    if (ok[p + 1] || ok[digitsEnd]) ok[p] = 1;
    // ^{...}: [^}]* stops at the first }
    else if (c === '^' && next === '{' && close >= 0 && ok[close + 1]) ok[p] = 1;
  }
  for (let p = 0; p < n; p++) if (ok[p]) return side.slice(0, p);
  return side;
}

/**
 * A version tag (`v1.2.0`, `1.2.3-rc.1`, `2.0+build`): the language of
 * `/^v?\d+(\.\d+)+([-+.][\w.-]*)?$/`, which backtracks quadratically on
 * `v1.1.1...1!` (every count of `(\.\d+)` is retried against the tail).
 * Same strings: after `\d+\.\d+`, a rest of `.N` groups and an optional
 * `[-+.][\w.-]*` is either empty, `.`/`-` then `[\w.-]*` (the groups' own
 * characters are in that class), or `(\.\d+)*` then `+` then `[\w.-]*`.
 * @internal
 */
export const VERSION_TAG = /^v?\d+\.\d+(?:[.-][\w.-]*|(?:\.\d+)*\+[\w.-]*)?$/;

/** True when a `git ...` argv mines history beyond the snapshot (see ruleFunnel). @internal */
export function gitMinesHistory(argv: readonly string[]): boolean {
  const k = gitSubcommandIndex(argv);
  const sub = argv[k];
  if (sub === undefined) return false;
  const args = argv.slice(k + 1);
  if (GIT_ALWAYS.has(sub)) return !args.some((a) => a === '-h' || a === '--help');
  if (sub === 'remote') return ['update', 'show', 'add', 'set-url', 'prune', 'set-head', 'set-branches'].includes(args.find((a) => !a.startsWith('-')) ?? '');
  // `-[A-Za-z]*[ar][A-Za-z]*` as two tests: one regex with two stars backtracks quadratically on `-aaa...a1`
  if (sub === 'branch') return args.some((a) => /^--(all|remotes)$/.test(a) || (/^-[A-Za-z]+$/.test(a) && /[ar]/.test(a)));
  if (sub === 'submodule') return args.includes('--remote');
  if (!GIT_REV_SUBCOMMANDS.has(sub)) return false;
  const logLike = ['log', 'show', 'whatchanged', 'shortlog', 'rev-list', 'diff', 'diff-tree', 'difftool', 'range-diff', 'blame', 'annotate'].includes(sub);
  const valueOpts = new Set([...(logLike ? GIT_VALUE_OPTS._log! : []), ...(GIT_VALUE_OPTS[sub] ?? [])]);
  const revs: string[] = [];
  for (let j = 0; j < args.length; j++) {
    const a = args[j]!;
    if (a === '--') break; // the rest are paths
    // `describe --tags|--all` / `name-rev --tags` only name HEAD by its nearest ref: not history beyond it
    if (GIT_HISTORY_OPT.test(a) && sub !== 'describe' && sub !== 'name-rev') return true;
    if (a === '--onto' || a === '--source' || a === '-s') {
      if (a === '-s' && sub !== 'restore') {
        if (valueOpts.has('-s')) j++;
        continue;
      }
      if (j + 1 < args.length) revs.push(args[++j]!);
      continue;
    }
    if (a.startsWith('--onto=') || a.startsWith('--source=')) {
      revs.push(a.slice(a.indexOf('=') + 1));
      continue;
    }
    if (a.startsWith('-')) {
      if (valueOpts.has(a)) j++;
      continue;
    }
    if (sub === 'cat-file' && CAT_FILE_TYPES.has(a)) continue;
    if (sub === 'restore') continue; // restore's plain arguments are paths
    if (/^\d+$/.test(a) && a.length < 7) continue; // a count, never a revision
    revs.push(a);
  }
  return revs.some((r) => gitArgKind(r) === 'ref');
}


/** Names under `.git/` that hold history beyond the snapshot: the reflog, other refs, packed objects. @internal */
export const GIT_INTERNAL_NAMES: ReadonlySet<string> = new Set(['logs', 'refs', 'packed-refs', 'objects', 'FETCH_HEAD', 'ORIG_HEAD', 'modules', 'worktrees']);

/** A path reading git's own bookkeeping directly: `.git/` followed by one of {@link GIT_INTERNAL_NAMES}. @internal */
export const GIT_INTERNALS = new RegExp(`(^|\\/)\\.git\\/(${[...GIT_INTERNAL_NAMES].join('|')})(\\/|$)`);
