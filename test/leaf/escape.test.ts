/**
 * The Leaf sandbox's escape suite (issue 10, SPEC §12): every attempt below is
 * made through a real episode (tool calls of a scripted model, bubblewrap
 * sandbox) and must be contained. Each test checks the host, not only the
 * tool message.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { chmod, readFile, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/leaf/sandbox.js';
import type { LeafTrajectory } from '../../src/leaf/leafTrajectory.js';
import { runEpisode } from '../../src/leaf/runEpisode.js';
import type { Message } from '../../src/schema/trajectory.js';
import { hasBwrap } from '../helpers/system.js';
import { makeTask, scratchDir } from '../helpers/leafTask.js';
import { calls, final, toolModel } from '../helpers/toolModel.js';

const toolMessages = (t: LeafTrajectory): Message[] => t.messages.filter((m) => m.role === 'tool');

/** Processes on this machine whose command line contains `needle`. */
function processesMatching(needle: string): number {
  let n = 0;
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').join(' ').includes(needle)) n++;
    } catch {
      // gone
    }
  }
  return n;
}

/** Leaf workspaces left in the temporary folder. */
/** This file's own workspace folder (other test files make workspaces in the temporary folder meanwhile). */
let wsDir = tmpdir();
const workspaces = (): string[] => readdirSync(wsDir).filter((f) => f.startsWith('frognano-leaf-'));

describe.skipIf(!hasBwrap())('Leaf sandbox escape suite (bubblewrap)', () => {
  let sandbox: Sandbox;
  let hostDir: string;
  beforeAll(async () => {
    sandbox = createSandbox({ killAfterOutputBytes: 1 << 20, maxProcesses: 64 });
    hostDir = await scratchDir('frognano-host-');
    wsDir = await scratchDir('frognano-ws-');
    await chmod(wsDir, 0o755); // the sandbox user reaches the copies below it
  });

  const episode = async (toolCalls: [string, Record<string, unknown>][][], limits = { commandSeconds: 10 }, hidden?: Record<string, string>) => {
    const task = await makeTask({ files: { 'main.py': 'print(1)\n' }, command: 'test -f main.py', hidden, limits });
    const before = workspaces().length;
    const t = await runEpisode(task, { model: toolModel([...toolCalls.map((c) => calls(...c)), final()]), sandbox, tmpDir: wsDir });
    expect(workspaces().length).toBe(before); // the episode's copy is gone
    return t;
  };

  it('bash cannot write outside the repo copy: system folders are read-only, /tmp is private, the host is not mounted', async () => {
    const victim = join(hostDir, 'bash-wrote-here');
    const t = await episode([[['bash', { command: `echo x > /etc/frognano-escape; echo x > /usr/frognano-escape; echo x > ${victim}; echo x > /tmp/frognano-escape-probe; ls /tmp; echo in-repo > ok.txt` }]]]);
    const out = toolMessages(t)[0]!.content;
    expect(out).toContain('/etc/frognano-escape: Read-only file system');
    expect(out).toContain('/usr/frognano-escape: Read-only file system');
    expect(out).toMatch(/bash-wrote-here: No such file or directory/);
    expect(existsSync('/etc/frognano-escape')).toBe(false);
    expect(existsSync(victim)).toBe(false);
    expect(existsSync('/tmp/frognano-escape-probe')).toBe(false);
    expect(t.diff).toContain('+++ b/ok.txt'); // the repo copy itself is writable
  });

  it('write / edit refuse absolute paths elsewhere and ..; nothing is created', async () => {
    const abs = join(hostDir, 'abs.txt');
    const t = await episode([[['write', { file_path: abs, content: 'x' }], ['write', { file_path: '../outside.txt', content: 'x' }], ['write', { file_path: 'a/../../outside2.txt', content: 'x' }], ['edit', { file_path: '/etc/hostname', old_string: 'a', new_string: 'b' }]]]);
    const msgs = toolMessages(t).map((m) => m.content);
    for (const m of msgs) expect(m).toMatch(/^Error: .*outside the repository/);
    expect(existsSync(abs)).toBe(false);
    expect(t.diff).toBe('');
  });

  it('a symlink that bash plants is not followed out by write, edit or read', async () => {
    const victim = join(hostDir, 'victim.txt');
    await writeFile(victim, 'original\n');
    const t = await episode([
      [['bash', { command: `ln -s ${hostDir} hostlink && ln -s ${victim} v.txt && ln -s /etc/passwd pw && ln -s .. up && ln -s /repo/../etc etc2 && ls -la` }]],
      [
        ['write', { file_path: 'hostlink/planted.txt', content: 'x' }],
        ['edit', { file_path: 'v.txt', old_string: 'original', new_string: 'pwned' }],
        ['write', { file_path: 'v.txt', content: 'pwned' }],
        ['read', { file_path: 'pw' }],
        ['write', { file_path: 'up/x.txt', content: 'x' }],
        ['read', { file_path: 'etc2/passwd' }],
      ],
    ]);
    const [, ...msgs] = toolMessages(t);
    expect(msgs).toHaveLength(6);
    for (const m of msgs) expect(m.content).toMatch(/^Error: .*(outside the repository)/);
    expect(await readFile(victim, 'utf8')).toBe('original\n');
    expect(existsSync(join(hostDir, 'planted.txt'))).toBe(false);
  });

  it('read /etc/passwd is refused; bash sees only the sandbox\'s view (no /root, /home, /work)', async () => {
    const t = await episode([[['read', { file_path: '/etc/passwd' }], ['bash', { command: 'ls /root /home /work 2>&1; echo $HOME; env | grep -c -i -E "key|token|secret" || true' }]]]);
    const [read, bash] = toolMessages(t);
    expect(read!.content).toMatch(/^Error: \/etc\/passwd is outside the repository/);
    expect(bash!.content).toMatch(/ls: cannot access '\/root': No such file or directory/);
    expect(bash!.content).toMatch(/ls: cannot access '\/work': No such file or directory/);
    expect(bash!.content).toContain('/tmp\n0\n'); // HOME is the private /tmp; no key or token variable entered
  });

  describe('network', () => {
    let hits = 0;
    let port = 0;
    const server = createServer((_, res) => {
      hits++;
      res.end('secret');
    });
    beforeAll(() => new Promise<void>((r) => server.listen(0, '127.0.0.1', () => ((port = (server.address() as AddressInfo).port), r()))));
    afterAll(() => new Promise<void>((r) => server.close(() => r())));

    it('a loopback server of the host is unreachable (new network namespace)', async () => {
      const t = await episode([
        [
          ['bash', { command: `node -e "fetch('http://127.0.0.1:${port}/').then(r => console.log('REACHED', r.status), e => console.log('BLOCKED', e.cause && e.cause.code))"` }],
          ['bash', { command: `(echo > /dev/tcp/127.0.0.1/${port}) 2>&1 && echo REACHED || echo BLOCKED` }],
          ['bash', { command: `python3 -c "import urllib.request; urllib.request.urlopen('http://1.1.1.1', timeout=2)" 2>&1 | tail -1` }],
        ],
      ]);
      const [a, b, c] = toolMessages(t).map((m) => m.content);
      expect(a).toContain('BLOCKED ECONNREFUSED');
      expect(b).toContain('BLOCKED');
      expect(c).toMatch(/Network is unreachable|URLError/);
      expect(hits).toBe(0);
    });
  });

  it('a fork bomb is contained by the process limit and killed at the time limit; nothing survives', async () => {
    const t0 = performance.now();
    // the bomb forks in the background while the call's own shell waits, so it runs into the limit
    const t = await episode([[['bash', { command: ':(){ :|:& };: ; sleep 60; echo unreachable-frognano-bomb' }]]], { commandSeconds: 3 });
    const secs = (performance.now() - t0) / 1000;
    const m = toolMessages(t)[0]!;
    expect(m.content).toMatch(/^Error: the command timed out after 3 s/);
    expect(m.content).toMatch(/fork: (retry: )?Resource temporarily unavailable/); // the process limit held
    expect(m.content).not.toContain('unreachable-frognano-bomb\n');
    expect(secs).toBeLessThan(20);
    await new Promise((r) => setTimeout(r, 200));
    expect(processesMatching('unreachable-frognano-bomb')).toBe(0);
  });

  it('endless output is cut with a note and the command is killed past the output limit', async () => {
    const t0 = performance.now();
    const t = await episode([[['bash', { command: 'yes frognano-endless' }]]], { commandSeconds: 30 });
    const m = toolMessages(t)[0]!;
    expect(performance.now() - t0).toBeLessThan(15_000); // killed by the output limit, not the 30 s timeout
    expect(m.content).toContain('characters of output omitted');
    expect(m.content).toContain('[killed: the command wrote more than 1048576 bytes of output]');
    expect(m.content.length).toBeLessThan(31_000);
    expect(processesMatching('frognano-endless')).toBe(0);
  });

  it('a command that ignores SIGTERM is killed at its time limit, with its children', async () => {
    const t0 = performance.now();
    const t = await episode([[['bash', { command: "trap '' TERM; (trap '' TERM; sleep 321.5) & sleep 321.5" }]]], { commandSeconds: 1 });
    expect(performance.now() - t0).toBeLessThan(10_000);
    const m = toolMessages(t)[0]!;
    expect(m.content).toMatch(/^Error: the command timed out after 1 s and was killed/);
    expect(m.timedOut).toBe(true);
    expect(processesMatching('sleep 321.5')).toBe(0);
  });

  it('`sleep 1000 &` does not outlive its call', async () => {
    const t = await episode([[['bash', { command: 'sleep 1000.25 & echo started' }], ['bash', { command: 'ps -eo comm= | grep -c "^sleep$" ; true' }]]]);
    const [a, b] = toolMessages(t).map((m) => m.content);
    expect(a).toBe('started\n[exit code: 0]');
    expect(b).toBe('0\n[exit code: 0]'); // the sleep died with its call
    expect(processesMatching('sleep 1000.25')).toBe(0);
  });

  it.skipIf(process.arch !== 'x64')('a command that detaches the sandbox\'s init from bwrap (ptrace) still does not outlive its call', async () => {
    const inject = readFileSync(join(import.meta.dirname, '../fixtures/leaf/detach-init.py')).toString('base64');
    const task = await makeTask({ files: { 'a.txt': 'x\n' }, command: 'test ! -e alive-after-episode' });
    const t = await runEpisode(task, {
      sandbox,
      model: toolModel([
        calls(['bash', { command: `echo ${inject} | base64 -d > /tmp/i.py; setsid sh -c 'while true; do date +%s%N > /repo/alive; sleep 0.1; done' >/dev/null 2>&1 </dev/null & python3 /tmp/i.py 1; echo call-done` }]),
        calls(['bash', { command: 'sleep 0.5; cat alive; sleep 0.5; cat alive' }]),
        final(),
      ]),
    });
    const [first, second] = toolMessages(t).map((m) => m.content);
    expect(first).toContain('call-done');
    // by the second call the loop is gone: the file it kept rewriting no longer changes
    const [a, b] = second!.split('\n');
    expect(a).toBe(b);
    expect(processesMatching('while true; do date')).toBe(0);
  });

  it('a task repo that is a symbolic link is copied from its target: the original is never touched', async () => {
    const task = await makeTask({ files: { 'main.py': 'print("original")\n' }, command: 'grep -q fixed main.py' });
    const link = join(await scratchDir(), 'repo-link');
    await symlink(task.repoDir, link);
    const t = await runEpisode({ ...task, repo: link, repoDir: link }, { sandbox, model: toolModel([calls(['write', { file_path: 'main.py', content: 'print("fixed")\n' }]), final()]) });
    expect(t.outcome?.success).toBe(true);
    expect(t.diff).toContain('+print("fixed")');
    expect(await readFile(join(task.repoDir, 'main.py'), 'utf8')).toBe('print("original")\n');
    expect(statSync(join(task.repoDir, 'main.py')).uid).toBe(process.getuid!());
  });

  it('the private /tmp of a call is capped (tmpfs is RAM)', async () => {
    const t = await episode([[['bash', { command: 'df -k /tmp | tail -1 | awk "{print \\$2}"; (head -c 600000000 /dev/zero > /tmp/big) 2>&1 | tail -1; ls -la /tmp/big | awk "{print \\$5}"' }]]]);
    const out = toolMessages(t)[0]!.content;
    expect(out).toMatch(/^524288\n/);
    expect(out).toContain('No space left on device');
    expect(out).toContain('\n536870912\n');
  });

  it('memory is limited per process', async () => {
    const t = await episode([[['bash', { command: 'python3 -c "x = bytearray(6 * 1024 ** 3)" 2>&1 | tail -1' }]]]);
    expect(toolMessages(t)[0]!.content).toContain('MemoryError');
  });

  it('the hidden tests are absent during the episode and exist only for grading', async () => {
    const hidden = { 'tests/test_hidden.py': 'SECRET-HIDDEN-TEST\n' };
    const task = await makeTask({ files: { 'main.py': 'print(1)\n', 'tests/__init__.py': '' }, hidden, command: 'grep -q SECRET-HIDDEN-TEST tests/test_hidden.py' });
    const t = await runEpisode(task, {
      sandbox,
      model: toolModel([
        calls(
          ['bash', { command: 'ls -a tests; grep -rl SECRET-HIDDEN-TEST /repo /tmp /etc 2>/dev/null; find / -name "test_hidden*" -not -path "/proc/*" 2>/dev/null; echo end' }],
          ['read', { file_path: 'tests/test_hidden.py' }],
          ['glob', { pattern: '**/test_hidden*' }],
          ['read', { file_path: join(task.repoDir, 'main.py') }],
        ),
        final(),
      ]),
    });
    const [bash, read, glob, hostRead] = toolMessages(t).map((m) => m.content);
    expect(bash).toBe('.\n..\n__init__.py\nend\n[exit code: 0]');
    expect(read).toMatch(/^Error: tests\/test_hidden.py does not exist/);
    expect(glob).toBe('No files match **/test_hidden*');
    expect(hostRead).toMatch(/^Error: .* is outside the repository/);
    expect(t.outcome?.success).toBe(true); // the grading run saw them
    expect(t.diff).toBe('');
  });
});
