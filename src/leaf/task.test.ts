import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { expectFrognanoError, expectFrognanoErrorAsync } from '../../test/helpers/expectError.js';
import { scratchDir } from '../../test/helpers/leafTask.js';
import { canonicalJson, jsonHash } from './canonicalJson.js';
import { DEFAULT_LEAF_LIMITS, loadLeafTasks, parseLeafTask, resolveLimits, type LeafLimits } from './task.js';

let dir: string;
const task = { id: 'a', statement: 'Fix the bug.', repo: 'repo', tests: { command: 'npm test' } };
const line = (o: unknown): string => JSON.stringify(o);

/** Writes `text` as a tasks file in `dir` and returns its path. */
async function tasksFile(text: string, name = 'tasks.jsonl'): Promise<string> {
  const f = join(dir, name);
  await writeFile(f, text);
  return f;
}

beforeEach(async () => {
  dir = await scratchDir('frognano-tasks-');
  await mkdir(join(dir, 'repo'));
  await mkdir(join(dir, 'other'));
});

describe('loadLeafTasks: good files', () => {
  it('resolves a relative repo against the file folder', async () => {
    const f = await tasksFile(`${line(task)}\n`);
    expect(await loadLeafTasks(f)).toEqual([{ ...task, repoDir: join(dir, 'repo'), recordHash: jsonHash(task) }]);
  });
  it('resolves against the file folder, not the working directory, for a file in a sub-folder', async () => {
    await mkdir(join(dir, 'sub/r'), { recursive: true });
    await mkdir(join(dir, 'sub/tasks'));
    const f = join(dir, 'sub/tasks/t.jsonl');
    await writeFile(f, line({ ...task, repo: '../r' }));
    expect((await loadLeafTasks(f))[0]!.repoDir).toBe(join(dir, 'sub/r'));
  });
  it('keeps an absolute repo as it is', async () => {
    const f = await tasksFile(line({ ...task, repo: join(dir, 'other') }));
    expect((await loadLeafTasks(f))[0]!.repoDir).toBe(join(dir, 'other'));
  });
  it('skips a UTF-8 BOM and blank lines, accepts CRLF and a missing last newline', async () => {
    const f = await tasksFile(`\uFEFF\n${line(task)}\r\n\n   \n\t\n${line({ ...task, id: 'b', repo: 'other' })}`);
    const ts = await loadLeafTasks(f);
    expect(ts.map((t) => [t.id, t.repoDir])).toEqual([
      ['a', join(dir, 'repo')],
      ['b', join(dir, 'other')],
    ]);
  });
  it('keeps unknown extra fields', async () => {
    const f = await tasksFile(line({ ...task, difficulty: 'hard', meta: { source: 'x', n: [1, 2] } }));
    const extra = { ...task, difficulty: 'hard', meta: { source: 'x', n: [1, 2] } };
    expect(await loadLeafTasks(f)).toEqual([{ ...extra, repoDir: join(dir, 'repo'), recordHash: jsonHash(extra) }]);
  });
  it('keeps hidden files, limits and referencePatch', async () => {
    const full = {
      ...task,
      tests: { command: 'pytest -q', files: { 'tests/test_hidden.py': 'def test(): pass\n', 'a/b/c.txt': '' } },
      limits: { maxTurns: 10, maxSeconds: 0.5 },
      referencePatch: '--- a/x\n+++ b/x\n',
    };
    const f = await tasksFile(line(full));
    expect(await loadLeafTasks(f)).toEqual([{ ...full, repoDir: join(dir, 'repo'), recordHash: jsonHash(full) }]);
  });
  it('keeps the file order', async () => {
    const f = await tasksFile(['c', 'a', 'b'].map((id) => line({ ...task, id })).join('\n'));
    expect((await loadLeafTasks(f)).map((t) => t.id)).toEqual(['c', 'a', 'b']);
  });
});

describe('loadLeafTasks: bad files', () => {
  it('a line that is not JSON: INVALID_TYPE naming line N', async () => {
    const f = await tasksFile(`${line(task)}\n{not json`);
    const e = await expectFrognanoErrorAsync(() => loadLeafTasks(f), 'INVALID_TYPE', f, 'line 2', 'not JSON');
    expect(e.field).toBe('line 2');
  });
  it('line numbers count blank lines and the BOM line', async () => {
    const f = await tasksFile(`\uFEFF${line(task)}\n\n\n{`);
    await expectFrognanoErrorAsync(() => loadLeafTasks(f), 'INVALID_TYPE', 'line 4');
  });
  it('a JSON value that is not an object: INVALID_TYPE naming the line', async () => {
    const f = await tasksFile(`${line(task)}\n"text"\n`);
    const e = await expectFrognanoErrorAsync(() => loadLeafTasks(f), 'INVALID_TYPE');
    expect(e.message).toBe(`loadLeafTasks: ${f} line 2: a task must be a JSON object, got "text"`);
  });
  it('a missing statement: INVALID_TYPE naming line N.statement', async () => {
    const { statement: _, ...noStatement } = task;
    const f = await tasksFile(`${line(task)}\n${line({ ...noStatement, id: 'b' })}`);
    await expectFrognanoErrorAsync(() => loadLeafTasks(f), 'INVALID_TYPE', 'line 2: statement');
  });
  it('an empty statement: OUT_OF_RANGE naming line N.statement', async () => {
    const f = await tasksFile(line({ ...task, statement: '' }));
    await expectFrognanoErrorAsync(() => loadLeafTasks(f), 'OUT_OF_RANGE', 'line 1: statement');
  });
  it('a missing id: INVALID_TYPE naming line N.id', async () => {
    const { id: _, ...noId } = task;
    const f = await tasksFile(line(noId));
    await expectFrognanoErrorAsync(() => loadLeafTasks(f), 'INVALID_TYPE', 'line 1: id');
  });
  it('a missing tests.command: INVALID_TYPE naming line N.tests.command', async () => {
    const f = await tasksFile(line({ ...task, tests: {} }));
    await expectFrognanoErrorAsync(() => loadLeafTasks(f), 'INVALID_TYPE', 'line 1: tests.command');
  });
  it('an unknown field of tests: INVALID_TYPE naming it', async () => {
    const f = await tasksFile(line({ ...task, tests: { command: 't', timeout: 5 } }));
    await expectFrognanoErrorAsync(() => loadLeafTasks(f), 'INVALID_TYPE', 'line 1: tests', '"timeout"');
  });
  it('a hidden file path with ..: INVALID_TYPE naming line N and the path', async () => {
    const f = await tasksFile(line({ ...task, tests: { command: 't', files: { '../evil.py': 'x' } } }));
    await expectFrognanoErrorAsync(() => loadLeafTasks(f), 'INVALID_TYPE', 'line 1: tests.files', '../evil.py');
  });
  it('a hidden file path with .. in the middle past the root', async () => {
    const f = await tasksFile(line({ ...task, tests: { command: 't', files: { 'tests/../../evil.py': 'x' } } }));
    await expectFrognanoErrorAsync(() => loadLeafTasks(f), 'INVALID_TYPE', 'line 1: tests.files', 'tests/../../evil.py');
  });
  it('an absolute hidden file path', async () => {
    const f = await tasksFile(line({ ...task, tests: { command: 't', files: { '/etc/cron.d/x': 'x' } } }));
    await expectFrognanoErrorAsync(() => loadLeafTasks(f), 'INVALID_TYPE', 'line 1: tests.files', '/etc/cron.d/x');
  });
  it('a hidden file under .git', async () => {
    const f = await tasksFile(line({ ...task, tests: { command: 't', files: { '.git/hooks/pre-commit': 'x' } } }));
    await expectFrognanoErrorAsync(() => loadLeafTasks(f), 'INVALID_TYPE', 'line 1: tests.files', '.git/hooks/pre-commit');
  });
  it('a hidden file under a nested .git', async () => {
    const f = await tasksFile(line({ ...task, tests: { command: 't', files: { 'vendor/lib/.git/config': 'x' } } }));
    await expectFrognanoErrorAsync(() => loadLeafTasks(f), 'INVALID_TYPE', 'line 1: tests.files');
  });
  it('a hidden file path with a backslash', async () => {
    const f = await tasksFile(line({ ...task, tests: { command: 't', files: { 'tests\\x.py': 'x' } } }));
    await expectFrognanoErrorAsync(() => loadLeafTasks(f), 'INVALID_TYPE', 'line 1: tests.files');
  });
  it('a hidden file path that is the root (".")', async () => {
    const f = await tasksFile(line({ ...task, tests: { command: 't', files: { '.': 'x' } } }));
    await expectFrognanoErrorAsync(() => loadLeafTasks(f), 'INVALID_TYPE', 'line 1: tests.files');
  });
  it('a hidden file path that is empty', async () => {
    const f = await tasksFile(line({ ...task, tests: { command: 't', files: { '': 'x' } } }));
    await expectFrognanoErrorAsync(() => loadLeafTasks(f), 'INVALID_TYPE', 'line 1: tests.files');
  });
  it('hidden file paths like .gitignore, a/./b and a/../b are accepted', async () => {
    const files = { '.gitignore': 'x', 'a/./b.py': 'x', 'a/../b.py': 'x', '.github/w.yml': 'x' };
    const f = await tasksFile(line({ ...task, tests: { command: 't', files } }));
    expect((await loadLeafTasks(f))[0]!.tests.files).toEqual(files);
  });
  it('a non-string hidden file content', async () => {
    const f = await tasksFile(line({ ...task, tests: { command: 't', files: { 'a.py': 1 } } }));
    await expectFrognanoErrorAsync(() => loadLeafTasks(f), 'INVALID_TYPE', 'line 1: tests.files');
  });
  it('a duplicate id: INVALID_TYPE naming the second line and the id', async () => {
    const f = await tasksFile([line(task), line({ ...task, id: 'b' }), line({ ...task, statement: 'other' })].join('\n'));
    const e = await expectFrognanoErrorAsync(() => loadLeafTasks(f), 'INVALID_TYPE', 'line 3', 'duplicate task id "a"');
    expect(e.field).toBe('line 3.id');
  });
  it('a missing repo folder: INVALID_TYPE naming the line, the repo and where it resolved', async () => {
    const f = await tasksFile(line({ ...task, repo: 'missing' }));
    const e = await expectFrognanoErrorAsync(() => loadLeafTasks(f), 'INVALID_TYPE', 'line 1', '"missing"', join(dir, 'missing'));
    expect(e.field).toBe('line 1.repo');
  });
  it('a repo that is a file: INVALID_TYPE', async () => {
    await writeFile(join(dir, 'afile'), 'x');
    const f = await tasksFile(line({ ...task, repo: 'afile' }));
    await expectFrognanoErrorAsync(() => loadLeafTasks(f), 'INVALID_TYPE', 'line 1', 'is not a folder');
  });
  it('an empty repo string: OUT_OF_RANGE naming line N.repo', async () => {
    const f = await tasksFile(line({ ...task, repo: '' }));
    await expectFrognanoErrorAsync(() => loadLeafTasks(f), 'OUT_OF_RANGE', 'line 1: repo');
  });
  it('bad limits: OUT_OF_RANGE naming line N.limits.maxTurns', async () => {
    const f = await tasksFile(line({ ...task, limits: { maxTurns: 0 } }));
    await expectFrognanoErrorAsync(() => loadLeafTasks(f), 'OUT_OF_RANGE', 'line 1: limits.maxTurns');
  });
  it('maxContextTokens under 256: OUT_OF_RANGE', async () => {
    const f = await tasksFile(line({ ...task, limits: { maxContextTokens: 255 } }));
    await expectFrognanoErrorAsync(() => loadLeafTasks(f), 'OUT_OF_RANGE', 'line 1: limits.maxContextTokens');
  });
  it('maxSeconds 0: OUT_OF_RANGE', async () => {
    const f = await tasksFile(line({ ...task, limits: { maxSeconds: 0 } }));
    await expectFrognanoErrorAsync(() => loadLeafTasks(f), 'OUT_OF_RANGE', 'line 1: limits.maxSeconds');
  });
  it('an unknown limit: INVALID_TYPE naming it', async () => {
    const f = await tasksFile(line({ ...task, limits: { turns: 5 } }));
    await expectFrognanoErrorAsync(() => loadLeafTasks(f), 'INVALID_TYPE', 'line 1: limits', '"turns"');
  });
  it('an empty file: EMPTY_INPUT', async () => {
    const f = await tasksFile('');
    await expectFrognanoErrorAsync(() => loadLeafTasks(f), 'EMPTY_INPUT', f, 'holds no task');
  });
  it('a file of blank lines and a BOM: EMPTY_INPUT', async () => {
    const f = await tasksFile('\uFEFF\n  \n\r\n\n');
    await expectFrognanoErrorAsync(() => loadLeafTasks(f), 'EMPTY_INPUT', 'holds no task');
  });
  it('a missing tasks file: INVALID_TYPE naming it and ENOENT', async () => {
    const f = join(dir, 'nope.jsonl');
    await expectFrognanoErrorAsync(() => loadLeafTasks(f), 'INVALID_TYPE', 'cannot read the tasks file', f, 'ENOENT');
  });
  it('a folder given as the tasks file: INVALID_TYPE', async () => {
    await expectFrognanoErrorAsync(() => loadLeafTasks(dir), 'INVALID_TYPE', 'cannot read the tasks file', 'EISDIR');
  });
});

/** What `JSON.parse` says of `text` (the engine's own words). */
function parseMessage(text: string): string {
  try {
    JSON.parse(text);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error(`${text} is JSON`);
}

describe('loadLeafTasks: the exact messages (where, then what, naming the field)', () => {
  it('a missing tests.command', async () => {
    const f = await tasksFile(`${line(task)}\n\n${line({ ...task, id: 'b', tests: {} })}\n`);
    const e = await expectFrognanoErrorAsync(() => loadLeafTasks(f), 'INVALID_TYPE');
    expect(e.message).toBe(`loadLeafTasks: ${f} line 3: tests.command is required (a string)`);
    expect([e.fn, e.field]).toEqual(['loadLeafTasks', 'line 3.tests.command']);
  });
  it('a repo folder that does not exist', async () => {
    const f = await tasksFile(line({ ...task, repo: 'gone' }));
    const e = await expectFrognanoErrorAsync(() => loadLeafTasks(f), 'INVALID_TYPE');
    expect(e.message).toBe(`loadLeafTasks: ${f} line 1: repo "gone" is not a folder (resolved to ${join(dir, 'gone')})`);
  });
  it('a bad JSON line', async () => {
    const f = await tasksFile(`${line(task)}\n{"id": "b",}\n`);
    const e = await expectFrognanoErrorAsync(() => loadLeafTasks(f), 'INVALID_TYPE');
    expect(e.message).toBe(`loadLeafTasks: ${f} line 2: not JSON: ${parseMessage('{"id": "b",}')}`);
  });
  it('an unknown limit', async () => {
    const f = await tasksFile(line({ ...task, limits: { maxTurns: 3, turns: 5 } }));
    const e = await expectFrognanoErrorAsync(() => loadLeafTasks(f), 'INVALID_TYPE');
    expect(e.message).toBe(`loadLeafTasks: ${f} line 1: limits: unknown field(s) "turns"`);
    expect(e.field).toBe('line 1.limits');
  });
  it('a limit out of range', async () => {
    const f = await tasksFile(line({ ...task, limits: { maxTurns: 0 } }));
    const e = await expectFrognanoErrorAsync(() => loadLeafTasks(f), 'OUT_OF_RANGE');
    expect(e.message).toBe(`loadLeafTasks: ${f} line 1: limits.maxTurns: Too small: expected number to be >=1, got 0`);
  });
  it('a duplicate id names both places', async () => {
    const f = await tasksFile([line(task), line({ ...task, id: 'b' }), line(task)].join('\n'));
    const e = await expectFrognanoErrorAsync(() => loadLeafTasks(f), 'INVALID_TYPE');
    expect(e.message).toBe(`loadLeafTasks: ${f} line 3: id: duplicate task id "a" (line 1 has it too)`);
  });
});

describe('loadLeafTasks: a JSON array of tasks (decided by the content)', () => {
  const two = [task, { ...task, id: 'b', repo: 'other' }];
  it('a .json file holding an array reads the same tasks as the JSONL file', async () => {
    const jsonl = await loadLeafTasks(await tasksFile(two.map(line).join('\n')));
    const json = await loadLeafTasks(await tasksFile(JSON.stringify(two, null, 2), 'tasks.json'));
    expect(json).toEqual(jsonl);
    expect(json.map((t) => t.id)).toEqual(['a', 'b']);
  });
  it('a .jsonl file whose content starts with [ (after a BOM and white space) is an array too', async () => {
    const f = await tasksFile(`\uFEFF\n  [${line(task)},\n${line({ ...task, id: 'b' })}]\n`);
    expect((await loadLeafTasks(f)).map((t) => t.id)).toEqual(['a', 'b']);
  });
  it('a .json file that is JSONL is read as JSONL', async () => {
    const f = await tasksFile(two.map(line).join('\n'), 'tasks.json');
    expect((await loadLeafTasks(f)).map((t) => t.id)).toEqual(['a', 'b']);
  });
  it('errors name record N, counted from 1', async () => {
    const f = await tasksFile(JSON.stringify([task, { ...task, id: 'b' }, { ...task, id: 'c', tests: {} }], null, 2), 'tasks.json');
    const e = await expectFrognanoErrorAsync(() => loadLeafTasks(f), 'INVALID_TYPE');
    expect(e.message).toBe(`loadLeafTasks: ${f} record 3: tests.command is required (a string)`);
    expect(e.field).toBe('record 3.tests.command');
  });
  it('an element that is not an object, a duplicate id, a missing repo: record N', async () => {
    const f1 = await tasksFile(`[${line(task)}, 7]`, 'a.json');
    await expectFrognanoErrorAsync(() => loadLeafTasks(f1), 'INVALID_TYPE', `${f1} record 2: a task must be a JSON object, got 7`);
    const f2 = await tasksFile(JSON.stringify([task, task]), 'b.json');
    await expectFrognanoErrorAsync(() => loadLeafTasks(f2), 'INVALID_TYPE', `${f2} record 2: id: duplicate task id "a" (record 1 has it too)`);
    const f3 = await tasksFile(JSON.stringify([{ ...task, repo: 'gone' }]), 'c.json');
    await expectFrognanoErrorAsync(() => loadLeafTasks(f3), 'INVALID_TYPE', `${f3} record 1: repo "gone" is not a folder`);
  });
  it('text that starts with [ but is not one JSON array: names the file (and the place, where the engine gives a position)', async () => {
    const text = `[${line(task)},\n${line({ ...task, id: 'b' })}\n`;
    const f = await tasksFile(text, 'tasks.json');
    const e = await expectFrognanoErrorAsync(() => loadLeafTasks(f), 'INVALID_TYPE', `${f}: starts with "[" but is not a JSON array`);
    expect(e.message.endsWith(parseMessage(text))).toBe(true);
  });
  it('an empty array: EMPTY_INPUT', async () => {
    const f = await tasksFile(' [ ]\n', 'tasks.json');
    await expectFrognanoErrorAsync(() => loadLeafTasks(f), 'EMPTY_INPUT', 'holds no task');
  });
});

describe('loadLeafTasks: recordHash', () => {
  it('is sha256 of the record\'s canonical JSON (keys sorted at every depth, no white space)', async () => {
    const f = await tasksFile(line({ tests: { command: 'npm test' }, statement: 'Fix the bug.', repo: 'repo', id: 'a' }));
    const canonical = '{"id":"a","repo":"repo","statement":"Fix the bug.","tests":{"command":"npm test"}}';
    expect((await loadLeafTasks(f))[0]!.recordHash).toBe(`sha256:${createHash('sha256').update(canonical).digest('hex')}`);
  });
  it('the same task written with another key order and spacing (and as a JSON array) hashes the same', async () => {
    const full = { ...task, tests: { command: 'npm test', files: { 'b.py': '2', 'a.py': '1' } }, limits: { maxTurns: 10, commandSeconds: 5 }, meta: { z: [1, { y: 2, x: 3 }] } };
    const a = await tasksFile(`${line(full)}\n`, 'a.jsonl');
    const reordered = '{ "meta": {"z": [1.0, {"x": 3, "y": 2}]},\n "limits": {"commandSeconds": 5, "maxTurns": 1e1}, "tests": { "files": {"a.py": "1", "b.py": "\\u0032"}, "command": "npm test" },\t"repo": "repo", "statement": "Fix the bug.", "id": "a" }';
    const b = await tasksFile(`\n${reordered.replace(/\n/g, ' ')}\n`, 'b.jsonl');
    const c = await tasksFile(`[\n${reordered}\n]`, 'c.json');
    const [ha, hb, hc] = await Promise.all([a, b, c].map(async (f) => (await loadLeafTasks(f))[0]!.recordHash));
    expect(ha).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(hb).toBe(ha);
    expect(hc).toBe(ha);
  });
  it('a changed statement (or any other field) hashes differently', async () => {
    const base = (await loadLeafTasks(await tasksFile(line(task), 'a.jsonl')))[0]!.recordHash;
    const stmt = (await loadLeafTasks(await tasksFile(line({ ...task, statement: 'Fix the bug!' }), 'b.jsonl')))[0]!.recordHash;
    const extra = (await loadLeafTasks(await tasksFile(line({ ...task, note: null }), 'c.jsonl')))[0]!.recordHash;
    expect(new Set([base, stmt, extra]).size).toBe(3);
  });
  it('parseLeafTask hashes the record it is given', () => {
    expect(parseLeafTask({ tests: task.tests, statement: task.statement, repo: task.repo, id: task.id }, '/b').recordHash).toBe(jsonHash(task));
    expect(canonicalJson(task)).toBe('{"id":"a","repo":"repo","statement":"Fix the bug.","tests":{"command":"npm test"}}');
  });
});

describe('parseLeafTask', () => {
  it('resolves repo against baseDir', () => {
    expect(parseLeafTask(task, '/base/dir').repoDir).toBe('/base/dir/repo');
    expect(parseLeafTask({ ...task, repo: '../r' }, '/base/dir').repoDir).toBe('/base/r');
    expect(parseLeafTask({ ...task, repo: '/abs/r' }, '/base/dir').repoDir).toBe('/abs/r');
  });
  it('names the given place in its errors', () => {
    expectFrognanoError(() => parseLeafTask({ ...task, id: 5 }, '/b', 'tasks[3]'), 'INVALID_TYPE', 'tasks[3].id');
  });
  it('does not check that the repo exists', () => {
    expect(parseLeafTask({ ...task, repo: 'nowhere' }, '/nonexistent').repoDir).toBe('/nonexistent/nowhere');
  });
});

describe('resolveLimits', () => {
  it('defaults are 150 / 131072 / 3600 / 120', () => {
    expect(DEFAULT_LEAF_LIMITS).toEqual({ maxTurns: 150, maxContextTokens: 131072, maxSeconds: 3600, commandSeconds: 120 });
    expect(resolveLimits(undefined, undefined)).toEqual({ maxTurns: 150, maxContextTokens: 131072, maxSeconds: 3600, commandSeconds: 120 });
    expect(resolveLimits({}, {})).toEqual({ maxTurns: 150, maxContextTokens: 131072, maxSeconds: 3600, commandSeconds: 120 });
  });
  it('the run overrides the defaults', () => {
    expect(resolveLimits(undefined, { maxTurns: 20, commandSeconds: 5 })).toEqual({ maxTurns: 20, maxContextTokens: 131072, maxSeconds: 3600, commandSeconds: 5 });
  });
  it('the task overrides the run and the defaults', () => {
    expect(resolveLimits({ maxTurns: 7, maxContextTokens: 4096 }, { maxTurns: 20, maxSeconds: 60 })).toEqual({
      maxTurns: 7,
      maxContextTokens: 4096,
      maxSeconds: 60,
      commandSeconds: 120,
    });
  });
  it('an undefined field does not hide the layer below', () => {
    expect(resolveLimits({ maxTurns: undefined }, { maxTurns: 20 })).toEqual({ maxTurns: 20, maxContextTokens: 131072, maxSeconds: 3600, commandSeconds: 120 });
    expect(resolveLimits({ maxSeconds: 9 }, { maxSeconds: undefined })).toEqual({ maxTurns: 150, maxContextTokens: 131072, maxSeconds: 9, commandSeconds: 120 });
  });
  it('does not change DEFAULT_LEAF_LIMITS or its arguments', () => {
    const run = { maxTurns: 3 };
    const t = { maxSeconds: 4 };
    resolveLimits(t, run);
    expect(run).toEqual({ maxTurns: 3 });
    expect(t).toEqual({ maxSeconds: 4 });
    expect(DEFAULT_LEAF_LIMITS.maxTurns).toBe(150);
  });
  it('each field is task ?? run ?? default (property)', () => {
    const field = fc.option(fc.integer({ min: 1, max: 1e6 }), { nil: undefined });
    const limits = fc.record({ maxTurns: field, maxContextTokens: field, maxSeconds: field, commandSeconds: field }, { requiredKeys: [] });
    fc.assert(
      fc.property(fc.option(limits, { nil: undefined }), fc.option(limits, { nil: undefined }), (t: LeafLimits | undefined, r: LeafLimits | undefined) => {
        const got = resolveLimits(t, r);
        for (const k of Object.keys(DEFAULT_LEAF_LIMITS) as (keyof typeof DEFAULT_LEAF_LIMITS)[]) {
          expect(got[k]).toBe(t?.[k] ?? r?.[k] ?? DEFAULT_LEAF_LIMITS[k]);
        }
        expect(Object.keys(got).sort()).toEqual(Object.keys(DEFAULT_LEAF_LIMITS).sort());
      }),
    );
  });
});
