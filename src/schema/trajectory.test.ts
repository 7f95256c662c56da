import { describe, expect, it } from 'vitest';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { LeafToolArgumentSchemas, parseTrajectory } from './trajectory.js';

const base = {
  id: 't1',
  task: { id: 'task-1', statement: 'Fix the parser.' },
  messages: [
    { role: 'system', content: 'You are Leaf.' },
    { role: 'user', content: 'Fix the parser.' },
    { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'read', arguments: { file_path: 'src/p.py' } }] },
    { role: 'tool', content: 'def parse(): ...', toolCallId: 'c1' },
    { role: 'assistant', content: 'Done.' },
  ],
  diff: '--- a/src/p.py\n+++ b/src/p.py\n',
  tests: [{ name: 'test_parse', passed: true }],
  outcome: { success: true, truncated: false, assistantTokens: 120 },
};

describe('parseTrajectory', () => {
  it('accepts a SPEC §9 trajectory and keeps unknown extra fields', () => {
    const t = parseTrajectory({ ...base, harness: 'leaf-1.2', messages: base.messages.map((m) => ({ ...m, tokens: 3 })) });
    expect(t.messages).toHaveLength(5);
    expect((t as Record<string, unknown>).harness).toBe('leaf-1.2');
    expect((t.messages[0] as Record<string, unknown>).tokens).toBe(3);
    expect(t.messages[2]!.toolCalls![0]!.arguments).toEqual({ file_path: 'src/p.py' });
  });
  it('diff, tests and outcome are optional', () => {
    const { diff: _d, tests: _t, outcome: _o, ...minimal } = base;
    expect(parseTrajectory(minimal).id).toBe('t1');
  });
  it('rejects an unknown role, naming the message index', () =>
    expectFrognanoError(() => parseTrajectory({ ...base, messages: [{ role: 'robot', content: 'x' }] }), 'INVALID_TYPE', 'trajectory.messages[0].role'));
  it('rejects a missing task statement', () =>
    expectFrognanoError(() => parseTrajectory({ ...base, task: { id: 'x' } }), 'INVALID_TYPE', 'trajectory.task.statement'));
  it('rejects tool-call arguments that are not an object', () =>
    expectFrognanoError(
      () => parseTrajectory({ ...base, messages: [{ role: 'assistant', content: '', toolCalls: [{ id: 'c', name: 'bash', arguments: 'ls' }] }] }),
      'INVALID_TYPE',
      'trajectory.messages[0].toolCalls[0].arguments',
    ));
  it('rejects a negative assistantTokens in the outcome', () =>
    expectFrognanoError(() => parseTrajectory({ ...base, outcome: { success: true, truncated: false, assistantTokens: -1 } }), 'OUT_OF_RANGE', 'trajectory.outcome.assistantTokens'));
  it('Leaf tool argument schemas check the five tools', () => {
    expect(LeafToolArgumentSchemas.edit.safeParse({ file_path: 'a', old_string: 'x', new_string: 'y' }).success).toBe(true);
    expect(LeafToolArgumentSchemas.edit.safeParse({ file_path: 'a', old_string: 'x' }).success).toBe(false);
    expect(LeafToolArgumentSchemas.bash.safeParse({ command: 'pytest -q' }).success).toBe(true);
    expect(LeafToolArgumentSchemas.read.safeParse({ file_path: 'a', offset: -1 }).success).toBe(false);
  });
});
