import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue } from '../errors/validate.js';
import { classifyRepoPath } from './repoPaths.js';
import { parseShell } from './shell.js';
import { commandName } from './shellWords.js';

const RUNNERS = new Set([
  'pytest',
  'py.test',
  'tox',
  'nox',
  'jest',
  'vitest',
  'mocha',
  'ava',
  'tap',
  'karma',
  'rspec',
  'phpunit',
  'ctest',
  'nosetests',
  'nose2',
  'trial',
  'behave',
  'cucumber',
  'playwright',
]);
const PY_TEST_MODULES = new Set(['pytest', 'unittest', 'nose2', 'nose', 'tox', 'nox', 'trial', 'doctest']);
const JS_PM = new Set(['npm', 'yarn', 'pnpm', 'bun']);
const BUILD_TEST_VERBS: Record<string, Set<string>> = {
  go: new Set(['test']),
  cargo: new Set(['test', 'nextest']),
  mvn: new Set(['test', 'verify']),
  mvnw: new Set(['test', 'verify']),
  gradle: new Set(['test', 'check']),
  gradlew: new Set(['test', 'check']),
  make: new Set(['test', 'tests', 'check']),
  dotnet: new Set(['test']),
  deno: new Set(['test']),
  mix: new Set(['test']),
  swift: new Set(['test']),
  rake: new Set(['test', 'spec']),
};

/**
 * True when one argv runs tests. `npx X ...` and `bundle exec X ...` are
 * unwrapped in a loop, not by recursion: a hostile `npx npx npx ...` of 200,000
 * characters would otherwise nest 50,000 calls, each copying the rest of argv
 * (quadratic memory, then a stack overflow).
 */
function argvRunsTests(words: readonly string[]): boolean {
  let argv = words;
  let k = 0; // argv[k..] is the command being looked at
  let filtered = false; // after an `npx`, argv holds only the non-option words (idempotent to redo)
  for (;;) {
    if (k >= argv.length) return false;
    const name = commandName(argv[k]);
    if (RUNNERS.has(name)) return true;
    if (['npx', 'pnpx', 'bunx'].includes(name)) {
      if (filtered) k++;
      else {
        argv = argv.slice(k + 1).filter((a) => !a.startsWith('-'));
        k = 0;
        filtered = true;
      }
      continue;
    }
    if (name === 'bundle' && argv[k + 1] === 'exec') {
      k += 2;
      continue;
    }
    break;
  }
  return runsTestsDirectly(k === 0 ? argv : argv.slice(k));
}

/** {@link argvRunsTests} once `npx` / `bundle exec` wrappers are gone (argv[0] is neither a runner nor a wrapper). */
function runsTestsDirectly(argv: readonly string[]): boolean {
  const name = commandName(argv[0]);
  if (/^python(\d(\.\d+)?)?$/.test(name)) {
    const m = argv.indexOf('-m');
    if (m >= 0) return PY_TEST_MODULES.has((argv[m + 1] ?? '').split('.')[0]!);
    const script = argv.slice(1).find((a) => !a.startsWith('-'));
    if (!script) return false;
    const base = commandName(script);
    if (base === 'manage.py' || base === 'setup.py') return argv.includes('test');
    return base === 'runtests.py' || base === 'run_tests.py' || classifyRepoPath(script) === 'test';
  }
  if (JS_PM.has(name)) {
    const verb = argv.slice(1).find((a) => !a.startsWith('-')) ?? '';
    if (verb === 'test' || verb === 't') return true;
    if (verb === 'run' || verb === 'run-script' || verb === 'exec' || verb === 'dlx') {
      const script = argv.slice(argv.indexOf(verb) + 1).find((a) => !a.startsWith('-')) ?? '';
      return /^test(:|$)|^(jest|vitest|mocha)$/.test(script);
    }
    return /^test:/.test(verb);
  }
  if (name === 'node' && argv.includes('--test')) return true;
  const verbs = BUILD_TEST_VERBS[name];
  if (verbs) return argv.slice(1).some((a) => verbs.has(a));
  if (name.endsWith('.sh') && classifyRepoPath(argv[0]!) === 'evaluator') return true;
  if (['bash', 'sh'].includes(name) && argv[1] && argv[1].endsWith('.sh') && classifyRepoPath(argv[1]) === 'evaluator') return true;
  return false;
}

/**
 * Whether a shell command runs a test suite (FrogNano §5.2: passing agents are
 * more likely to end with executable verification): `pytest`, `python -m
 * pytest|unittest|tox`, `python tests/test_x.py`, `python manage.py test`,
 * `tox`, `nox`, `npm|yarn|pnpm|bun test` (and `run test:*`), `npx jest|vitest`,
 * `jest`, `vitest`, `mocha`, `go test`, `cargo test`, `mvn test`, `gradle test`,
 * `make test|check`, `dotnet test`, `deno test`, `rspec`, `bundle exec rspec`,
 * `rake test`, `mix test`, `swift test`, `ctest`, `phpunit`, `node --test`, or a
 * grading script (`./evaluation.sh`, `bash run_tests.sh`). Nested commands count
 * (`cd pkg && go test ./...`, `bash -c "pytest -q"`).
 *
 * @throws FrognanoError `INVALID_TYPE` when `command` is not a string
 * @example isTestRunCommand('cd /repo && python -m pytest -x tests/test_io.py 2>&1 | tail -5') // true
 * @example isTestRunCommand('cat tests/test_io.py') // false
 */
export function isTestRunCommand(command: string): boolean {
  if (typeof command !== 'string') {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `command must be a string, got ${describeValue(command)}`, {
      fn: 'isTestRunCommand',
      field: 'command',
    });
  }
  return parseShell(command).some((c) => argvRunsTests(c.argv.map((w) => w.value)));
}
