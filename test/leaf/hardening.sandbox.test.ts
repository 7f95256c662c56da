/**
 * Issue 20, the sandbox findings (#1, #2, #6, #7, #10, #11), each through a real
 * episode: a scripted agent's tool calls run in the real bubblewrap sandbox, by
 * `runEpisode` or by the real `frognano rollout` where the attack needs the
 * process that runs frognano (an inherited descriptor, node in a home folder).
 * Every test checks the host, not only the tool message.
 */
import { existsSync } from 'node:fs';
import { chmod, link, mkdir, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isFrognanoError } from '../../src/errors/FrognanoError.js';
import type { LeafTrajectory } from '../../src/leaf/leafTrajectory.js';
import { rolloutTasks, type RolloutRecord } from '../../src/leaf/rolloutTasks.js';
import { runEpisode } from '../../src/leaf/runEpisode.js';
import { createSandbox, type SandboxOptions } from '../../src/leaf/sandbox.js';
import { rolloutCli, toolOutputs } from '../helpers/leafCli.js';
import { makeTask, scratchDir } from '../helpers/leafTask.js';
import { hasBwrap, hasPython } from '../helpers/system.js';
import { calls, final, toolModel } from '../helpers/toolModel.js';

const isRoot = process.getuid?.() === 0;
const outputs = (t: LeafTrajectory): string[] => t.messages.filter((m) => m.role === 'tool').map((m) => m.content);

/** One episode of bash calls on a tiny repo, graded by `command`. */
async function bashEpisode(commands: string[], sandboxOpts: SandboxOptions = {}, command = 'test -f main.py'): Promise<LeafTrajectory> {
  const task = await makeTask({ files: { 'main.py': 'print(1)\n' }, command, limits: { commandSeconds: 30 } });
  return runEpisode(task, { model: toolModel([...commands.map((c) => calls(['bash', { command: c }])), final()]), sandbox: createSandbox(sandboxOpts) });
}

describe.skipIf(!hasBwrap() || !hasPython())('issue 20: the sandbox (real episodes)', () => {
  it('#1 a descriptor left open by the caller of frognano reaches no command (frognano rollout under `exec 200<dir`)', async () => {
    const host = await scratchDir('frognano-host-');
    await writeFile(join(host, 'secret.txt'), 'HOST-SECRET\n');
    const r = await rolloutCli(
      [
        {
          id: 'fd',
          statement: 'Task fd: look around.',
          files: { 'main.py': 'print(1)\n' },
          command: 'true',
          script: [[['bash', { command: 'ls /proc/self/fd; cat /proc/self/fd/200/secret.txt; ls /proc/self/fd/200/../..; echo owned > /proc/self/fd/200/owned.txt; ls /proc/1/fd' }]]],
        },
      ],
      { prelude: `exec 200<${host}; exec 201>${join(host, 'w.txt')}` },
    );
    expect(r.code).toBe(0);
    const out = toolOutputs(r.records[0]!)[0]!;
    // ls's own directory handle is 3; nothing of the caller's 200 or 201
    expect(out.split('\n').slice(0, 4)).toEqual(['0', '1', '2', '3']);
    expect(out).not.toContain('HOST-SECRET');
    expect(out).toContain('/proc/self/fd/200/secret.txt: No such file or directory');
    expect(existsSync(join(host, 'owned.txt'))).toBe(false);
  });

  it('#2 / and /dev are read-only; /tmp, /var/tmp and /dev/shm are capped tmpfs', async () => {
    const t = await bashEpisode(['echo x > /x; echo x > /dev/x; for d in /tmp /var/tmp /dev/shm; do head -c 12M /dev/zero > $d/fill; echo "$d rc=$?"; done; df -B1M /tmp /var/tmp /dev/shm | tail -3'], { tmpMB: 8 });
    const out = outputs(t)[0]!;
    expect(out).toContain('/x: Read-only file system');
    expect(out).toContain('/dev/x: Read-only file system');
    for (const d of ['/tmp', '/var/tmp', '/dev/shm']) expect(out).toContain(`head: error writing 'standard output': No space left on device\n${d} rc=1`);
    expect(out.match(/^tmpfs\s+8\s/gm)).toHaveLength(3);
  });

  it.skipIf(!isRoot)('#2 the repo copy is capped (a size-limited tmpfs, run as root): a disk fill ends with ENOSPC and grading scores 0 with the cause', async () => {
    const task = await makeTask({ files: { 'main.py': 'print(1)\n' }, hidden: { 'tests/test_x.py': 'x = 1\n' }, command: 'test -f tests/test_x.py' });
    const model = toolModel([calls(['bash', { command: 'cat /dev/zero > fill; echo rc=$?; df -B1M /repo | tail -1' }]), final()]);
    const t = await runEpisode(task, { model, sandbox: createSandbox({ repoMB: 16 }) });
    const out = outputs(t)[0]!;
    expect(out).toContain('No space left on device');
    expect(out).toContain('rc=1');
    // the hidden file no longer fits: the repo's state failed the grading, which scores 0 (never an ungraded episode)
    expect(t.termination).toBe('stop');
    expect(t.outcome?.success).toBe(false);
    expect(t.grading?.error).toMatch(/hidden test files could not be written.*ENOSPC/);
  });

  it.skipIf(!isRoot)('#2 the repo copy is capped in entries too: empty files, which cost no bytes, stop at the inode cap (review finding)', async () => {
    const t = await bashEpisode([`python3 -c "
import os
n = 0
try:
    while n < 400000:
        open('e%d' % n, 'w').close(); n += 1
except OSError as e:
    print(e.strerror)
print('made', n)"`]);
    const out = outputs(t)[0]!;
    expect(out).toContain('No space left on device');
    const made = Number(/made (\d+)/.exec(out)![1]);
    expect(made).toBeGreaterThan(190_000);
    expect(made).toBeLessThan(210_000);
  });

  it('the open files of a process are capped (ulimit -n), so no episode can exhaust the host file table (review finding)', async () => {
    const t = await bashEpisode(['ulimit -n']);
    expect(outputs(t)[0]).toBe('1024\n[exit code: 0]');
  });

  it('#6 the process limit is one fixed number per sandbox: four concurrent episodes each get it, none more', async () => {
    const tasks = await Promise.all([0, 1, 2, 3].map((i) => makeTask({ id: `p${i}`, statement: `Task p${i}.`, files: { 'main.py': '' }, command: 'true', limits: { commandSeconds: 30 } })));
    // fork until the kernel refuses (EAGAIN at RLIMIT_NPROC), children sleeping; count what started
    const bomb = `python3 -c "
import os, time
n = 0
try:
    while n < 200:
        if os.fork() == 0:
            time.sleep(5); os._exit(0)
        n += 1
except OSError:
    pass
print('started=%d' % n)"`;
    const model = toolModel(Array.from({ length: 4 }, () => (msgs: readonly { role: string }[]) => (msgs.some((m) => m.role === 'tool') ? final() : calls(['bash', { command: bomb }]))));
    const records: RolloutRecord[] = [];
    await rolloutTasks(tasks, { model, sandbox: createSandbox({ maxProcesses: 40 }), concurrency: 4, onRecords: (rs) => void records.push(...rs) });
    const started = records.map((r) => Number(/started=(\d+)/.exec(toolOutputs(r)[0]!)![1]));
    expect(started).toHaveLength(4);
    // bash, the loop's subshells and bwrap's init take a few of the 40; every episode got the same limit
    for (const n of started) expect(n).toBeGreaterThanOrEqual(30);
    for (const n of started) expect(n).toBeLessThan(40);
  });

  it('#7 node in a home folder (~/bin/node): only node and npm are bound, never the home folder with its keys and tasks file', async () => {
    const home = await scratchDir('frognano-home-');
    await chmod(home, 0o755); // a home folder others may traverse, as most are
    await mkdir(join(home, 'bin'));
    await mkdir(join(home, '.ssh'));
    await writeFile(join(home, '.ssh', 'id_ed25519'), 'PRIVATE-KEY\n');
    await link(process.execPath, join(home, 'bin', 'node'));
    const r = await rolloutCli(
      [
        {
          id: 'home',
          statement: 'Task home: look around.',
          files: { 'main.py': 'print(1)\n' },
          command: 'true',
          script: [[['bash', { command: `node -e 'console.log("node", process.version)'; cat ${home}/.ssh/id_ed25519; cat ${home}/tasks/tasks.jsonl; ls ${home}` }]]],
        },
      ],
      { node: join(home, 'bin', 'node'), env: { HOME: home }, dir: await mkdir(join(home, 'tasks'), { recursive: true }).then(() => join(home, 'tasks')) },
    );
    expect(r.code).toBe(0);
    const out = toolOutputs(r.records[0]!)[0]!;
    expect(out).toContain(`node ${process.version}`);
    expect(out).not.toContain('PRIVATE-KEY');
    expect(out).not.toContain('Task home');
    expect(out).toContain(`${home}/.ssh/id_ed25519: No such file or directory`);
    expect(out).toMatch(/^bin$/m); // only the bound bin/node made its folder
  });

  it('#7 a read-only bind that contains the home folder or a protected path is refused, naming both', () => {
    const bad = (opts: SandboxOptions, re: RegExp) => {
      try {
        createSandbox(opts);
        throw new Error('accepted');
      } catch (e) {
        expect(isFrognanoError(e, 'SANDBOX_UNAVAILABLE')).toBe(true);
        expect((e as Error).message).toMatch(re);
      }
    };
    bad({ readOnlyPaths: [homedir()] }, new RegExp(`refusing to bind ${homedir()}.*home folder`));
    bad({ readOnlyPaths: ['/'] }, /refusing to bind \/ into the sandbox/);
    bad({ readOnlyPaths: ['/srv'], protectedPaths: ['/srv/tasks/tasks.jsonl'] }, /refusing to bind \/srv .*\/srv\/tasks\/tasks.jsonl/);
  });

  it('#10 ulimit -f is maxFileMB in MiB (bash counts 1024-byte blocks)', async () => {
    const t = await bashEpisode(['head -c 1000000 /dev/zero > a; echo a=$?; head -c 1100000 /dev/zero > b; echo b=$?; stat -c %s b'], { maxFileMB: 1 });
    const out = outputs(t)[0]!;
    expect(out).toContain('a=0');
    expect(out).toMatch(/File size limit exceeded[^\n]*\nb=153\n1048576/);
  });

  it('#10 nested user namespaces are refused', async () => {
    const t = await bashEpisode(['unshare -U true; echo u=$?; unshare -r id; echo r=$?']);
    const out = outputs(t)[0]!;
    expect(out).toContain('u=1');
    expect(out).toContain('r=1');
  });

  it('#11 the host-wide counters are fixed views inside the sandbox', async () => {
    const t = await bashEpisode(['cat /proc/loadavg; head -1 /proc/meminfo; grep -E "^(processes|procs_running)" /proc/stat; wc -c < /proc/vmstat'], { memoryMB: 1024 });
    expect(outputs(t)[0]).toBe('0.00 0.00 0.00 1/1 1\nMemTotal:       1048576 kB\nprocesses 1\nprocs_running 1\n0\n[exit code: 0]');
  });

  it.skipIf(!isRoot)("bwrap's own error reaches the tool message (a bind the sandbox user may not read)", async () => {
    const priv = await scratchDir('frognano-priv-');
    await mkdir(join(priv, 'toolchain'));
    const t = await bashEpisode(['echo ran'], { readOnlyPaths: [join(priv, 'toolchain')] });
    expect(outputs(t)[0]).toBe(`bwrap: Can't find source path ${join(priv, 'toolchain')}: Permission denied\n[exit code: 1]`);
  });
});
