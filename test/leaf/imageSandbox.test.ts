/**
 * The sandbox over an image (SPEC §14, issue 22): a root filesystem folder built
 * from host files (test/helpers/imageRoot.ts) is the sandbox's read-only `/`, the
 * repo copy writable at the workdir, every §12 guarantee kept; `environment.setup`,
 * the environment's record, and a full episode with grading and validation in it.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, chownSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { environmentSandbox, resolveEnvironment } from '../../src/leaf/environment.js';
import { type RolloutRecord, rolloutTasks } from '../../src/leaf/rolloutTasks.js';
import { createSandbox, type Sandbox } from '../../src/leaf/sandbox.js';
import { loadLeafTasks, type LoadedLeafTask } from '../../src/leaf/task.js';
import { validateLeafTask } from '../../src/leaf/validateLeafTasks.js';
import { expectFrognanoErrorAsync } from '../helpers/expectError.js';
import { buildImageRoot, canCopyPython, hasImageTools, IMAGE_RELEASE } from '../helpers/imageRoot.js';
import { hasBwrap } from '../helpers/system.js';
import { configOf, dockerSaveLegacy } from './image/imageBuilders.js';
import { execFileSync } from 'node:child_process';
import { calls, final, toolModel } from '../helpers/toolModel.js';

const T = { timeoutMs: 20_000 };

describe.skipIf(!hasBwrap() || !hasImageTools())('sandbox over an image', () => {
  let work: string;
  let image: string;
  let sandbox: Sandbox;
  let repo: string;
  const run = (command: string, extra: Record<string, unknown> = {}) => sandbox.run(repo, command, { ...T, image, ...extra });

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'frognano-image-test-'));
    chmodSync(work, 0o755); // the sandbox user (nobody, when root runs the tests) must reach the image
    image = buildImageRoot({ parent: work });
    sandbox = createSandbox({ protectedPaths: [join(work, 'tasks.jsonl')] });
    repo = join(work, 'repo');
    mkdirSync(repo);
    if (sandbox.owner) chownSync(repo, sandbox.owner.uid, sandbox.owner.gid);
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("sees the image's files and none of the host's system", async () => {
    // the host has these; the image does not
    expect(existsSync('/usr/bin/python3') || existsSync('/etc/debian_version') || existsSync('/etc/hostname')).toBe(true);
    const r = await run('cat /etc/image-release; for p in /usr/bin/python3 /etc/debian_version /etc/hostname /etc/passwd /usr/lib /work; do test -e $p && echo "present $p"; done; echo end');
    expect(r.output).toBe(`${IMAGE_RELEASE}end\n`);
    expect(r.exitCode).toBe(0);
  });

  it('has the repo copy writable at the workdir (cwd there) and the image read-only', async () => {
    const r = await run('pwd; echo hi > x.txt; cat x.txt; echo y > /etc/x; echo "etc $?"; mkdir /newdir; echo "root $?"');
    expect(r.output).toMatch(/^\/repo\nhi\n.*Read-only file system\netc [12]\n.*Read-only file system\nroot 1\n$/s);
    expect(readFileSync(join(repo, 'x.txt'), 'utf8')).toBe('hi\n');
    expect(existsSync(join(image, 'etc/x'))).toBe(false);
  });

  it('gives every call a fresh /tmp', async () => {
    expect((await run('echo a > /tmp/f && cat /tmp/f')).output).toBe('a\n');
    expect((await run('test -e /tmp/f && echo kept || echo fresh')).output).toBe('fresh\n');
  });

  it('keeps the limits and closes inherited descriptors', async () => {
    const o = sandbox.options;
    const r = await run('ulimit -u; ulimit -n; ulimit -v; ulimit -f; ls /proc/self/fd; id -u');
    const uid = sandbox.owner ? String(sandbox.owner.uid) : String(process.getuid!());
    // 3 is ls's own listing of the folder
    expect(r.output).toBe(`${o.maxProcesses}\n${o.maxOpenFiles}\n${o.memoryMB * 1024}\n${o.maxFileMB * 1024}\n0\n1\n2\n3\n${uid}\n`);
  });

  it('shows the fixed /proc views and has no network', async () => {
    const r = await run('cat /proc/loadavg; cat /sys/class/net/*/address 2>/dev/null | wc -l; hostname');
    expect(r.output).toMatch(/^0\.00 0\.00 0\.00 1\/1 1\n.*\nleaf\n$/s);
  });

  it('layers the variables: defaults, then the image and task env (PATH included), grading variables on top', async () => {
    const env = { root: image, digest: null, workdir: '/repo', env: { FOO: 'task', PATH: '/bin:/opt/x', PYTHONDONTWRITEBYTECODE: '0' }, repoDir: repo };
    const sb = environmentSandbox(sandbox, env);
    const r = await sb.run(repo, 'echo "$FOO|$PATH|$HOME|$LANG|$PYTHONDONTWRITEBYTECODE|$PYTHONPYCACHEPREFIX"', T);
    expect(r.output).toBe('task|/bin:/opt/x|/tmp|C.UTF-8|1|/tmp/.leaf-pycache\n');
    // without PATH from the image or the task: the usual sandbox PATH (no host node folder)
    expect((await run('echo $PATH')).output).toBe('/usr/local/bin:/usr/bin:/bin\n');
  });

  it('refuses a workdir missing in the read-only image before bwrap starts, naming it (a direct call checks the mount points)', async () => {
    await expectFrognanoErrorAsync(() => run('echo never', { workdir: '/nowhere' }), 'SANDBOX_UNAVAILABLE', image, 'mount point /nowhere is missing');
  });

  it('refuses, on a direct sandbox.run, an image whose /tmp is a symlink (no call goes without its /tmp tmpfs)', async () => {
    const linked = buildImageRoot({ parent: work, noMountPoints: true });
    for (const d of ['proc', 'dev', 'repo', 'elsewhere']) mkdirSync(join(linked, d), { mode: 0o755 });
    symlinkSync('/elsewhere', join(linked, 'tmp'));
    await expectFrognanoErrorAsync(() => sandbox.run(repo, 'echo never', { ...T, image: linked }), 'SANDBOX_UNAVAILABLE', linked, 'mount point /tmp is not a folder', 'symbolic link');
    // refused every time (the check is cached only when it passes), and fixed once /tmp is a folder
    await expectFrognanoErrorAsync(() => sandbox.run(repo, 'echo never', { ...T, image: linked }), 'SANDBOX_UNAVAILABLE', 'mount point /tmp');
    rmSync(join(linked, 'tmp'));
    mkdirSync(join(linked, 'tmp'), { mode: 0o755 });
    expect((await sandbox.run(repo, 'echo ok > /tmp/x && cat /tmp/x', { ...T, image: linked })).output).toBe('ok\n');
  });

  it('refuses an image without bash, naming it', async () => {
    const nobash = buildImageRoot({ parent: work, noBash: true });
    await expectFrognanoErrorAsync(() => sandbox.run(repo, 'true', { ...T, image: nobash }), 'SANDBOX_UNAVAILABLE', nobash, 'has no bash');
  });

  it('refuses an image that contains a protected path (the tasks file)', async () => {
    writeFileSync(join(work, 'tasks.jsonl'), '');
    await expectFrognanoErrorAsync(() => sandbox.run(repo, 'true', { ...T, image: work }), 'SANDBOX_UNAVAILABLE', 'refusing to bind');
  });

  it.skipIf(process.getuid?.() !== 0)('refuses an image the sandbox user cannot reach, naming the folder', async () => {
    const closed = mkdtempSync(join(work, 'closed-'));
    const img = buildImageRoot({ parent: closed });
    chmodSync(closed, 0o700);
    await expectFrognanoErrorAsync(() => sandbox.run(repo, 'true', { ...T, image: img }), 'SANDBOX_UNAVAILABLE', 'out of the sandbox user', `${closed} is mode 700`);
  });

  it('makes the missing mount points of a writable plain folder, and refuses one that is not a folder', async () => {
    const bare = buildImageRoot({ parent: work, noMountPoints: true });
    const tasks = join(work, 'bare.jsonl');
    writeFileSync(tasks, `${JSON.stringify({ id: 'b', statement: 's', repo: 'repo', tests: { command: 'true' }, environment: { image: bare.slice(work.length + 1), workdir: '/work/proj' } })}\n`);
    const [task] = await loadLeafTasks(tasks);
    const env = (await resolveEnvironment(task!))!;
    expect(env).toMatchObject({ root: bare, digest: null, workdir: '/work/proj', repoDir: repo });
    for (const d of ['proc', 'dev', 'tmp', 'work/proj']) expect(existsSync(join(bare, d))).toBe(true);
    expect((await environmentSandbox(sandbox, env).run(repo, 'pwd; ls', T)).output).toMatch(/^\/work\/proj\n/);
    rmSync(join(bare, 'tmp'), { recursive: true });
    writeFileSync(join(bare, 'tmp'), 'not a folder');
    await expectFrognanoErrorAsync(() => resolveEnvironment(task!), 'SANDBOX_UNAVAILABLE', 'mount point /tmp is not a folder');
  });

  it.skipIf(!canCopyPython())("runs the host's python3 copied into the image", async () => {
    const py = buildImageRoot({ parent: work, python: true });
    const r = await sandbox.run(repo, 'python3 -c "import json, sys; print(json.dumps([sys.version_info[0], 1 + 1]))"; test -e /usr/lib/python3/dist-packages || echo no-dist', { ...T, image: py });
    expect(r.output).toBe('[3, 2]\nno-dist\n');
  });
});

describe.skipIf(!hasBwrap() || !hasImageTools())('a task in an image: setup, validation, episode, grading, record', () => {
  let work: string;
  let sandbox: Sandbox;
  const TEST_SH = 'grep -q world a.txt && test "$(cat setup.log)" = run && cat /etc/image-release\n';
  const PATCH = '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-hello\n+world\n';

  /** A tasks file next to a fresh image folder holding the repo at /repo; the task without `repo`. */
  async function imageTask(id: string, environment: Record<string, unknown>): Promise<LoadedLeafTask> {
    const dir = mkdtempSync(join(work, `${id}-`));
    chmodSync(dir, 0o755);
    buildImageRoot({ parent: dir, files: { 'repo/a.txt': 'hello\n' } });
    const img = (await import('node:fs')).readdirSync(dir).find((n) => n.startsWith('frognano-image-'))!;
    const file = join(dir, 'tasks.jsonl');
    const task = { id, statement: 'Make a.txt say world.', tests: { command: 'sh test.sh', files: { 'test.sh': TEST_SH } }, referencePatch: PATCH, environment: { image: img, ...environment } };
    writeFileSync(file, `${JSON.stringify(task)}\n`);
    return (await loadLeafTasks(file))[0]!;
  }

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'frognano-image-task-'));
    chmodSync(work, 0o755);
    sandbox = createSandbox();
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('validates: setup runs on each fresh copy, the hidden test.sh grades in the image', async () => {
    const task = await imageTask('ok', { setup: 'echo run >> setup.log; echo setting-up' });
    expect(task.repo).toBeUndefined();
    const v = await validateLeafTask(task, { sandbox });
    expect(v).toMatchObject({ id: 'ok', valid: true });
  });

  it('rolls out: setup once before the first turn, hidden tests absent, graded in the image, the environment recorded', async () => {
    const task = await imageTask('ep', { setup: 'echo run >> setup.log; echo setting-up' });
    const model = toolModel([
      calls(['bash', { command: 'cat /etc/image-release; cat setup.log; ls; test -e test.sh || echo no-hidden-test; test -e /usr/bin/python3 || echo no-host-python' }]),
      calls(['write', { file_path: 'a.txt', content: 'world\n' }]),
      final(),
    ]);
    const records: RolloutRecord[] = [];
    await rolloutTasks([task], { model, sandbox, onRecords: (r) => void records.push(...r) });
    expect(records).toHaveLength(1);
    const r = records[0]!;
    expect(r.environment).toEqual({ image: null, workdir: '/repo' });
    expect(r.setup).toMatchObject({ exitCode: 0, timedOut: false, output: 'setting-up\n' });
    const firstTool = r.messages.find((m) => m.role === 'tool')!;
    expect(firstTool.content).toContain(IMAGE_RELEASE.trim());
    expect(firstTool.content).toMatch(/\nrun\na\.txt\nsetup\.log\nno-hidden-test\nno-host-python/);
    expect(r.grading).toMatchObject({ exitCode: 0 });
    expect(r.grading!.output).toContain(IMAGE_RELEASE.trim());
    expect(r.outcome?.success).toBe(true);
    expect(r.reward).toBe(1);
    expect(r.diff).toContain('+world');
    // what setup made (setup.log) is not the agent's change: the diff's base is the repo as setup left it
    expect(r.diff).toBe('diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,1 +1,1 @@\n-hello\n+world\n');
    expect(r.messages[0]!.content).toContain('working in a code repository at /repo.');
  });

  it('a failing setup: the task is invalid with its output, each episode an error record carrying it', async () => {
    const task = await imageTask('bad', { setup: 'echo broken-setup-output; exit 3' });
    const v = await validateLeafTask(task, { sandbox });
    expect(v.valid).toBe(false);
    expect(v.reason).toMatch(/environment\.setup exited 3: broken-setup-output/);
    const model = toolModel([final()]);
    const records: RolloutRecord[] = [];
    await rolloutTasks([task], { model, sandbox, group: 2, onRecords: (r) => void records.push(...r) });
    expect(records).toHaveLength(2);
    for (const r of records) {
      expect(r).toMatchObject({ termination: 'error', reward: null, advantage: null, turns: 0, environment: { image: null, workdir: '/repo' }, setup: { exitCode: 3 } });
      expect(r.error).toMatch(/broken-setup-output/);
      expect(r.setup!.output).toContain('broken-setup-output');
      expect(r.grading).toBeUndefined();
    }
    expect(model.requests).toHaveLength(0);
  });

  it('an image archive (docker save of the same folder): imported, its Env and WorkingDir used, its digest recorded', async () => {
    const dir = mkdtempSync(join(work, 'archive-'));
    chmodSync(dir, 0o755);
    const root = buildImageRoot({ parent: dir, files: { 'testbed/a.txt': 'hello\n', 'testbed/setup.log': 'run\n' }, noMountPoints: true });
    const layer = execFileSync('tar', ['-C', root, '--numeric-owner', '--owner=0', '--group=0', '-cf', '-', '.'], { maxBuffer: 1 << 28 });
    writeFileSync(join(dir, 'image.tar'), await dockerSaveLegacy([layer], configOf([layer], { Env: ['PATH=/bin', 'IMG_VAR=from-image', 'TASK_VAR=image'], WorkingDir: '/testbed' })));
    rmSync(root, { recursive: true });
    const file = join(dir, 'tasks.jsonl');
    const task = { id: 'ar', statement: 'Make a.txt say world.', tests: { command: 'sh test.sh', files: { 'test.sh': `echo "$IMG_VAR $TASK_VAR $PATH"; ${TEST_SH}` } }, referencePatch: PATCH, environment: { image: 'image.tar', env: { TASK_VAR: 'task' } } };
    writeFileSync(file, `${JSON.stringify(task)}\n`);
    const cache = join(dir, 'cache');
    const before = process.env.FROGNANO_IMAGE_CACHE;
    process.env.FROGNANO_IMAGE_CACHE = cache; // not under the home folder: the sandbox user must reach it
    try {
      const [t] = await loadLeafTasks(file);
      const env = (await resolveEnvironment(t!))!;
      expect(env).toMatchObject({ workdir: '/testbed', env: { PATH: '/bin', IMG_VAR: 'from-image', TASK_VAR: 'task' } });
      expect(env.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(env.repoDir.startsWith(cache)).toBe(true);
      if (sandbox.owner) execFileSync('chmod', ['-R', 'o+rX', cache]); // the sandbox user must reach the cache
      const v = await validateLeafTask(t!, { sandbox });
      expect(v.reason).toBeUndefined();
      expect(v.valid).toBe(true);
      const model = toolModel([calls(['write', { file_path: '/testbed/a.txt', content: 'world\n' }]), final()]);
      const records: RolloutRecord[] = [];
      await rolloutTasks([t!], { model, sandbox, onRecords: (r) => void records.push(...r) });
      expect(records[0]).toMatchObject({ environment: { image: env.digest, workdir: '/testbed' }, reward: 1 });
      expect(records[0]!.grading!.output).toContain('from-image task /bin\n');
    } finally {
      if (before === undefined) delete process.env.FROGNANO_IMAGE_CACHE;
      else process.env.FROGNANO_IMAGE_CACHE = before;
    }
  });

  it('an image without bash makes error records naming it (the run goes on)', async () => {
    const dir = mkdtempSync(join(work, 'nobash-'));
    chmodSync(dir, 0o755);
    const img = buildImageRoot({ parent: dir, noBash: true, files: { 'repo/a.txt': 'hello\n' } });
    const file = join(dir, 'tasks.jsonl');
    writeFileSync(file, `${JSON.stringify({ id: 'nb', statement: 's', tests: { command: 'true' }, environment: { image: img } })}\n`);
    const tasks = await loadLeafTasks(file);
    const records: RolloutRecord[] = [];
    await rolloutTasks(tasks, { model: toolModel([final()]), sandbox, onRecords: (r) => void records.push(...r) });
    expect(records[0]).toMatchObject({ termination: 'error', reward: null });
    expect(records[0]!.error).toMatch(/has no bash/);
  });
});
