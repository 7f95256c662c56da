/**
 * Findings of the red-team review of task environments (issue 22), each a real episode:
 * a planted `BASH_ENV` file, a planted `sh` in a repo folder on the environment's PATH,
 * and an image whose config `WorkingDir` cannot be a workdir. Each of these was a fake
 * pass (reward 1 without the fix) or a run-level crash before the fix.
 */
import { chmodSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoPathsInEnv, withoutShellStartup } from '../../src/leaf/environment.js';
import { historyFreeRepo } from '../../src/leaf/imageRepo.js';
import { rolloutTasks, type RolloutRecord } from '../../src/leaf/rolloutTasks.js';
import { createSandbox } from '../../src/leaf/sandbox.js';
import { loadLeafTasks, type LoadedLeafTask } from '../../src/leaf/task.js';
import { buildImageRoot, hasImageTools } from '../helpers/imageRoot.js';
import { hasBwrap } from '../helpers/system.js';
import { calls, final, toolModel } from '../helpers/toolModel.js';
import { configOf, dockerSaveLegacy } from './image/imageBuilders.js';

const TEST_SH = 'grep -q world a.txt && echo REAL-PASS\n';
const ready = hasBwrap() && hasImageTools();
let work: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'frognano-image-review-'));
  chmodSync(work, 0o755);
  process.env.FROGNANO_IMAGE_CACHE = join(work, 'cache');
});

/** A tasks file of one task in a fresh image folder holding the repo at /testbed (hidden test: a.txt must say world). */
async function imageTask(id: string, environment: Record<string, unknown>): Promise<LoadedLeafTask> {
  const dir = mkdtempSync(join(work, `${id}-`));
  chmodSync(dir, 0o755);
  buildImageRoot({ parent: dir, files: { 'testbed/a.txt': 'hello\n' } });
  const img = readdirSync(dir).find((n) => n.startsWith('frognano-image-'))!;
  const file = join(dir, 'tasks.jsonl');
  writeFileSync(file, `${JSON.stringify({ id, statement: 'Make a.txt say world.', tests: { command: 'sh test.sh', files: { 'test.sh': TEST_SH } }, environment: { image: img, workdir: '/testbed', ...environment } })}\n`);
  return (await loadLeafTasks(file))[0]!;
}

async function rollout(tasks: LoadedLeafTask[], script: Parameters<typeof toolModel>[0]): Promise<RolloutRecord[]> {
  const records: RolloutRecord[] = [];
  await rolloutTasks(tasks, { model: toolModel(script), sandbox: createSandbox({}), onRecords: (r) => void records.push(...r) });
  return records;
}

describe('the variables a shell reads before the preamble, and repo paths the environment hands to the system', () => {
  it('BASH_ENV, ENV, SHELLOPTS, BASHOPTS and exported functions never reach a call', () => {
    expect(withoutShellStartup({ BASH_ENV: '/testbed/.x', ENV: '/x', SHELLOPTS: 'xtrace', BASHOPTS: 'extglob', 'BASH_FUNC_ulimit%%': '() { :; }', PATH: '/bin', LANG: 'C' })).toEqual({ PATH: '/bin', LANG: 'C' });
  });

  it.skipIf(!hasBwrap())('the sandbox itself drops them, whoever sets them: the sandbox option and a call\'s env on the host sandbox', async () => {
    const repo = mkdtempSync(join(work, 'host-'));
    chmodSync(repo, 0o777);
    writeFileSync(join(repo, '.bashenv'), 'echo SOURCED\n');
    const sandbox = createSandbox({ env: { BASH_ENV: '/repo/.bashenv', KEEP: 'kept' } });
    const r = await sandbox.run(repo, 'echo "${BASH_ENV:-unset} ${ENV:-unset} $KEEP"', { timeoutMs: 20_000, env: { ENV: '/repo/.bashenv' } });
    expect(r.output).toBe('unset unset kept\n');
  });

  it('names the PATH / LD_LIBRARY_PATH folders and LD_PRELOAD / PYTHONSTARTUP files inside the workdir, repo-relative', () => {
    const env = { root: '/r', digest: null, workdir: '/testbed', repoDir: '/r/testbed', env: { PATH: '/testbed/bin:/testbed//node_modules/.bin/:/usr/bin:/testbed:/testbedx/bin', LD_LIBRARY_PATH: '/testbed/lib', LD_PRELOAD: '/testbed/hook.so /usr/lib/x.so', PYTHONSTARTUP: '/testbed/start.py' } };
    expect(repoPathsInEnv(env)).toEqual({ folders: ['bin', 'node_modules/.bin', '.', 'lib'], files: ['hook.so', 'start.py'] });
    expect(repoPathsInEnv(null)).toEqual({ folders: [], files: [] });
  });
});

describe.skipIf(!ready)('review findings, as episodes in an image', () => {
  it('a BASH_ENV of the task pointing into the workdir: the planted file is never sourced, so no fake pass (was reward 1)', async () => {
    const task = await imageTask('bashenv', { env: { BASH_ENV: '/testbed/.bashenv' } });
    const [r] = await rollout([task], [calls(['bash', { command: 'printf "echo FAKE-PASS; exit 0\\n" > .bashenv; ulimit -v' }]), final()]);
    expect(r!.messages.find((m) => m.role === 'tool')?.content).toBe('4194304\n[exit code: 0]');
    expect(r!.grading!.output).not.toContain('FAKE-PASS');
    expect(r!.reward).toBe(0);
  });

  it('a planted sh in a repo folder on the environment\'s PATH is dropped at grading (grading.dropped), so no fake pass (was reward 1)', async () => {
    const task = await imageTask('pathsh', { env: { PATH: '/testbed/bin:/usr/bin:/bin' } });
    const [r] = await rollout([task], [calls(['bash', { command: 'mkdir -p bin; printf "#!/bin/sh\\necho FAKE-PASS; exit 0\\n" > bin/sh; chmod +x bin/sh' }]), final()]);
    expect(r!.grading!.dropped).toEqual(['bin/sh']);
    expect(r!.grading!.output).not.toContain('FAKE-PASS');
    expect(r!.reward).toBe(0);
    // an honest fix in the same task still passes
    const [ok] = await rollout([task], [calls(['write', { file_path: 'a.txt', content: 'world\n' }]), final()]);
    expect(ok!.grading!.output).toBe('REAL-PASS\n');
    expect(ok!.reward).toBe(1);
  });

  it('an image whose WorkingDir cannot be a workdir (/tmp) fails that task\'s episodes only; the other task runs (was a crash of the run)', async () => {
    const root = buildImageRoot({ parent: work, files: { 'srv/a.txt': 'hello\n' } });
    const layer = execFileSync('tar', ['-C', root, '--numeric-owner', '-cf', '-', '.'], { maxBuffer: 1 << 28 });
    const dir = mkdtempSync(join(work, 'wd-'));
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, 'bad.tar'), await dockerSaveLegacy([layer], configOf([layer], { WorkingDir: '/tmp' })));
    const file = join(dir, 'tasks.jsonl');
    writeFileSync(file, `${JSON.stringify({ id: 'bad-workdir', statement: 's', tests: { command: 'true' }, environment: { image: 'bad.tar' } })}\n`);
    const [bad] = await loadLeafTasks(file);
    const good = await imageTask('good', {});
    const records = await rollout([bad!, good], [calls(['write', { file_path: 'a.txt', content: 'world\n' }]), final()]);
    const byTask = Object.fromEntries(records.map((r) => [r.taskId, r]));
    expect(byTask['bad-workdir']).toMatchObject({ termination: 'error', reward: null });
    expect(byTask['bad-workdir']!.error).toContain('workdir "/tmp" (the image\'s WorkingDir) cannot hold the repo: must not be inside /proc, /dev, /tmp');
    expect(byTask.good).toMatchObject({ termination: 'stop', reward: 1 });
  }, 120_000);

  it('a task without repo gets the image\'s workdir without its git history: a later commit (the fix) cannot be mined', async () => {
    const task = await imageTask('history', {});
    const tb = join(task.imagePath!, 'testbed');
    const env = { ...process.env, GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@a', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@a' };
    const git = (...a: string[]): string => execFileSync('git', a, { cwd: tb, env, encoding: 'utf8' });
    git('init', '-q', '.');
    git('add', '-A');
    git('commit', '-q', '-m', 'base');
    git('checkout', '-q', '-b', 'upstream');
    writeFileSync(join(tb, 'a.txt'), 'world\n');
    git('commit', '-q', '-am', 'THE FIX');
    git('checkout', '-q', 'master');
    // the image has no git: the agent's view of .git is its refs; the host's git reads the copy itself
    const [r] = await rollout([task], [calls(['bash', { command: 'ls .git/refs/heads; cat a.txt' }]), final()]);
    expect(r!.messages.find((m) => m.role === 'tool')?.content).toBe('main\nhello\n[exit code: 0]');
    expect(r!.diff).toBe('');
    const copy = await historyFreeRepo(tb);
    expect(copy).not.toBe(tb);
    expect(execFileSync('git', ['log', '--all', '--format=%s'], { cwd: copy, encoding: 'utf8' })).toBe("the image's workdir (its history left out)\n");
    expect(() => execFileSync('git', ['cat-file', '-e', `${git('rev-parse', 'upstream').trim()}^{commit}`], { cwd: copy, stdio: 'ignore' })).toThrow();
  });
});
