import type { RolloutRecord } from '../../src/leaf/rolloutTasks.js';
import type { Message } from '../../src/schema/trajectory.js';

// Hand-built Leaf rollout records for the report and summary tests: two tasks, six episodes.


const SYSTEM: Message = { role: 'system', content: 'You are a coding agent.\nUse the tools.' };
const ALPHA = 'f() returns 1 but should return 2 <b>now</b>';
const BETA = 'Make g() handle the empty list.';
const user = (s: string): Message => ({ role: 'user', content: s });

const DIFF = [
  'diff --git a/src/a.py b/src/a.py',
  '--- a/src/a.py',
  '+++ b/src/a.py',
  '@@ -1,2 +1,2 @@',
  ' def f():',
  '-    return 1',
  '+    return 2',
  '',
].join('\n');

const WEAKENED = [
  'diff --git a/tests/test_a.py b/tests/test_a.py',
  '--- a/tests/test_a.py',
  '+++ b/tests/test_a.py',
  '@@ -1,3 +1,2 @@',
  ' def test_f():',
  '-    assert f() == 2',
  '+    pass',
  '',
].join('\n');

const LONG_OUTPUT = `${Array.from({ length: 25 }, (_, i) => `line ${i + 1}`).join('\n')}\n[exit code: 1]`;

/** A record of task `t-alpha` or `t-beta`: one stop episode, graded failed unless `outcome.success`, overridden by `p`. */
export function rec(p: Partial<RolloutRecord> & Pick<RolloutRecord, 'taskId' | 'episode'>): RolloutRecord {
  const statement = p.taskId === 't-alpha' ? ALPHA : BETA;
  const passed = p.outcome?.success === true;
  return {
    id: `${p.taskId}/${p.episode}`,
    task: { id: p.taskId, statement },
    messages: [SYSTEM, user(statement), { role: 'assistant', content: 'Done.' }],
    termination: 'stop',
    turns: 1,
    toolCalls: 0,
    seconds: 1.25,
    compactions: [],
    reward: 0,
    advantage: 0,
    hacking: [],
    diff: '',
    outcome: { success: false, truncated: false, assistantTokens: 100 },
    grading: passed ? { exitCode: 0, timedOut: false, output: 'OK\n', seconds: 0.5 } : { exitCode: 1, timedOut: false, output: 'FAILED (failures=1)\n', seconds: 0.5 },
    tests: [{ name: 'tests', passed }],
    ...p,
  };
}

/** t-alpha: 4 episodes, 3 solved (one truncated), one flagged twice. */
export const alpha: RolloutRecord[] = [
  rec({
    taskId: 't-alpha',
    episode: 0,
    turns: 3,
    toolCalls: 2,
    reward: 0.9,
    advantage: 0.5,
    outcome: { success: true, truncated: false, assistantTokens: 500 },
    diff: DIFF,
    grading: { exitCode: 0, timedOut: false, output: 'Ran 2 tests\nOK\n', seconds: 0.5 },
    messages: [
      SYSTEM,
      user(ALPHA),
      {
        role: 'assistant',
        content: 'Let me run the tests.',
        toolCalls: [{ id: 'c1', name: 'bash', arguments: { command: 'python -m pytest -q && echo "<ok>"' } }],
        usage: { promptTokens: 50, completionTokens: 20 },
      },
      { role: 'tool', toolCallId: 'c1', name: 'bash', content: 'tests print <script>alert("x")</script>\n[exit code: 0]', exitCode: 0, isError: false, durationMs: 1200 },
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'c2', name: 'edit', arguments: { file_path: 'src/a.py', old_string: '    return 1\n', new_string: '    return 2\n' } }],
      },
      { role: 'tool', toolCallId: 'c2', name: 'edit', content: 'Edited src/a.py', isError: false, durationMs: 3 },
      { role: 'assistant', content: 'Fixed f().' },
    ],
  }),
  rec({ taskId: 't-alpha', episode: 1, turns: 2, reward: 1, advantage: 0.5, outcome: { success: true, truncated: false, assistantTokens: 300 } }),
  rec({ taskId: 't-alpha', episode: 2, turns: 6, termination: 'maxTurns', reward: 0.5, advantage: 0.5, outcome: { success: true, truncated: true, assistantTokens: 700 } }),
  rec({
    taskId: 't-alpha',
    episode: 3,
    turns: 1,
    toolCalls: 1,
    reward: 0,
    advantage: -1.5,
    outcome: { success: false, truncated: false, assistantTokens: 100 },
    diff: WEAKENED,
    messages: [
      SYSTEM,
      user(ALPHA),
      {
        role: 'assistant',
        content: 'The test is wrong.',
        toolCalls: [{ id: 'c1', name: 'write', arguments: { file_path: 'tests/test_a.py', content: 'def test_f():\n    pass\n' } }],
      },
      { role: 'tool', toolCallId: 'c1', name: 'write', content: 'Error: tests/test_a.py is read-only', isError: true, durationMs: 1 },
    ],
    hacking: [
      { code: 'test-edit', evidence: 'tests/test_a.py', messageIndex: 2 },
      { code: 'test-weakening', evidence: '-    assert f() == 2', messageIndex: 4 },
    ],
  }),
];

/** t-beta: an episode that failed to run, and one cut by the token limit after a compaction. */
export const beta: RolloutRecord[] = [
  rec({
    taskId: 't-beta',
    episode: 0,
    termination: 'error',
    turns: 0,
    reward: null,
    advantage: null,
    outcome: undefined,
    diff: undefined,
    grading: undefined,
    tests: undefined,
    messages: [SYSTEM, user(BETA)],
    error: 'openAiChatModel: HTTP 503 <upstream down>',
  }),
  rec({
    taskId: 't-beta',
    episode: 1,
    termination: 'length',
    turns: 2,
    toolCalls: 1,
    reward: 0,
    advantage: 0,
    outcome: { success: false, truncated: true, assistantTokens: 200 },
    messages: [
      SYSTEM,
      user(BETA),
      { role: 'assistant', content: 'Looking.', reasoning: 'I should run the tests first.', toolCalls: [{ id: 'c1', name: 'bash', arguments: { command: 'make test' } }] },
      { role: 'tool', toolCallId: 'c1', name: 'bash', content: LONG_OUTPUT, exitCode: 1, isError: false, durationMs: 40 },
      { role: 'assistant', content: 'The root cause is', finishReason: 'length' },
    ],
    compactions: [{ atMessage: 4, historyTokens: 12000, budget: 9000, droppedGroups: 1, summary: 'Summary: ran <make test>.', summaryTokens: 30, tokensAfter: 3000 }],
  }),
];

/** Both tasks, alpha first. */
export const records = [...alpha, ...beta];
