/**
 * `frognano tasks import --images DIR` (SPEC §14, "Importing instances"): finding an
 * instance's container image in DIR, and what of it the task takes.
 *
 * SWE-bench builds one image per instance, `sweb.eval.x86_64.<instance_id lowercased>`
 * (`TestSpec.instance_image_key`, swebench/harness/test_spec/test_spec.py at
 * 25c52357b750af7e636daa54d03fce9861b3f3e6); on Docker Hub it is
 * `swebench/sweb.eval.x86_64.<id with __ as _1776_>:latest`. SWE-smith, SWE-Gym and
 * SWE-rebench instances name theirs in `image_name`. Its `/testbed` is the repository at
 * `base_commit`, built and installed into the conda env `testbed`
 * (`/opt/miniconda3/envs/testbed`), which the image activates only through `/root/.bashrc`
 * (`conda activate testbed`, swebench/harness/dockerfiles/python.py): a non-interactive
 * shell does not read it, so the task's `environment.env.PATH` puts the env first instead.
 * @module
 */
import { lstat, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { copyWithoutGit } from './oneCommitRepo.js';

/** The conda env of SWE-bench's images, activated by `.bashrc` there. */
export const SWE_BENCH_CONDA_ENV = '/opt/miniconda3/envs/testbed';
/** Where SWE-bench's images hold the repository. */
export const SWE_BENCH_WORKDIR = '/testbed';
/** The PATH of a shell in which `conda activate testbed` ran, in a SWE-bench image (the image's `ENV PATH=/opt/miniconda3/bin:$PATH` after the env). */
export const SWE_BENCH_PATH = `${SWE_BENCH_CONDA_ENV}/bin:/opt/miniconda3/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`;

/**
 * The names under which an instance's image may sit in `--images` (each tried as
 * `<name>.tar`, then as a folder `<name>`), in order: `image_name` as written, its
 * last path part, both without a `:tag`; then SWE-bench's
 * `sweb.eval.x86_64.<id>` with `__` as `_1776_` (SPEC §14), and with `__` kept,
 * each lowercased as SWE-bench names them.
 */
export function instanceImageNames(inst: { instance_id: string; image_name?: unknown }): string[] {
  const names: string[] = [];
  if (typeof inst.image_name === 'string' && inst.image_name.trim() !== '') {
    const full = inst.image_name.trim();
    const last = full.slice(full.lastIndexOf('/') + 1);
    for (const n of [full, last]) names.push(n, n.replace(/:[^:/]*$/, ''));
  }
  const id = inst.instance_id.toLowerCase();
  names.push(`sweb.eval.x86_64.${id.replace(/__/g, '_1776_')}`, `sweb.eval.x86_64.${id}`);
  return [...new Set(names)].filter((n) => n !== '' && !n.includes('/') && n !== '.' && n !== '..');
}

/** The first of {@link instanceImageNames} found in `dir` as `<name>.tar` (a file) or `<name>` (a folder); undefined when none is. */
export async function findInstanceImage(dir: string, inst: { instance_id: string; image_name?: unknown }): Promise<string | undefined> {
  const present = new Set(await readdir(dir));
  for (const name of instanceImageNames(inst)) {
    if (present.has(`${name}.tar`) && (await stat(join(dir, `${name}.tar`))).isFile()) return join(dir, `${name}.tar`);
    if (present.has(name) && (await stat(join(dir, name))).isDirectory()) return join(dir, name);
  }
  return undefined;
}

/** `environment.env` for an image: SWE-bench's activated conda env when the image has it (`/opt/miniconda3/envs/testbed/bin`), else none. */
export async function imageTaskEnv(root: string): Promise<Record<string, string> | undefined> {
  const bin = await lstat(join(root, SWE_BENCH_CONDA_ENV, 'bin')).catch(() => null);
  if (!bin?.isDirectory()) return undefined;
  return { PATH: SWE_BENCH_PATH, CONDA_PREFIX: SWE_BENCH_CONDA_ENV, CONDA_DEFAULT_ENV: 'testbed' };
}

/**
 * Copies the image's `workdir` folder (the repository as the image built it, installed
 * and compiled in place) to `target`, which must not exist, without its `.git`: the
 * import makes it a one-commit repository like a clone's tree, because a SWE-bench
 * image's `/testbed/.git` holds the upstream's refs, later commits (the fix) included.
 */
export async function copyImageWorkdir(root: string, workdir: string, target: string): Promise<void> {
  const src = join(root, workdir);
  const st = await lstat(src).catch(() => null);
  if (!st?.isDirectory()) throw new Error(`the image has no folder ${workdir} (its repository)`);
  await copyWithoutGit(src, target);
}
