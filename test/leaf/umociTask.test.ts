/**
 * Issue 22's "done when": a Leaf task whose environment is an image made by a real tool
 * nobody here wrote (Debian's umoci: `init`, `new`, `unpack`, `repack` twice, `config`)
 * validates and rolls out, and its commands see the image's files, not the host's. The
 * second layer deletes a file of the first (umoci writes the whiteout) and adds one.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importImage } from '../../src/leaf/image/index.js';
import { rolloutTasks, type RolloutRecord } from '../../src/leaf/rolloutTasks.js';
import { createSandbox } from '../../src/leaf/sandbox.js';
import { loadLeafTasks } from '../../src/leaf/task.js';
import { validateLeafTask } from '../../src/leaf/validateLeafTasks.js';
import { buildImageRoot, hasImageTools, IMAGE_RELEASE } from '../helpers/imageRoot.js';
import { hasBwrap, needsPackage } from '../helpers/system.js';
import { calls, final, toolModel } from '../helpers/toolModel.js';

const hasUmoci = needsPackage('umoci', spawnSync('umoci', ['--version']).status === 0, 'the umoci task test');
const ready = hasBwrap() && hasImageTools() && hasUmoci;
const work = mkdtempSync(join(tmpdir(), 'frognano-umoci-task-'));
chmodSync(work, 0o755);
afterAll(() => rmSync(work, { recursive: true, force: true }));
const umoci = (...args: string[]): string => execFileSync('umoci', [...(process.getuid?.() !== 0 && ['unpack', 'repack'].includes(args[0]!) ? [args[0]!, '--rootless', ...args.slice(1)] : args)], { encoding: 'utf8' });

describe.runIf(ready)('a task in an image made by umoci', () => {
  it('validates and rolls out; its commands see the image (layer 2 deleted a file of layer 1), not the host', async () => {
    process.env.FROGNANO_IMAGE_CACHE = join(work, 'cache');
    const layout = join(work, 'layout');
    const bundle = join(work, 'bundle');
    umoci('init', '--layout', layout);
    umoci('new', '--image', `${layout}:t`);
    umoci('unpack', '--image', `${layout}:t`, bundle);
    // layer 1: busybox, bash, /etc/image-release, the repo at /repo, a file to delete
    const root = buildImageRoot({ parent: work, files: { 'repo/a.txt': 'hello\n', 'etc/old-file': 'layer one\n' } });
    execFileSync('cp', ['-a', `${root}/.`, join(bundle, 'rootfs')]);
    umoci('repack', '--image', `${layout}:t`, bundle);
    // layer 2: the old file deleted (a whiteout), a new one added
    rmSync(join(bundle, 'rootfs/etc/old-file'));
    writeFileSync(join(bundle, 'rootfs/etc/layer-two'), 'layer two\n');
    umoci('repack', '--image', `${layout}:t`, bundle);
    umoci('config', '--image', `${layout}:t`, '--config.workingdir', '/repo', '--config.env', 'GREETING=from-the-image');
    const file = join(work, 'tasks.jsonl');
    const test = 'grep -q world a.txt && cat /etc/image-release';
    writeFileSync(file, `${JSON.stringify({ id: 'umoci', statement: 'Make a.txt say world.', tests: { command: 'sh test.sh', files: { 'test.sh': `${test}\n` } }, referencePatch: '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-hello\n+world\n', environment: { image: 'layout' } })}\n`);
    const [task] = await loadLeafTasks(file);
    const sandbox = createSandbox({});
    expect(await validateLeafTask(task!, { sandbox })).toMatchObject({ id: 'umoci', valid: true });
    const model = toolModel([
      calls(['bash', { command: 'pwd; echo $GREETING; cat /etc/layer-two; test -e /etc/old-file || echo old-file-gone; test -e /usr/bin/python3 || echo no-host-python; ls /usr/bin | wc -l' }]),
      calls(['write', { file_path: 'a.txt', content: 'world\n' }]),
      final(),
    ]);
    const records: RolloutRecord[] = [];
    await rolloutTasks([task!], { model, sandbox, onRecords: (r) => void records.push(...r) });
    const r = records[0]!;
    expect(r.messages.find((m) => m.role === 'tool')?.content).toBe('/repo\nfrom-the-image\nlayer two\nold-file-gone\nno-host-python\n0\n[exit code: 0]');
    expect(r.outcome?.success).toBe(true);
    expect(r.grading?.output).toBe(IMAGE_RELEASE);
    expect(r.environment).toEqual({ image: (await importImage(layout)).digest, workdir: '/repo' });
  }, 120_000);
});
