/**
 * `frognano tasks import --format swebench` (SPEC §14, "Importing instances"):
 * SWE-bench-family instances (SWE-bench, SWE-Gym, SWE-rebench) as Leaf tasks,
 * each repo the tree at `base_commit` as a new one-commit git repository; and
 * `--format swesmith` (SWE-smith: `patch` is the bug, applied to the repo, its
 * reverse the reference patch, the fail-to-pass test files hidden in `tests.files`).
 * @module
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, extname, join, relative, resolve } from 'node:path';
import { importImage } from './image/index.js';
import { copyImageWorkdir, findInstanceImage, imageTaskEnv, SWE_BENCH_WORKDIR } from './instanceImage.js';
import { COMMIT_ENV, commitOneRepo } from './oneCommitRepo.js';
import { djangoTestId, SWE_BENCH_SPECS, testDirectives } from './sweBenchSpecs.js';
import type { TestLogFormat } from './testLogs/index.js';

/** Options of {@link importInstances}. */
export interface ImportInstancesOptions {
  /** `swebench` (default) or `swesmith`. */
  format?: ImportFormat;
  instances: string;
  /** The folder of git clones (`owner__name` or `owner/name`); needed unless every instance's image is in {@link images}. */
  repos?: string;
  out: string;
  reposOut?: string;
  testCommand?: string;
  log?: TestLogFormat;
  /** `--images`: a folder of instance images (`<name>.tar` or a folder `<name>`, see findInstanceImage); found ones become `environment`. */
  images?: string;
  /** The image cache folder (importImage's `cacheDir`); default its own. */
  imageCache?: string;
}

/** The instance formats: SWE-bench's (also SWE-Gym, SWE-rebench) and SWE-smith's. */
export const IMPORT_FORMATS = ['swebench', 'swesmith'] as const;
/** One of {@link IMPORT_FORMATS}. */
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** The result: the tasks written and one error per instance that could not be imported. */
export interface ImportResult {
  tasks: Record<string, unknown>[];
  errors: { instance_id: string; error: string }[];
  errorsFile: string;
}

interface Run { code: number; stdout: string; stderr: string }

function run(cmd: string, args: string[], opts: { cwd?: string; input?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Run> {
  return new Promise((res, rej) => {
    const p = spawn(cmd, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('error', rej);
    p.on('close', (code) => res({ code: code ?? 1, stdout, stderr }));
    p.stdin.on('error', () => {});
    p.stdin.end(opts.input ?? '');
  });
}


/** Instances of a JSON array or JSONL file. */
export async function readInstances(file: string): Promise<unknown[]> {
  const text = await readFile(file, 'utf8');
  if (text.trimStart().startsWith('[')) return JSON.parse(text) as unknown[];
  return text.split('\n').filter((l) => l.trim() !== '').map((l, i) => {
    try {
      return JSON.parse(l) as unknown;
    } catch (e) {
      throw new Error(`${file} line ${i + 1}: not JSON: ${(e as Error).message}`);
    }
  });
}

/** A list field: a JSON array, or a JSON string holding one. */
function idList(v: unknown, name: string): string[] {
  const list = typeof v === 'string' ? (JSON.parse(v) as unknown) : v ?? [];
  if (!Array.isArray(list) || !list.every((x) => typeof x === 'string')) throw new Error(`${name} is not a list of strings`);
  return list;
}

const shellQuote = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** The test command: the instance's own, else `--test-command`, else the repo's SWE-bench spec; `{tests}` / `{test_files}` filled, or the test files appended. */
function testCommand(inst: Record<string, unknown>, ids: string[], template: string | undefined, extraFiles: string[] = []): string {
  const repo = inst.repo as string;
  const own = inst.test_cmd ?? (inst.install_config as Record<string, unknown> | undefined)?.test_cmd;
  const ownCmd = Array.isArray(own) ? own.join(' && ') : typeof own === 'string' ? own : undefined;
  const spec = SWE_BENCH_SPECS[repo];
  const files = [...new Set([...testDirectives(repo, inst.test_patch as string), ...testDirectives(repo, extraFiles.map((f) => `diff --git a/${f} b/${f}\n`).join(''))])];
  const fill = (t: string): string => t.replace(/\{tests\}/g, ids.map(shellQuote).join(' ')).replace(/\{test_files\}/g, files.map(shellQuote).join(' '));
  const base = ownCmd ?? template ?? (spec && (spec.commandByVersion?.[String(inst.version)] ?? spec.command));
  if (base === undefined) throw new Error(`no test command for ${repo}: give --test-command`);
  if (/\{tests\}|\{test_files\}/.test(base) || base === template) return fill(base);
  return [base, ...files.map(shellQuote)].join(' ');
}

/** The files that hold SWE-smith's fail-to-pass tests: the path part of each pytest node id `path::...`. */
function failToPassFiles(ids: string[]): string[] {
  const files = new Set<string>();
  for (const t of ids) {
    const i = t.indexOf('::');
    if (i <= 0) throw new Error(`FAIL_TO_PASS id ${JSON.stringify(t)} names no test file (path::test)`);
    files.add(t.slice(0, i));
  }
  return [...files];
}

async function git(cwd: string, args: string[], input?: string): Promise<string> {
  const r = await run('git', args, { cwd, env: COMMIT_ENV, ...(input !== undefined ? { input } : {}) });
  if (r.code !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr.trim()}`);
  return r.stdout;
}

/**
 * SWE-smith: applies the bug (`patch`) to the base tree checked out in `target`, returns
 * the reverse diff (the reference patch) and the hidden files (each fail-to-pass test
 * file's content at base_commit), and removes those files. Leaves no `.git` behind.
 */
async function applyBug(target: string, patch: string, hidden: string[]): Promise<{ referencePatch: string; files: Record<string, string> }> {
  const files: Record<string, string> = {};
  for (const f of hidden) {
    const content = await readFile(join(target, f), 'utf8').catch(() => undefined);
    if (content === undefined) throw new Error(`the fail-to-pass test file ${f} is not in base_commit`);
    files[f] = content;
  }
  const check = await run('git', ['apply', '--check', '-'], { cwd: target, input: patch });
  if (check.code !== 0) throw new Error(`patch (the bug) does not apply to base_commit: ${check.stderr.trim()}`);
  try {
    await git(target, ['-c', 'init.defaultBranch=main', 'init', '-q', '--template=', '.']);
    await git(target, ['add', '-A', '-f']);
    const baseTree = (await git(target, ['write-tree'])).trim();
    await git(target, ['apply', '-'], patch);
    await git(target, ['add', '-A', '-f']);
    const bugTree = (await git(target, ['write-tree'])).trim();
    if (bugTree === baseTree) throw new Error('patch (the bug) changes nothing');
    const referencePatch = await git(target, ['diff', '--no-color', '--no-ext-diff', '--no-renames', '--binary', bugTree, baseTree]);
    const touched = (await git(target, ['diff', '--name-only', '--no-renames', '-z', bugTree, baseTree])).split('\0').filter((x) => x);
    const both = touched.find((f) => hidden.includes(f));
    if (both !== undefined) throw new Error(`patch (the bug) touches the fail-to-pass test file ${both}`);
    for (const f of hidden) await rm(join(target, f), { force: true });
    return { referencePatch, files };
  } finally {
    await rm(join(target, '.git'), { recursive: true, force: true });
  }
}

/** The clone of `repo` in `repos` (`owner__name` or `owner/name`) that holds `base`. */
async function findClone(repos: string | undefined, repo: string, base: string): Promise<string> {
  if (repos === undefined) throw new Error(`no image of this instance in --images, and no --repos to find a clone of ${repo} in`);
  let clone: string | undefined;
  for (const c of [join(repos, repo.replace('/', '__')), join(repos, repo)]) {
    if ((await stat(c).catch(() => null))?.isDirectory()) { clone = c; break; }
  }
  if (!clone) throw new Error(`no clone of ${repo} in ${repos} (looked for ${repo.replace('/', '__')} and ${repo})`);
  if (!/^[0-9a-f]{4,64}$/i.test(base) || (await run('git', ['-C', clone, 'cat-file', '-e', `${base}^{commit}`])).code !== 0) {
    throw new Error(`base_commit ${base} is not in the clone ${clone}`);
  }
  return clone;
}

/** Writes the tree of `base` in `clone` to the new folder `target` (a scratch index: the clone is not touched). */
async function checkoutBase(clone: string, base: string, target: string): Promise<void> {
  await mkdir(target, { recursive: true });
  const tmp = await mkdtemp(join(tmpdir(), 'frognano-import-'));
  try {
    const env = { GIT_INDEX_FILE: join(tmp, 'index') };
    const rt = await run('git', ['-C', clone, 'read-tree', base], { env });
    if (rt.code !== 0) throw new Error(`git read-tree ${base}: ${rt.stderr.trim()}`);
    const co = await run('git', ['-C', clone, `--work-tree=${resolve(target)}`, 'checkout-index', '-a', '-f'], { env });
    if (co.code !== 0) throw new Error(`git checkout-index: ${co.stderr.trim()}`);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}


async function importOne(raw: unknown, opts: ImportInstancesOptions, outDir: string, reposOut: string): Promise<Record<string, unknown>> {
  if (typeof raw !== 'object' || raw === null) throw new Error('not an object');
  const inst = { ...(raw as Record<string, unknown>) };
  const id = inst.instance_id as string;
  const smith = opts.format === 'swesmith';
  if (smith && (inst.test_patch === undefined || inst.test_patch === null)) inst.test_patch = '';
  for (const f of ['repo', 'base_commit', 'patch', 'test_patch', 'problem_statement']) if (typeof inst[f] !== 'string') throw new Error(`${f} is missing or not a string`);
  if (!/^[A-Za-z0-9._-]+$/.test(id) || id === '.' || id === '..') throw new Error('instance_id is not a plain file name');
  const repo = inst.repo as string;
  const base = inst.base_commit as string;
  const spec = SWE_BENCH_SPECS[repo];
  const log: TestLogFormat = opts.log ?? (spec ? spec.log : 'pytest');
  let failToPass = idList(inst.FAIL_TO_PASS, 'FAIL_TO_PASS');
  let passToPass = idList(inst.PASS_TO_PASS, 'PASS_TO_PASS');
  if (spec?.ids === 'django' && log === 'unittest') {
    failToPass = failToPass.map(djangoTestId);
    passToPass = passToPass.map(djangoTestId);
  }
  const hidden = smith ? failToPassFiles(idList(inst.FAIL_TO_PASS, 'FAIL_TO_PASS')) : [];
  const given = testCommand(inst, [...failToPass, ...passToPass], opts.testCommand, hidden);
  const command = opts.log === undefined && spec?.wrapCommand ? spec.wrapCommand(given) : given;
  const imagePath = opts.images === undefined ? undefined : await findInstanceImage(opts.images, inst as { instance_id: string });
  const image = imagePath === undefined ? undefined : await importImage(imagePath, { workdir: SWE_BENCH_WORKDIR, ...(opts.imageCache ? { cacheDir: opts.imageCache } : {}) });
  // a SWE-bench image's /testbed is the repository, built in place: it is the tree (swesmith still needs the clone for its bug)
  const fromImage = image !== undefined && !smith;
  const clone = fromImage ? undefined : await findClone(opts.repos, repo, base);
  const target = join(reposOut, id);
  await rm(target, { recursive: true, force: true });
  let bug: { referencePatch: string; files: Record<string, string> } | undefined;
  try {
    if (fromImage) await copyImageWorkdir(image.root, SWE_BENCH_WORKDIR, target);
    else await checkoutBase(clone!, base, target);
    if (!smith || (inst.test_patch as string).trim() !== '') {
      const check = await run('git', ['apply', '--check', '-'], { cwd: target, input: inst.test_patch as string });
      if (check.code !== 0) throw new Error(`test_patch does not apply to ${fromImage ? `the image's ${SWE_BENCH_WORKDIR}` : `base_commit ${base}`}: ${check.stderr.trim()}`);
    }
    if (smith) bug = await applyBug(target, inst.patch as string, hidden);
    await commitOneRepo(target, smith ? `${repo} at ${base} with ${id}'s bug` : `${repo} at ${base} (${id})`);
  } catch (e) {
    await rm(target, { recursive: true, force: true });
    throw e;
  }
  const environment = image === undefined || imagePath === undefined ? undefined : {
    image: relative(outDir, resolve(imagePath)) || '.',
    workdir: SWE_BENCH_WORKDIR,
    ...(await imageTaskEnv(image.root).then((env) => (env ? { env } : {}))),
  };
  const testPatch = inst.test_patch as string;
  return {
    id,
    statement: inst.problem_statement,
    repo: relative(outDir, target) || '.',
    tests: {
      command, log,
      ...(bug ? { files: bug.files } : {}),
      ...(!smith || testPatch.trim() !== '' ? { patch: testPatch } : {}),
      failToPass, passToPass,
    },
    referencePatch: bug ? bug.referencePatch : inst.patch,
    ...(environment ? { environment } : {}),
  };
}

/** The default `--repos-out`: the instances file without its extension plus `-repos`, beside it. */
export function defaultReposOut(instances: string): string {
  return join(dirname(instances), `${basename(instances, extname(instances))}-repos`);
}

/**
 * Imports every instance of `opts.instances` (as `opts.format`, default swebench); writes the tasks (JSONL) to `opts.out`
 * and `<instances>.errors.jsonl` with one `{ instance_id, error }` per instance that
 * could not be imported (no clone, base_commit missing, test_patch not applying).
 */
export async function importInstances(opts: ImportInstancesOptions): Promise<ImportResult> {
  const instances = await readInstances(opts.instances);
  const reposOut = opts.reposOut ?? defaultReposOut(opts.instances);
  const outDir = dirname(resolve(opts.out));
  const tasks: Record<string, unknown>[] = [];
  const errors: { instance_id: string; error: string }[] = [];
  const seen = new Set<string>();
  for (const [i, raw] of instances.entries()) {
    const id = typeof (raw as { instance_id?: unknown } | null)?.instance_id === 'string' ? (raw as { instance_id: string }).instance_id : `#${i + 1}`;
    try {
      if (seen.has(id)) throw new Error('duplicate instance_id');
      seen.add(id);
      tasks.push(await importOne(raw, opts, outDir, resolve(reposOut)));
    } catch (e) {
      errors.push({ instance_id: id, error: (e as Error).message });
    }
  }
  await mkdir(outDir, { recursive: true });
  await writeFile(opts.out, tasks.map((t) => `${JSON.stringify(t)}\n`).join(''));
  const errorsFile = `${opts.instances}.errors.jsonl`;
  await writeFile(errorsFile, errors.map((e) => `${JSON.stringify(e)}\n`).join(''));
  return { tasks, errors, errorsFile };
}
