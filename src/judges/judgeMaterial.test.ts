import { describe, expect, it } from 'vitest';
import type { Trajectory } from '../schema/trajectory.js';
import { lastTestRunOutput } from './judgeMaterial.js';

const traj = (calls: { name: string; command: string; output: string }[]): Trajectory => ({
  id: 't',
  task: { id: 'task', statement: 'Fix the bug.' },
  messages: calls.flatMap((c, i) => [
    { role: 'assistant' as const, content: '', toolCalls: [{ id: `c${i}`, name: c.name, arguments: { command: c.command } }] },
    { role: 'tool' as const, content: c.output, toolCallId: `c${i}` },
  ]),
});

describe('lastTestRunOutput', () => {
  it('takes the last shell call that runs tests (isTestRunCommand), not one that merely names a runner', () => {
    const t = traj([
      { name: 'bash', command: 'cd /repo && python -m pytest -q tests/test_io.py', output: '1 failed' },
      { name: 'Shell', command: 'go test ./...', output: 'ok' },
      { name: 'bash', command: 'pip install pytest-timeout', output: 'Successfully installed' },
      { name: 'bash', command: 'grep -rn pytest setup.cfg', output: 'addopts = -q' },
    ]);
    expect(lastTestRunOutput(t)).toBe('$ go test ./...\nok');
  });
  it('is undefined without a test run', () => expect(lastTestRunOutput(traj([{ name: 'bash', command: 'ls', output: 'src' }]))).toBeUndefined());
});
