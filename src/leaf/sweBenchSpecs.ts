/**
 * The test command and log format of each repository of SWE-bench Verified, as
 * `frognano tasks import` uses them when an instance has no `test_cmd` of its own
 * and no `--test-command` is given (SPEC §14, "Importing instances").
 *
 * Source, read for this table: github.com/SWE-bench/SWE-bench at commit
 * 25c52357b750af7e636daa54d03fce9861b3f3e6 (2026-06-24, the last commit that has
 * the Python specs in the harness):
 * - `swebench/harness/constants/python.py`: the `TEST_*` commands and
 *   `MAP_REPO_VERSION_TO_SPECS_PY` (each version's `test_cmd`). Note that the file
 *   assigns `TEST_PYTEST` twice; the second value, `pytest -rA`, is the one in effect.
 * - `swebench/harness/log_parsers/python.py`: `MAP_REPO_TO_PARSER_PY` (which parser
 *   reads each repository's log).
 * - `swebench/harness/test_spec/python.py` `get_test_directives`: the test files are
 *   the `b/` paths of `test_patch`'s `diff --git` lines, without those ending in one of
 *   `NON_TEST_EXTS` (`swebench/harness/constants/__init__.py`); for django/django each
 *   is turned into a module name (`.py` and a leading `tests/` dropped, `/` -> `.`).
 *   The harness runs `test_cmd` followed by these directives.
 *
 * SWE-bench runs these commands in its per-instance Docker images (a conda env at
 * `/testbed`, the package installed); frognano runs them in the task's sandbox, so
 * without a task environment (SPEC §14 "Environments", not part of the import yet)
 * the host must provide the interpreter and the dependencies.
 * @module
 */
import { sympyToTapCommand } from './sympyToTap.js';
import type { TestLogFormat } from './testLogs/index.js';

/** What frognano does with one SWE-bench repository. */
export interface SweBenchRepoSpec {
  /** SWE-bench's `test_cmd` (the test files are appended). */
  command: string;
  /** `test_cmd` by SWE-bench `version` where it differs from {@link command}. */
  commandByVersion?: Readonly<Record<string, string>>;
  /** SWE-bench's parser in `MAP_REPO_TO_PARSER_PY`. */
  sweBenchParser: string;
  /** The frognano log format that reads the command's output (after {@link wrapCommand}). */
  log: TestLogFormat;
  /** How SWE-bench's test ids become frognano's: `django` turns `test_x (module.Class)` into `module.Class.test_x`. */
  ids?: 'django';
  /** Wraps the test command (the instance's own, `--test-command`'s or {@link command}) so that its output reads as {@link log}; applied unless `--log` is given. */
  wrapCommand?: (command: string) => string;
  /** What is not equivalent to SWE-bench. */
  note?: string;
}

/** SWE-bench's `TEST_PYTEST` as in effect (the second assignment in constants/python.py). */
const TEST_PYTEST = 'pytest -rA';
/** SWE-bench's `TEST_ASTROPY_PYTEST`. */
const TEST_ASTROPY_PYTEST = 'pytest -rA -vv -o console_output_style=classic --tb=no';
/** SWE-bench's `TEST_DJANGO` and `TEST_DJANGO_NO_PARALLEL`. */
const TEST_DJANGO = './tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1';
const TEST_DJANGO_NO_PARALLEL = './tests/runtests.py --verbosity 2';

/**
 * The repositories of SWE-bench Verified. Each fact is from SWE-bench at the commit
 * named in this module's header.
 *
 * | repo | test_cmd | SWE-bench parser | frognano log |
 * | --- | --- | --- | --- |
 * | astropy/astropy | `pytest -rA` (`pytest -rA -vv -o console_output_style=classic --tb=no` for 0.1-1.3) | parse_log_pytest_v2 | pytest |
 * | django/django | `./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1` (1.9: `./tests/runtests.py --verbosity 2`) | parse_log_django | unittest (ids converted) |
 * | matplotlib/matplotlib | `pytest -rA` | parse_log_matplotlib | pytest |
 * | mwaskom/seaborn | `pytest --no-header -rA` | parse_log_seaborn | pytest |
 * | pallets/flask | `pytest -rA` | parse_log_pytest | pytest |
 * | psf/requests | `pytest -rA` | parse_log_pytest_options | pytest |
 * | pydata/xarray | `pytest -rA` | parse_log_pytest | pytest |
 * | pylint-dev/pylint | `pytest -rA` | parse_log_pytest_options | pytest |
 * | pytest-dev/pytest | `pytest -rA` | parse_log_pytest | pytest |
 * | scikit-learn/scikit-learn | `pytest -rA` | parse_log_pytest_v2 | pytest |
 * | sphinx-doc/sphinx | `tox --current-env -epy39 -v --` | parse_log_pytest_v2 | pytest (needs tox with tox-current-env) |
 * | sympy/sympy | `PYTHONWARNINGS='ignore::UserWarning,ignore::SyntaxWarning' bin/test -C --verbose` | parse_log_sympy | tap (the command wrapped by sympyToTapCommand) |
 */
export const SWE_BENCH_SPECS: Readonly<Record<string, SweBenchRepoSpec>> = {
  'astropy/astropy': {
    command: TEST_PYTEST,
    commandByVersion: Object.fromEntries(['0.1', '0.2', '0.3', '0.4', '1.1', '1.2', '1.3'].map((v) => [v, TEST_ASTROPY_PYTEST])),
    sweBenchParser: 'parse_log_pytest_v2',
    log: 'pytest',
    note: 'parse_log_pytest_v2 also strips ANSI escapes and reads the -vv lines; frognano\'s pytest parser reads the -rA summary, then the -v lines',
  },
  'django/django': {
    command: TEST_DJANGO,
    commandByVersion: { '1.9': TEST_DJANGO_NO_PARALLEL },
    sweBenchParser: 'parse_log_django',
    log: 'unittest',
    ids: 'django',
    note: 'runtests.py --verbosity 2 prints unittest result lines `test_x (module.Class) ... ok`, read by parseUnittestLog as module.Class.test_x; '
      + 'SWE-bench ids that are a docstring line (not `name (module.Class)`) are kept as they are and will read as missing; parse_log_django\'s special cases (output between `...` and `ok`) are covered by the unittest parser\'s pending-status rule unless that output holds a `name (module.Class)` line of its own (a status glued to output without a newline is read too); '
      + 'runtests.py\'s shebang is `#!/usr/bin/env python` and it needs django importable: without a task environment giving both, use --test-command \'PYTHONPATH=. python3 ./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1 {test_files}\'',
  },
  'matplotlib/matplotlib': { command: TEST_PYTEST, sweBenchParser: 'parse_log_matplotlib', log: 'pytest' },
  'mwaskom/seaborn': { command: 'pytest --no-header -rA', sweBenchParser: 'parse_log_seaborn', log: 'pytest' },
  'pallets/flask': { command: TEST_PYTEST, sweBenchParser: 'parse_log_pytest', log: 'pytest' },
  'psf/requests': { command: TEST_PYTEST, sweBenchParser: 'parse_log_pytest_options', log: 'pytest' },
  'pydata/xarray': { command: TEST_PYTEST, sweBenchParser: 'parse_log_pytest', log: 'pytest' },
  'pylint-dev/pylint': { command: TEST_PYTEST, sweBenchParser: 'parse_log_pytest_options', log: 'pytest' },
  'pytest-dev/pytest': { command: TEST_PYTEST, sweBenchParser: 'parse_log_pytest', log: 'pytest' },
  'scikit-learn/scikit-learn': { command: TEST_PYTEST, sweBenchParser: 'parse_log_pytest_v2', log: 'pytest' },
  'sphinx-doc/sphinx': {
    command: 'tox --current-env -epy39 -v --',
    sweBenchParser: 'parse_log_pytest_v2',
    log: 'pytest',
    note: 'needs tox and the tox-current-env plugin in the task\'s environment; sphinx\'s tox.ini runs pytest with -rA',
  },
  'sympy/sympy': {
    command: "PYTHONWARNINGS='ignore::UserWarning,ignore::SyntaxWarning' bin/test -C --verbose",
    sweBenchParser: 'parse_log_sympy',
    log: 'tap',
    wrapCommand: sympyToTapCommand,
    note: 'SPEC §14 has no sympy log format: the command is wrapped so that python3 turns bin/test\'s output into TAP (sympyToTap.ts, ids `test_x` as SWE-bench lists them); '
      + 'it also reads each file\'s last test and the f/X/s/w marks, which parse_log_sympy misses',
  },
};

/** SWE-bench's `NON_TEST_EXTS`: `test_patch` paths with these endings are not test directives (`"csv"` without a dot, as in SWE-bench). */
export const NON_TEST_EXTS: readonly string[] = ['.json', '.png', 'csv', '.txt', '.md', '.jpg', '.jpeg', '.pkl', '.yml', '.yaml', '.toml'];

/** The files a unified diff touches: the `b/` path of each `diff --git a/... b/...` line, in order, each once. */
export function patchFiles(patch: string): string[] {
  const out: string[] = [];
  for (const m of patch.matchAll(/^diff --git a\/.* b\/(.*)$/gm)) if (!out.includes(m[1]!)) out.push(m[1]!);
  return out;
}

/** SWE-bench's test directives of a `test_patch` (`get_test_directives`): its files but {@link NON_TEST_EXTS}; django's as module names. */
export function testDirectives(repo: string, testPatch: string): string[] {
  const files = patchFiles(testPatch).filter((f) => !NON_TEST_EXTS.some((e) => f.endsWith(e)));
  if (repo !== 'django/django') return files;
  return files.map((f) => {
    let d = f.endsWith('.py') ? f.slice(0, -3) : f;
    if (d.startsWith('tests/')) d = d.slice('tests/'.length);
    return d.replace(/\//g, '.');
  });
}

/** A Django test id as SWE-bench lists it, `test_x (module.Class)` or `test_x (module.Class.test_x)`, as parseUnittestLog names it; anything else unchanged. */
export function djangoTestId(id: string): string {
  const m = /^([\p{L}_][\p{L}\p{N}_]*) \(([^\s()]+)\)$/u.exec(id.trim());
  if (!m) return id;
  return m[2]!.endsWith(`.${m[1]}`) ? m[2]! : `${m[2]}.${m[1]}`;
}
