import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { classifyRepoPath, isGradingConfigText } from './repoPaths.js';
import { parseShell } from './shell.js';
import { commandName, effectiveArgv } from './shellWords.js';
import { isTestRunCommand } from './testRuns.js';
import { parseUnifiedDiff } from './unifiedDiff.js';

const texts = (s: string) => parseShell(s).map((c) => c.text);
const argvs = (s: string) => parseShell(s).map((c) => c.argv.map((w) => w.value));

describe('parseShell', () => {
  it('splits on ; && || | |& & and newlines, keeping exact spans', () => {
    const s = 'cd src && git log --all --oneline | head -5; ls || echo no & wait\npwd |& cat';
    expect(texts(s)).toEqual(['cd src', 'git log --all --oneline', 'head -5', 'ls', 'echo no', 'wait', 'pwd', 'cat']);
    for (const c of parseShell(s)) expect(s.slice(c.start, c.end)).toBe(c.text);
  });
  it('removes quotes and processes escapes in words', () => {
    expect(argvs(`echo 'a b' "c \\"d\\" \\$e" f\\ g $'h\\ti'`)).toEqual([['echo', 'a b', 'c "d" $e', 'f g', 'h\ti']]);
  });
  it('keeps quoted text as data: echo "git reflog" is one echo', () => {
    expect(argvs('echo "git reflog; git fetch"')).toEqual([['echo', 'git reflog; git fetch']]);
  });
  it('skips comments but not # inside a word', () => {
    expect(argvs('git status # git reflog\necho a#b')).toEqual([['git', 'status'], ['echo', 'a#b']]);
  });
  it('joins line continuations', () => {
    expect(argvs('git log \\\n  --all')).toEqual([['git', 'log', '--all']]);
  });
  it('reads redirections with descriptors, and the targets are not argv', () => {
    const [c] = parseShell('pytest -q tests/ > /tmp/out.txt 2>&1');
    expect(c!.argv.map((w) => w.value)).toEqual(['pytest', '-q', 'tests/']);
    expect(c!.redirects.map((r) => [r.op, r.fd, r.target?.value])).toEqual([
      ['>', null, '/tmp/out.txt'],
      ['>&', '2', '1'],
    ]);
    expect(parseShell('echo x >>tests/a.py')[0]!.redirects[0]!.target!.value).toBe('tests/a.py');
    expect(parseShell('cmd &>log.txt')[0]!.redirects[0]!.op).toBe('&>');
  });
  it('captures here-document bodies without parsing them as commands', () => {
    const s = "cat > tests/test_x.py <<'EOF'\ngit reflog\nassert 1\nEOF\npytest -q";
    const cs = parseShell(s);
    expect(cs.map((c) => c.text)).toEqual(["cat > tests/test_x.py <<'EOF'", 'pytest -q']);
    const h = cs[0]!.redirects[1]!.heredoc!;
    expect(h.body).toBe('git reflog\nassert 1\n');
    expect(s.slice(h.start, h.end)).toBe(h.body);
  });
  it('<<- strips leading tabs of the terminator; an unterminated body runs to the end', () => {
    expect(parseShell('cat <<-END\n\tx\n\tEND\nls')[0]!.redirects[0]!.heredoc!.body).toBe('\tx\n');
    expect(texts('cat <<-END\n\tx\n\tEND\nls')).toEqual(['cat <<-END', 'ls']);
    expect(parseShell('cat <<EOF\nno end')[0]!.redirects[0]!.heredoc!.body).toBe('no end');
  });
  it('parses $(...), backticks and <(...) as nested commands with exact spans', () => {
    const s = 'x=$(git rev-list --all | head -1); echo "`git reflog`" <(git fetch)';
    const cs = parseShell(s);
    expect(cs.map((c) => [c.depth, c.text])).toEqual([
      [0, 'x=$(git rev-list --all | head -1)'],
      [1, 'git rev-list --all'],
      [1, 'head -1'],
      [0, 'echo "`git reflog`" <(git fetch)'],
      [1, 'git reflog'],
      [1, 'git fetch'],
    ]);
    expect(cs[0]!.argv).toEqual([]); // a bare assignment runs nothing itself
    expect(argvs('echo $((1 + 2))')).toEqual([['echo', '$((1 + 2))']]);
  });
  it('runs the script of bash -c / sh -lc / eval / a shell fed by a here-document', () => {
    expect(parseShell("bash -c 'git log --all'").map((c) => [c.depth, c.text])).toEqual([
      [0, "bash -c 'git log --all'"],
      [1, 'git log --all'],
    ]);
    expect(argvs('sh -lc "cd x && git fetch"').slice(1)).toEqual([['cd', 'x'], ['git', 'fetch']]);
    expect(argvs('eval git reflog').slice(1)).toEqual([['git', 'reflog']]);
    expect(argvs('bash <<EOF\ngit reflog\nEOF').slice(1)).toEqual([['git', 'reflog']]);
    expect(argvs('bash <<< "git fetch"').slice(1)).toEqual([['git', 'fetch']]);
    expect(argvs('bash run.sh').length).toBe(1);
  });
  it('maps a nested command with escapes to the whole word holding it', () => {
    const s = 'bash -c "git show \\"abc1234\\""';
    const inner = parseShell(s)[1]!;
    expect(inner.argv.map((w) => w.value)).toEqual(['git', 'show', 'abc1234']);
    expect(inner.text).toBe('"git show \\"abc1234\\""');
  });
  it('unwraps sudo, env, timeout, nohup, time, xargs, assignments and { }', () => {
    expect(argvs('sudo -u bob env -i A=1 timeout -s KILL 30 nohup time git fetch')).toEqual([['git', 'fetch']]);
    expect(argvs('FOO=1 BAR=2 git reflog')).toEqual([['git', 'reflog']]);
    expect(argvs('echo abc | xargs -n 1 git show')[1]).toEqual(['git', 'show']);
    expect(argvs('{ git reflog; }')).toEqual([['git', 'reflog'], []]);
    expect(argvs('( cd tests && ls )')).toEqual([['cd', 'tests'], ['ls']]);
  });
  it('turns find -exec into a nested command whose {} keeps the searched place', () => {
    expect(argvs('find tests -name "*.py" -exec sed -i s/a/b/ {} +')[1]).toEqual(['sed', '-i', 's/a/b/', 'tests/*.py']);
    expect(argvs("find . -path '*/tests/*' -exec rm {} \\;")[1]).toEqual(['rm', '*/tests/*']);
    expect(argvs('find src -type f -exec wc -l {} ;')[1]).toEqual(['wc', '-l', 'src/{}']);
  });
  it('is total: any string parses, spans lie inside it and text is its slice (property)', () => {
    const alphabet = fc.constantFrom(...'ab $()`\'"\\|&;<>#{}\n\t=-cEOF'.split(''));
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 60 }).map((a) => a.join('')), (s) => {
        for (const c of parseShell(s)) {
          expect(c.start).toBeGreaterThanOrEqual(0);
          expect(c.end).toBeLessThanOrEqual(s.length);
          expect(c.start).toBeLessThanOrEqual(c.end);
          expect(c.text).toBe(s.slice(c.start, c.end));
        }
      }),
      { numRuns: 500 },
    );
  });
  it('rejects a non-string', () => expectFrognanoError(() => parseShell(5 as unknown as string), 'INVALID_TYPE', 'command'));
});

describe('classifyRepoPath', () => {
  it.each([
    ['tests/test_parser.py', 'test'],
    ['/testbed/tests/helpers.py', 'test'],
    ['test_repro.py', 'test'],
    ['pkg/parser_test.py', 'test'],
    ['app/tests.py', 'test'],
    ['src/__tests__/x.ts', 'test'],
    ['src/parse.test.ts', 'test'],
    ['web/button.spec.jsx', 'test'],
    ['semver/compare_test.go', 'test'],
    ['spec/models/user_spec.rb', 'test'],
    ['src/test/java/a/ParserTest.java', 'test'],
    ['src/__snapshots__/a.snap', 'test'],
    ['conftest.py', 'evaluator'],
    ['tests/conftest.py', 'evaluator'],
    ['pytest.ini', 'evaluator'],
    ['tox.ini', 'evaluator'],
    ['setup.cfg', 'evaluator'],
    ['/testbed/evaluation.sh', 'evaluator'],
    ['.github/workflows/ci.yml', 'evaluator'],
    ['jest.config.ts', 'evaluator'],
    ['sitecustomize.py', 'evaluator'],
    ['pyproject.toml', 'evaluator-conditional'],
    ['package.json', 'evaluator-conditional'],
    ['src/parser.py', 'other'],
    ['test.py', 'other'],
    ['reproduce_issue.py', 'other'],
    ['src/contest.py', 'other'],
    ['src/Latest.java', 'other'],
    ['/tmp/test_x.py', 'other'],
    ['/dev/null', 'other'],
    ['numpy/testing/utils.py', 'other'],
    ['.\\tests\\test_a.py', 'test'],
  ])('%s -> %s', (p, kind) => expect(classifyRepoPath(p)).toBe(kind));
  it('rejects a non-string', () => expectFrognanoError(() => classifyRepoPath(null as unknown as string), 'INVALID_TYPE', 'path'));
  it('isGradingConfigText: pytest sections of pyproject.toml and test scripts of package.json', () => {
    expect(isGradingConfigText('pyproject.toml', '[tool.pytest.ini_options]')).toBe(true);
    expect(isGradingConfigText('pyproject.toml', 'addopts = "-q"')).toBe(true);
    expect(isGradingConfigText('pyproject.toml', 'dependencies = ["attrs"]')).toBe(false);
    expect(isGradingConfigText('package.json', '"test": "jest"')).toBe(true);
    expect(isGradingConfigText('package.json', '"lodash": "^4.17.21"')).toBe(false);
  });
});

describe('parseUnifiedDiff', () => {
  const diff = [
    'diff --git a/tests/test_a.py b/tests/test_a.py',
    'index 1..2 100644',
    '--- a/tests/test_a.py',
    '+++ b/tests/test_a.py',
    '@@ -1,3 +1,2 @@',
    ' def test_a():',
    '-    assert f() == 1',
    '--- a SQL comment deleted',
    '+    pass',
    'diff --git a/old.py b/new.py',
    'similarity index 90%',
    'rename from old.py',
    'rename to new.py',
    'diff --git a/gone.py b/gone.py',
    'deleted file mode 100644',
    '--- a/gone.py',
    '+++ /dev/null',
    '@@ -1 +0,0 @@',
    '-x = 1',
    '\\ No newline at end of file',
    '',
  ].join('\n');
  const files = parseUnifiedDiff(diff);
  it('reads paths and status of each section', () => {
    expect(files.map((f) => [f.oldPath, f.newPath, f.path, f.status])).toEqual([
      ['tests/test_a.py', 'tests/test_a.py', 'tests/test_a.py', 'modified'],
      ['old.py', 'new.py', 'new.py', 'renamed'],
      ['gone.py', null, 'gone.py', 'deleted'],
    ]);
  });
  it('uses hunk lengths, so a deleted line starting with -- stays a line', () => {
    expect(files[0]!.lines.map((l) => l.raw)).toEqual([' def test_a():', '-    assert f() == 1', '--- a SQL comment deleted', '+    pass']);
    for (const l of files[0]!.lines) expect(diff.slice(l.start, l.end)).toBe(l.raw);
    expect(files[2]!.lines.map((l) => [l.kind, l.text])).toEqual([['-', 'x = 1']]);
  });
  it('reads plain diff -u output and new files', () => {
    const f = parseUnifiedDiff('--- conftest.py.orig\t2024-01-01\n+++ conftest.py\t2024-01-02\n@@ -0,0 +1 @@\n+import pytest\n');
    expect(f.map((x) => [x.oldPath, x.newPath, x.lines.length])).toEqual([['conftest.py.orig', 'conftest.py', 1]]);
    const n = parseUnifiedDiff('diff --git a/x.py b/x.py\nnew file mode 100644\n--- /dev/null\n+++ b/x.py\n@@ -0,0 +1 @@\n+a\n');
    expect([n[0]!.status, n[0]!.oldPath]).toEqual(['added', null]);
  });
  it('gives [] for text that is not a diff', () => expect(parseUnifiedDiff('hello\nworld')).toEqual([]));
  it('rejects a non-string', () => expectFrognanoError(() => parseUnifiedDiff(3 as unknown as string), 'INVALID_TYPE', 'diff'));
});

describe('isTestRunCommand', () => {
  it.each([
    'pytest tests/',
    'python -m pytest -x tests/test_foo.py',
    'cd /testbed && python3 -m pytest -q 2>&1 | tail -5',
    'python -m unittest discover',
    'python tests/test_io.py',
    'python manage.py test app',
    'tox -e py311',
    'npm test',
    'npm run test:unit',
    'yarn test --watch=false',
    'npx vitest run',
    'go test ./...',
    'cargo test',
    'make test',
    'bundle exec rspec',
    'bash -c "pytest -q"',
    './evaluation.sh',
    'node --test',
  ])('runs tests: %s', (c) => expect(isTestRunCommand(c)).toBe(true));
  it.each(['cat tests/test_io.py', 'grep -rn pytest .', 'pip install pytest', 'python reproduce.py', 'npm install', 'go build ./...', 'echo "pytest"'])(
    'does not: %s',
    (c) => expect(isTestRunCommand(c)).toBe(false),
  );
  it('rejects a non-string', () => expectFrognanoError(() => isTestRunCommand(undefined as unknown as string), 'INVALID_TYPE', 'command'));
});

describe('commandName / effectiveArgv at the boundary', () => {
  it('a word whose value is not a string is INVALID_TYPE naming it', () => {
    expect(() => commandName({ value: 5, start: 0, end: 1 } as never)).toThrow(expect.objectContaining({ code: 'INVALID_TYPE', field: 'word' }));
    expect(() => effectiveArgv([{ value: 'sudo', start: 0, end: 4 }, { value: -0.5, start: 5, end: 11 }] as never)).toThrow(
      expect.objectContaining({ code: 'INVALID_TYPE', field: 'words[1]' }),
    );
    expect(() => effectiveArgv(null as never)).toThrow(expect.objectContaining({ code: 'INVALID_TYPE', field: 'words' }));
    expect(commandName('/usr/bin/git')).toBe('git');
    expect(commandName(undefined)).toBe('');
  });
});
