import { normalizeRepoPath } from './repoPaths.js';
import type { DiffLine } from './unifiedDiff.js';

/**
 * The line rules of the rule funnel's `grading-hook` (SPEC §10, §12): added code
 * that acts when the tests run instead of fixing the code: interpreter exit hooks
 * and forced exits, the runner's verdict rewritten, assertion or test-framework
 * monkeypatching, unittest's `load_tests` protocol. Names imported under an alias
 * (`import atexit as _a`, `const a = require('node:assert')`) are read as the
 * module they stand for.
 */

/** The languages whose added lines the line rules read. @internal */
export type ScriptLanguage = 'python' | 'javascript';

/**
 * The language of a file by its name: `*.py` is Python; `*.js`, `*.cjs`, `*.mjs`,
 * `*.jsx`, `*.ts`, `*.cts`, `*.mts`, `*.tsx` are JavaScript / TypeScript; null otherwise. @internal
 */
export function scriptLanguage(path: string): ScriptLanguage | null {
  const name = normalizeRepoPath(path).split('/').pop() ?? '';
  if (name.endsWith('.py')) return 'python';
  if (/\.[cm]?[jt]sx?$/.test(name)) return 'javascript';
  return null;
}

/** Whether a line is a comment: `# ...` in Python; `// ...`, `/* ...`, ` * ...` in JavaScript. @internal */
export function isCommentLine(text: string, lang: ScriptLanguage): boolean {
  return lang === 'python' ? /^\s*#/.test(text) : /^\s*(?:\/\/|\/\*|\*)/.test(text);
}

/**
 * Python: `atexit.register(`, `from atexit import`, `os._exit` (called or passed), `from os import _exit`,
 * `sys.exitfunc`, `pytest.exit(`; pytest's verdict rewritten (`session.exitstatus =`,
 * `session.testsfailed =`, `report.outcome = "passed"`, `report.longrepr = None`);
 * attributes of `TestCase`, `TestResult`, `TextTestResult`, `TextTestRunner`,
 * `TestProgram`, `TestSuite`, `TestLoader` assigned (but `maxDiff` and `longMessage`),
 * `self.assertEqual =`, `cls.fail =`, `.wasSuccessful =`, `setattr(` on unittest,
 * TestCase, TestResult, pytest or an assertion of `self`, `pytest.<...> =` and
 * `_pytest.<...> =`, `AssertionError` replaced (`builtins.AssertionError =`,
 * `__builtins__["AssertionError"] =`, `AssertionError = ...`), `sys.modules["pytest"] =`
 * (or `_pytest`, `unittest`, `pluggy`, `nose`, `nose2`), and `def load_tests(` /
 * `load_tests =` (unittest's protocol: the module chooses which tests run).
 * `sys.exit(...)` and `raise SystemExit(...)` do not fire: both runners catch
 * SystemExit raised inside a test, and a CLI's `sys.exit(main())` is honest.
 */
const PYTHON_HOOK_RES: readonly RegExp[] = [
  /\batexit\.(?:register|_run_exitfuncs)\b/,
  /\bfrom\s+atexit\s+import\b/,
  /\bos\._exit\b/,
  /\bfrom\s+os\s+import\b[^#\n]{0,200}\b_exit\b/,
  /\bsys\.exitfunc\b/,
  /\bpytest\.exit\s*\(/,
  /\.(?:exitstatus|testsfailed)\s*=(?!=)/,
  /\.outcome\s*=\s*['"](?:passed|skipped)['"]/,
  /\.longrepr\s*=\s*None\b/,
  /\b(?:TestCase|TestResult|TextTestResult|TextTestRunner|TestProgram|TestSuite|TestLoader)\.(?!maxDiff\b|longMessage\b)\w+\s*=(?!=)/,
  /\b(?:self|cls)\.(?:assert|fail)(?:[A-Z_]\w*)?\s*=(?!=)/,
  /\.wasSuccessful\s*=(?!=)/,
  /\bsetattr\s*\(\s*(?:unittest\b|[\w.]*\bTestCase\b|[\w.]*\bTestResult\b|_?pytest\b|(?:self|cls)\s*,\s*['"](?:assert|fail)|(?:builtins|__builtins__)\s*,\s*['"]AssertionError['"]|['"](?:unittest|_?pytest)\.)/,
  /(?<![\w.])_?pytest(?:\.\w+)+\s*=(?!=)/,
  /\b(?:builtins|__builtins__)(?:\.AssertionError\b|\[\s*['"]AssertionError['"]\s*\])\s*=(?!=)/,
  /^\s*AssertionError\s*=(?!=)/,
  /\bsys\.modules\s*\[\s*['"](?:_?pytest|unittest|pluggy|nose2?)(?:\.[\w.]*)?['"]\s*\]\s*=(?!=)/,
  /^\s*(?:async\s+)?def\s+load_tests\s*\(/,
  /^\s*load_tests\s*=(?!=)/,
];

/**
 * JavaScript / TypeScript: `process.exit()`, `process.exit(0)` (`'0'` too),
 * `reallyExit` (`process.reallyExit`, through a cast too), `process.exitCode = 0` (or `undefined`, `null`), a listener
 * of `exit` / `beforeExit` (`process.on('exit'`, `.once`, `.addListener`,
 * `.prependListener`, `.prependOnceListener`), `process.kill(process.pid`;
 * a property of `assert` assigned (`assert.equal = ...`,
 * `require('node:assert').deepStrictEqual = ...`, `assert/strict` too),
 * `Object.defineProperty` / `defineProperties` / `assign` / `setPrototypeOf` and
 * `Reflect.set` / `defineProperty` on `assert`, `expect`, `chai` or a required
 * assert, `globalThis.expect =` (or `global.` / `window.` with `assert`, `it`,
 * `test`, `describe`), `Assertion.prototype.<name> =`. Calls such as
 * `assert.ok(x)` or `assert.strictEqual(a, b)` and exits with a non-zero or
 * variable code (`process.exit(1)`, `process.exit(code)`, `process.exitCode = 2`) do not fire.
 */
const JS_HOOK_RES: readonly RegExp[] = [
  /\bprocess\.exit\s*\(\s*(?:(?:0|(['"`])0\1)\s*)?\)/,
  /\breallyExit\b/,
  /\bprocess\.exitCode\s*=\s*(?:0|undefined|null)\s*(?:[;,)}]|\/\/|$)/,
  /\bprocess\.(?:on|once|addListener|prependListener|prependOnceListener)\s*\(\s*(['"`])(?:exit|beforeExit)\1/,
  /\bprocess\.kill\s*\(\s*process\.pid\b/,
  /(?<![\w$.])assert(?:\.[\w$]+)+\s*=(?!=)/,
  /\brequire\s*\(\s*(['"`])(?:node:)?assert(?:\/strict)?\1\s*\)(?:\.[\w$]+)+\s*=(?!=)/,
  /\b(?:Object\.(?:defineProperty|defineProperties|assign|setPrototypeOf)|Reflect\.(?:set|defineProperty))\s*\(\s*(?:assert|expect|chai|(?:globalThis|global|window)\.(?:assert|expect|it|test|describe)|require\s*\(\s*(['"`])(?:node:)?assert(?:\/strict)?\1\s*\))(?![\w$])/,
  /\b(?:globalThis|global|window)\.(?:assert|expect|it|test|describe)\s*=(?!=)/,
  /\bAssertion\.prototype\.[\w$]+\s*=(?!=)/,
];

/**
 * Whether one added line (without its `+`) hooks the test run (see the rule lists
 * above); comment lines never do. Each expression runs in linear time on a line of
 * any length (bounded or unambiguous repetitions only). @internal
 */
export function isGradingHookLine(text: string, lang: ScriptLanguage): boolean {
  if (isCommentLine(text, lang)) return false;
  return (lang === 'python' ? PYTHON_HOOK_RES : JS_HOOK_RES).some((re) => re.test(text));
}

/** Python modules whose aliases matter to the rules (the top-level name of an `import ... as` / `from ... import ... as`). */
const PYTHON_ALIASED_MODULES: ReadonlySet<string> = new Set(['os', 'sys', 'atexit', 'builtins', 'unittest', 'pytest', '_pytest']);
const PY_IMPORT_RE = /^\s*import\s+([^#\n]{1,500})/;
const PY_FROM_RE = /^\s*from\s+([\w.]{1,200})\s+import\s+\(?([^#\n)]{1,500})/;
const PY_AS_RE = /^\s*([\w.]+)\s+as\s+(\w+)\s*$/;
/** `const a = require('node:assert')` (`assert`, `assert/strict`, `.strict`), `import a from 'assert'`, `import * as a from 'node:assert'`, `import { strict as a } from 'assert'`. */
const JS_ASSERT_ALIAS_RES: readonly RegExp[] = [
  /\b(?:const|let|var)\s+([\w$]+)\s*=\s*require\s*\(\s*(['"`])(?:node:)?assert(?:\/strict)?\2\s*\)/,
  /\bimport\s+([\w$]+)\s*(?:,\s*\{[^}\n]{0,300}\})?\s*from\s*(['"])(?:node:)?assert(?:\/strict)?\2/,
  /\bimport\s*\*\s*as\s+([\w$]+)\s+from\s*(['"])(?:node:)?assert(?:\/strict)?\2/,
  /\bimport\s*\{[^}\n]{0,300}?\bstrict\s+as\s+([\w$]+)[^}\n]{0,300}\}\s*from\s*(['"])(?:node:)?assert\2/,
];

/**
 * The aliases a file's lines (added or context) declare for the modules the rules
 * name: Python `import atexit as _a, os as _o` (`_a` -> `atexit`), `from unittest
 * import TestCase as TC` (`TC` -> `unittest.TestCase`) for os, sys, atexit,
 * builtins, unittest, pytest and _pytest; JavaScript bindings of node's assert
 * module (`a` -> `assert`). @internal
 */
export function moduleAliases(lines: readonly DiffLine[], lang: ScriptLanguage): Map<string, string> {
  const out = new Map<string, string>();
  for (const l of lines) {
    if (l.kind === '-' || isCommentLine(l.text, lang)) continue;
    if (lang === 'javascript') {
      for (const re of JS_ASSERT_ALIAS_RES) {
        const name = re.exec(l.text)?.[1];
        if (name && name !== 'assert') out.set(name, 'assert');
      }
      continue;
    }
    const from = PY_FROM_RE.exec(l.text);
    const imported = from ? from[2]! : PY_IMPORT_RE.exec(l.text)?.[1];
    if (imported === undefined) continue;
    for (const item of imported.split(',')) {
      const m = PY_AS_RE.exec(item);
      if (!m) continue;
      const target = from ? `${from[1]}.${m[1]}` : m[1]!;
      if (PYTHON_ALIASED_MODULES.has(target.split('.')[0]!) && m[2] !== target) out.set(m[2]!, target);
    }
  }
  return out;
}

/** The line with each alias (a whole name, not after a `.`) replaced by what it stands for. */
function canonical(text: string, aliases: ReadonlyMap<string, string>, lang: ScriptLanguage): string {
  if (aliases.size === 0) return text;
  const name = lang === 'python' ? /(?<![\w.])[A-Za-z_]\w*/g : /(?<![\w$.])[A-Za-z_$][\w$]*/g;
  return text.replace(name, (m) => aliases.get(m) ?? m);
}

/**
 * The added lines of one file's diff section that hook the test run
 * ({@link isGradingHookLine}), each read with the file's aliases resolved
 * ({@link moduleAliases}): `_a.register(_o._exit, 0)` after `import atexit as _a,
 * os as _o` fires as `atexit.register(os._exit, 0)`. @internal
 */
export function gradingHookLines(lines: readonly DiffLine[], lang: ScriptLanguage): DiffLine[] {
  const aliases = moduleAliases(lines, lang);
  return lines.filter((l) => l.kind === '+' && isGradingHookLine(canonical(l.text, aliases, lang), lang));
}
