/** The mutation kinds on small Python / JS / TS snippets: exact sites and replacement texts (SPEC §15). */
import { describe, expect, it } from 'vitest';
import { applySite, findMutationSites, isTestPath, languageOf, MUTATION_KINDS, parsesCleanly, type MutationKind, type MutationLanguage } from '../../src/taskpilot/mutation/index.js';
import { statementLevels, failureMessages, testWords } from '../../src/taskpilot/mutation/index.js';

/** `[original, replacement]` of every site of `kind` in `src`. */
async function edits(src: string, lang: MutationLanguage, kind: MutationKind): Promise<[string, string][]> {
  return (await findMutationSites(src, 'f', lang, [kind])).map((s) => [s.original, s.replacement]);
}

const PY = 'def f(a, b):\n    """doc"""\n    if a < b and not a is None:\n        return a[1:2]\n    x = foo(a, b, k=1)\n    y = bar(a, b)\n    while c in d:\n        print("hi", f"{a}")\n    return True\n';
const JS = 'function g(a, b) {\n  if (a <= b || a === 0) {\n    return h(a, b);\n  }\n  const c = a.length - 1;\n  count += 2;\n  return "s" + false;\n}\nconst k = (x) => x > 3;\n';

const TABLE: [MutationKind, MutationLanguage, string, [string, string][]][] = [
  ['flip-comparison', 'python', PY, [['<', '>'], ['is', 'is not'], ['in', 'not in']]],
  ['flip-comparison', 'python', 'def f(a):\n    return a not in b or a is not c or a >= 1\n', [['not in', 'in'], ['is not', 'is'], ['>=', '<=']]],
  ['flip-comparison', 'javascript', JS, [['<=', '>='], ['===', '!=='], ['>', '<']]],
  ['flip-boolean', 'python', PY, [['and', 'or'], ['True', 'False']]],
  ['flip-boolean', 'javascript', JS, [['||', '&&'], ['false', 'true']]],
  ['invert-condition', 'python', PY, [['a < b and not a is None', 'not (a < b and not a is None)'], ['c in d', 'not (c in d)']]],
  ['invert-condition', 'javascript', JS, [['(a <= b || a === 0)', '(!(a <= b || a === 0))']]],
  ['shift-bound', 'python', 'def f(a):\n    for i in range(0, 10):\n        if a[2:] > 5: pass\n', [['0', '1'], ['10', '11'], ['2', '3'], ['5', '6']]],
  ['shift-bound', 'javascript', JS, [['0', '1'], ['3', '4']]],
  ['swap-arguments', 'python', PY, [['a, b', 'b, a'], ['"hi", f"{a}"', 'f"{a}", "hi"']]],
  ['swap-arguments', 'javascript', JS, [['a, b', 'b, a']]],
  ['remove-statement', 'python', PY, [['    x = foo(a, b, k=1)\n', ''], ['    y = bar(a, b)\n', '']]],
  ['remove-statement', 'javascript', JS, [['  count += 2;\n', '']]],
  ['remove-return', 'python', 'def f(a):\n    if a:\n        return None\n    return a + 1\n', [['return a + 1', 'return None']]],
  ['remove-return', 'javascript', JS, [['return h(a, b);', 'return;'], ['return "s" + false;', 'return;']]],
  ['change-constant', 'python', PY, [['1', '2'], ['"hi"', '"hix"']]],
  ['change-constant', 'javascript', JS, [['1', '2'], ['2', '3'], ['"s"', '"sx"']]],
];

describe('mutation kinds: exact replacement texts', () => {
  it.each(TABLE)('%s on %s', async (kind, lang, src, want) => {
    expect(await edits(src, lang, kind)).toEqual(want);
  });

  it('TypeScript parses with the TS grammar (types are no sites) and gives the JS sites', async () => {
    const ts = 'export function clamp(x: number, lo: number): number {\n  if (x < lo) return lo;\n  return x;\n}\n';
    expect(await edits(ts, 'typescript', 'flip-comparison')).toEqual([['<', '>']]);
    expect(await edits(ts, 'typescript', 'remove-return')).toEqual([['return lo;', 'return;'], ['return x;', 'return;']]);
  });

  it('only sites inside functions, with the enclosing (qualified) name and line', async () => {
    const src = 'X = 1 < 2\nclass A:\n    def m(self, a):\n        return a < 1\n';
    const sites = await findMutationSites(src, 'a.py', 'python', ['flip-comparison']);
    expect(sites).toEqual([{ file: 'a.py', kind: 'flip-comparison', startByte: 56, endByte: 57, original: '<', replacement: '>', function: 'A.m', line: 4 }]);
    expect(applySite(src, sites[0]!)).toBe(src.replace('a < 1', 'a > 1'));
  });

  it('every kind keeps the file parseable on the snippets', async () => {
    for (const [src, lang] of [[PY, 'python'], [JS, 'javascript']] as const) {
      for (const s of await findMutationSites(src, 'f', lang, MUTATION_KINDS)) expect(await parsesCleanly(applySite(src, s), lang), `${s.kind} ${s.original}`).toBe(true);
    }
  });

  it('offsets are string offsets even after non-ASCII text', async () => {
    const src = 'def f(a):\n    s = "é€"\n    return a < 1\n';
    const [site] = await findMutationSites(src, 'f', 'python', ['flip-comparison']);
    expect(src.slice(site!.startByte, site!.endByte)).toBe('<');
  });
});

describe('file rules and statements', () => {
  it('languages and test paths', () => {
    expect(['a.py', 'a.mjs', 'a.ts', 'a.d.ts', 'a.tsx', 'a.rb'].map(languageOf)).toEqual(['python', 'javascript', 'typescript', null, 'tsx', null]);
    expect(['tests/x.py', 'src/test_a.py', 'a_test.py', 'conftest.py', 'src/a.test.js', 'lib/a.spec.ts', 'src/a.py', 'src/testing_utils.py'].map(isTestPath)).toEqual([true, true, true, true, true, true, false, false]);
  });

  it('three levels from the failing names, the messages, the place; never the original code', () => {
    const log = 'FAILED testing/test_x.py::test_parse_empty_line - AssertionError: assert 2 == 1\n';
    const m = failureMessages(log, 'pytest');
    expect(testWords('testing/test_x.py::test_parse_empty_line')).toBe('parse empty line');
    const [l0, l1, l2] = statementLevels(['testing/test_x.py::test_parse_empty_line'], m, { file: 'src/x.py', function: 'parse' });
    expect(l0).toContain('"parse empty line"');
    expect(l1).toContain('testing/test_x.py::test_parse_empty_line: AssertionError: assert 2 == 1');
    expect(l2).toContain('`parse` in src/x.py');
    expect(failureMessages("not ok 1 - merges touching\n  ---\n  error: 'Expected values to be strictly deep-equal'\n", 'tap').get('merges touching')).toBe('Expected values to be strictly deep-equal');
  });
});
