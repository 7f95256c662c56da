/**
 * Issue 20's run-level guarantees through real runs: one episode's fork bomb,
 * RAM fill and disk fill leave the other episodes of `frognano rollout
 * --concurrency 8` correct (the issue's "done when"), and a task's gradings
 * never overlap its own agent phases (#11, the covert channel).
 */
import { describe, expect, it } from 'vitest';
import { episodeSeed, rolloutTasks } from '../../src/leaf/rolloutTasks.js';
import { createSandbox, type Sandbox } from '../../src/leaf/sandbox.js';
import { type CliTask, rolloutCli } from '../helpers/leafCli.js';
import { makeTask } from '../helpers/leafTask.js';
import { hasBwrap, hasPytest } from '../helpers/system.js';
import { calls, final, toolModel } from '../helpers/toolModel.js';

const PY_FILES = { 'pkg/__init__.py': '', 'pkg/stats.py': 'def median(xs):\n    return xs[len(xs) // 2]\n' };
const PY_HIDDEN = { 'tests/test_hidden.py': 'from pkg.stats import median\n\ndef test_unsorted():\n    assert median([3, 1, 2]) == 2\n' };
const PY_FIX = "sed -i 's/return xs\\[len(xs) \\/\\/ 2\\]/return sorted(xs)[len(xs) \\/\\/ 2]/' pkg/stats.py";

describe.skipIf(!hasBwrap() || !hasPytest())('issue 20: one episode cannot spoil a run', () => {
  it('frognano rollout --concurrency 8: a fork bomb, a RAM fill and a disk fill in one episode leave the seven others correct', async () => {
    const honest: CliTask[] = Array.from({ length: 7 }, (_, i) => ({
      id: `honest${i}`,
      statement: `Task honest${i}: fix median.`,
      files: PY_FILES,
      hidden: PY_HIDDEN,
      command: 'python3 -m pytest -q -p no:cacheprovider tests',
      script: [[['bash', { command: 'sleep 1' }]], [['bash', { command: PY_FIX }]], [['bash', { command: 'python3 -c "import pkg.stats as s; print(s.median([3, 1, 2]))"' }]]],
    }));
    const attacker: CliTask = {
      id: 'attacker',
      statement: 'Task attacker: fix median.',
      files: PY_FILES,
      hidden: PY_HIDDEN,
      command: 'python3 -m pytest -q -p no:cacheprovider tests',
      limits: { commandSeconds: 8 },
      script: [
        [['bash', { command: 'bomb() { bomb | bomb & }; bomb; sleep 30' }]],
        [['bash', { command: 'head -c 600M /dev/zero > /dev/shm/fill; python3 -c "x = bytearray(8 << 30)"; echo ram=$?' }]],
        [['bash', { command: 'cat /dev/zero > fill; echo disk=$?' }]],
      ],
    };
    const r = await rolloutCli([attacker, ...honest], { flags: ['--concurrency', '8'] });
    expect(r.code).toBe(0);
    expect(r.records).toHaveLength(8);
    for (const rec of r.records.filter((x) => x.taskId !== 'attacker')) {
      expect(rec.termination).toBe('stop');
      expect(rec.outcome?.success).toBe(true);
      expect(rec.reward).toBe(1);
      expect(rec.messages.filter((m) => m.role === 'tool').pop()!.content).toBe('2\n[exit code: 0]');
    }
    const a = r.records.find((x) => x.taskId === 'attacker')!;
    expect(a.termination).toBe('stop'); // graded, not an error
    expect(a.outcome?.success).toBe(false);
    expect(a.reward).toBe(0);
    const [bomb, ram] = a.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    expect(bomb).toMatch(/^Error: the command timed out/);
    expect(ram).toContain('No space left on device');
    expect(ram).toContain('MemoryError');
  });
});

describe.skipIf(!hasBwrap())('issue 20 #11: a task is never graded while an agent of the same task runs', () => {
  it("the gradings of a group wait for the group's running agent phases; another task's agents run meanwhile", async () => {
    const real = createSandbox({});
    const spans: { task: string; grading: boolean; start: number; end: number }[] = [];
    const sandbox: Sandbox = {
      kind: real.kind,
      options: real.options,
      owner: real.owner,
      async run(repo, command, opts) {
        const start = performance.now();
        const r = await real.run(repo, command, opts);
        const m = /^(?:GRADE|AGENT) (\w+)/.exec(command);
        spans.push({ task: m?.[1] ?? '?', grading: command.startsWith('GRADE'), start, end: performance.now() });
        return r;
      },
    };
    const tasks = await Promise.all(['ta', 'tb'].map((id) => makeTask({ id, statement: `Task ${id}.`, files: { 'x.txt': 'x\n' }, command: `GRADE ${id} 2>/dev/null; sleep 0.2; true` })));
    // episode e of a task runs e + 1 agent calls of 0.3 s: episode 0 is done first and would be graded while 1 and 2 still run
    const steps = new Map<number, number>();
    for (const t of tasks) for (let e = 0; e < 3; e++) steps.set(episodeSeed(0, t.id, e), e + 1);
    const model = toolModel(
      Array.from({ length: 40 }, () => (msgs: readonly { role: string; content: unknown }[], opts?: { seed?: number }) => {
        const task = /Task (\w+)\./.exec(String(msgs[1]?.content))![1]!;
        const done = msgs.filter((m) => m.role === 'tool').length;
        return done < steps.get(opts!.seed!)! ? calls(['bash', { command: `AGENT ${task} 2>/dev/null; sleep 0.3` }]) : final();
      }),
    );
    const summary = await rolloutTasks(tasks, { model, sandbox, group: 3, concurrency: 6 });
    expect(summary.done).toBe(6);
    for (const id of ['ta', 'tb']) {
      const agents = spans.filter((s) => s.task === id && !s.grading);
      const gradings = spans.filter((s) => s.task === id && s.grading);
      expect(agents).toHaveLength(6);
      expect(gradings).toHaveLength(3);
      for (const g of gradings) for (const a of agents) expect(g.end <= a.start || a.end <= g.start).toBe(true);
    }
    // the two tasks' phases did overlap each other: the gate holds tasks apart only from themselves
    const ta = spans.filter((s) => s.task === 'ta');
    const tb = spans.filter((s) => s.task === 'tb');
    expect(ta.some((x) => tb.some((y) => x.start < y.end && y.start < x.end))).toBe(true);
  });

  it('one slow agent holds back only its own task: the other tasks\' groups finish meanwhile (review finding)', async () => {
    const tasks = await Promise.all(['sa', 'sb', 'sc'].map((id) => makeTask({ id, statement: `Task ${id}.`, files: { 'x.txt': 'x\n' }, command: 'true' })));
    const slowSeed = episodeSeed(0, 'sa', 0);
    const model = toolModel(
      Array.from({ length: 40 }, () => (msgs: readonly { role: string }[], opts?: { seed?: number }) =>
        msgs.some((m) => m.role === 'tool') ? final() : calls(['bash', { command: opts!.seed === slowSeed ? 'sleep 4' : 'true' }]),
      ),
    );
    const t0 = performance.now();
    const doneAt = new Map<string, number>();
    await rolloutTasks(tasks, { model, sandbox: createSandbox({}), group: 3, concurrency: 3, onRecords: (rs) => void doneAt.set(rs[0]!.taskId, performance.now() - t0) });
    expect(doneAt.get('sa')!).toBeGreaterThan(4000);
    expect(doneAt.get('sb')!).toBeLessThan(3500);
    expect(doneAt.get('sc')!).toBeLessThan(3500);
  });
});
