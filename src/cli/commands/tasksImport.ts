/**
 * `frognano tasks import`: SWE-bench-family instances as a Leaf tasks file (SPEC §14,
 * "Importing instances"). Loaded only when the subcommand runs.
 * @module
 */
import { stat } from 'node:fs/promises';
import { type CliIo, ExitCode, type FlagSpec, flagLines, parseFlags, UsageError } from '../../commands/index.js';
import { IMPORT_FORMATS, type ImportFormat, importInstances, TEST_LOG_FORMATS, type TestLogFormat } from '../../leaf/index.js';

/** The flags of `frognano tasks import`. */
export const TASKS_FLAGS: Readonly<Record<string, FlagSpec>> = {
  format: { type: 'string', value: 'swebench', description: 'the instances\' format: swebench (SWE-bench, SWE-Gym, SWE-rebench) or swesmith (SWE-smith: patch is the bug). Required' },
  instances: { type: 'string', value: 'FILE', description: 'the instances: a JSON array or JSONL. Required' },
  repos: { type: 'string', value: 'DIR', description: 'the folder of git clones, named owner__name (or owner/name). Required unless every instance\'s image is in --images' },
  out: { type: 'string', value: 'FILE', description: 'write the tasks file (JSONL) here. Required' },
  'repos-out': { type: 'string', value: 'DIR2', description: 'write each task\'s repo to DIR2/<instance_id> (default: FILE without its extension plus -repos, beside it)' },
  'test-command': { type: 'string', value: 'TEMPLATE', description: 'the test command, with {tests} (the listed ids) and {test_files} (the files test_patch touches); an instance\'s test_cmd wins' },
  images: { type: 'string', value: 'DIR', description: 'instance images: <name>.tar (docker save, OCI archive) or a folder <name> (OCI layout or root filesystem), <name> = image_name or sweb.eval.x86_64.<id with __ as _1776_>; a found image is the task\'s environment and its /testbed the repo' },
  'image-cache': { type: 'string', value: 'DIR', description: 'where images are unpacked (default: $FROGNANO_IMAGE_CACHE, else /var/cache/frognano/images for root, else ~/.cache/frognano/images)' },
  log: { type: 'string', value: 'FORMAT', description: 'how the test log is read: pytest, unittest, tap or junit-xml (default: the repository\'s SWE-bench spec, else pytest)' },
  help: { type: 'boolean', description: 'this help' },
};

/** `frognano tasks --help`. */
export function tasksHelp(): string {
  return [
    'frognano tasks import: SWE-bench-family instances as a Leaf tasks file',
    '',
    'Usage: frognano tasks import --format swebench|swesmith --instances FILE --repos DIR --out FILE [--repos-out DIR2] [--images DIR] [--test-command TEMPLATE] [--log FORMAT]',
    'Calls: importInstances',
    '',
    'Each task\'s repo is the tree at base_commit as a new git repository with one commit (no history,',
    'refs, remotes or hooks). test_patch -> tests.patch, patch -> referencePatch, FAIL_TO_PASS /',
    'PASS_TO_PASS -> tests.failToPass / tests.passToPass, problem_statement -> statement.',
    'swesmith: patch is the bug: the repo is base_commit with it applied, referencePatch its reverse,',
    'and the files holding the FAIL_TO_PASS tests are removed from the repo and restored at grading (tests.files).',
    '--images: an instance whose image is in DIR gets environment {image, workdir: /testbed, env} and its repo',
    'is the image\'s /testbed (as built and installed there) without .git, as one commit; swesmith keeps the clone\'s tree.',
    'An instance that cannot be imported is one line {"instance_id", "error"} in FILE.errors.jsonl.',
    '',
    'Flags:',
    ...flagLines(TASKS_FLAGS),
    '',
    'Example:',
    '  $ frognano tasks import --format swebench --instances verified.jsonl --repos clones --out tasks.jsonl',
    '',
    'Exit codes:',
    '  0  every instance was imported',
    '  1  some instances were not (see FILE.errors.jsonl), or the instances file is malformed',
    '  2  bad usage',
    '',
  ].join('\n');
}

/** Runs `frognano tasks <argv>`. */
export async function runTasks(argv: readonly string[], io: CliIo): Promise<number> {
  const rest = argv[0] === 'import' ? argv.slice(1) : argv;
  const flags = parseFlags(rest, TASKS_FLAGS);
  if (flags.help) {
    io.stdout.write(tasksHelp());
    return ExitCode.OK;
  }
  if (argv[0] !== 'import') throw new UsageError('frognano tasks: the subcommand is import (frognano tasks import --help)');
  if (!(IMPORT_FORMATS as readonly unknown[]).includes(flags.format)) throw new UsageError(flags.format === undefined ? '--format swebench|swesmith is required' : `--format ${String(flags.format)}: one of swebench, swesmith`);
  for (const f of ['instances', 'out']) if (typeof flags[f] !== 'string') throw new UsageError(`--${f} is required`);
  if (typeof flags.repos !== 'string' && typeof flags.images !== 'string') throw new UsageError('--repos is required (or --images, when every instance has its image there)');
  if (typeof flags.images === 'string' && !(await stat(flags.images).catch(() => null))?.isDirectory()) throw new UsageError(`cannot read --images ${flags.images}: not a folder`);
  if (!(await stat(flags.instances as string).catch(() => null))?.isFile()) throw new UsageError(`cannot read --instances ${String(flags.instances)}: not a file`);
  const log = flags.log as string | undefined;
  if (log !== undefined && (log === 'exit-code' || !(TEST_LOG_FORMATS as readonly string[]).includes(log))) throw new UsageError(`--log ${log}: one of pytest, unittest, tap, junit-xml`);
  let result;
  try {
    result = await importInstances({
      format: flags.format as ImportFormat, instances: flags.instances as string, out: flags.out as string,
      ...(typeof flags.repos === 'string' ? { repos: flags.repos } : {}),
      ...(typeof flags.images === 'string' ? { images: flags.images } : {}),
      ...(typeof flags['image-cache'] === 'string' ? { imageCache: flags['image-cache'] } : {}),
      ...(typeof flags['repos-out'] === 'string' ? { reposOut: flags['repos-out'] } : {}),
      ...(typeof flags['test-command'] === 'string' ? { testCommand: flags['test-command'] } : {}),
      ...(log ? { log: log as TestLogFormat } : {}),
    });
  } catch (e) {
    io.stderr.write(`frognano tasks import: ${(e as Error).message}\n`);
    return 1;
  }
  for (const e of result.errors) io.stderr.write(`frognano tasks import: ${e.instance_id}: ${e.error}\n`);
  io.stderr.write(`frognano tasks import: ${result.tasks.length} of ${result.tasks.length + result.errors.length} imported\n`);
  return result.errors.length ? 1 : ExitCode.OK;
}
