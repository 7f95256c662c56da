import { open, stat } from 'node:fs/promises';
import type { Readable, Writable } from 'node:stream';
import {
  type CliIo,
  didYouMean,
  enumFlag,
  ExitCode,
  findRecordCommand,
  IoError,
  packageVersion,
  parseFlags,
  RECORD_COMMANDS,
  type RecordCommand,
  sizeFlag,
  UsageError,
} from '../commands/index.js';
import { commandHelp, COMMON_FLAGS, mainHelp, type OtherCommandName } from './help.js';
import { MAX_LINE_LIMIT, type InputFormat } from './jsonl.js';
import { openOutputFile } from './outputFile.js';
import { InvalidInputError, OutputClosedError, runRecords } from './run.js';

function isSystemError(e: unknown): e is NodeJS.ErrnoException {
  return typeof e === 'object' && e !== null && typeof (e as { syscall?: unknown }).syscall === 'string';
}

async function openInput(path: string | undefined, io: CliIo): Promise<AsyncIterable<Buffer | string>> {
  if (path === undefined || path === '-') {
    if (io.stdin.isTTY) io.stderr.write('frognano: reading records from the terminal (end with Ctrl-D); see --help\n');
    return io.stdin;
  }
  try {
    const st = await stat(path);
    if (st.isDirectory()) throw new UsageError(`cannot read --in ${path}: it is a directory`);
    const handle = await open(path, 'r');
    return handle.createReadStream({ highWaterMark: 1 << 16 });
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw new UsageError(`cannot open --in ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

interface Output {
  stream: Writable;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

/** stdout, or `--out FILE` opened by {@link openOutputFile} (atomically where FILE is a regular file or new). */
async function openOutput(path: string | undefined, io: CliIo): Promise<Output> {
  if (path === undefined || path === '-') {
    return { stream: io.stdout, commit: async () => {}, abort: async () => {} };
  }
  return openOutputFile(path, { atomic: true });
}

async function runRecordCommand(cmd: RecordCommand<unknown>, argv: readonly string[], io: CliIo): Promise<number> {
  const label = `frognano ${cmd.name}`;
  const flags = parseFlags(argv, { ...COMMON_FLAGS, ...cmd.flags });
  if (flags.help) {
    io.stdout.write(commandHelp(cmd));
    return ExitCode.OK;
  }
  const format = enumFlag<InputFormat>(flags, 'format', ['auto', 'jsonl', 'json']) ?? 'auto';
  const maxLineBytes = sizeFlag(flags, 'max-line', 1, MAX_LINE_LIMIT);
  const config = cmd.configure(flags);
  const processor = cmd.create(config);
  const input = await openInput(flags.in as string | undefined, io);
  const output = await openOutput(flags.out as string | undefined, io);
  const progress = flags['no-progress'] ? false : flags.progress === true || io.stderr.isTTY === true;
  try {
    await runRecords({
      label,
      processor,
      input,
      output: output.stream,
      stderr: io.stderr,
      format,
      skipInvalid: flags['skip-invalid'] === true,
      progress,
      maxLineBytes,
    });
    await output.commit();
    return ExitCode.OK;
  } catch (e) {
    await output.abort();
    throw e;
  } finally {
    (input as Partial<Readable>).destroy?.();
  }
}

/** Runs one subcommand on the arguments after its name; resolves to the exit code. */
type Runner = (argv: readonly string[], io: CliIo) => Promise<number>;

/**
 * The subcommands that are not record filters, by name: those of the help's
 * `OTHER_COMMANDS` (the type requires a runner for each) plus `help` and
 * `version`. Heavy modules load only when their subcommand runs.
 */
const RUNNERS: Readonly<Record<OtherCommandName | 'help' | 'version', Runner>> = {
  help: async ([sub], io) => {
    if (sub !== undefined) return runCli([sub, '--help'], io);
    io.stdout.write(mainHelp(packageVersion()));
    return ExitCode.OK;
  },
  version: async (_argv, io) => {
    io.stdout.write(`${packageVersion()}\n`);
    return ExitCode.OK;
  },
  serve: async (argv, io) => (await import('../server/serveCommand.js')).runServe(argv, io),
  rollout: async (argv, io) => (await import('./leafCommands.js')).runRollout(argv, io),
  'validate-tasks': async (argv, io) => (await import('./leafCommands.js')).runValidateTasks(argv, io),
  'leaf-report': async (argv, io) => (await import('./commands/leafReport.js')).runLeafReport(argv, io),
  evaluate: async (argv, io) => (await import('./commands/evaluate.js')).runEvaluate(argv, io),
  'web-judge': async (argv, io) => (await import('./commands/webJudge.js')).runWebJudge(argv, io),
  tasks: async (argv, io) => (await import('./commands/tasksImport.js')).runTasks(argv, io),
  taskpilot: async (argv, io) => (await import('./commands/taskpilot.js')).runTaskpilot(argv, io),
  image: async (argv, io) => (await import('./commands/image.js')).runImage(argv, io),
};

/** Every subcommand `runCli` dispatches: the record subcommands, then the others (the "did you mean" candidates). */
export function subcommandNames(): string[] {
  return [...RECORD_COMMANDS.map((c) => c.name), ...Object.keys(RUNNERS)];
}

/** The runner of subcommand `name`, if there is one. */
function findRunner(name: string): Runner | undefined {
  if (Object.hasOwn(RUNNERS, name)) return RUNNERS[name as keyof typeof RUNNERS];
  const cmd = findRecordCommand(name);
  return cmd && ((argv, io) => runRecordCommand(cmd, argv, io));
}

/** An unknown subcommand: bad usage (exit 2), reported by `frognano` itself with a pointer to its list. */
class UnknownSubcommandError extends UsageError {
  constructor(name: string) {
    const candidates = name.startsWith('-') ? ['--help', '--version'] : subcommandNames();
    super(`unknown subcommand ${JSON.stringify(name)}${didYouMean(name, candidates, (n) => JSON.stringify(n))}`);
    this.name = 'UnknownSubcommandError';
  }
}

/**
 * Runs `frognano <argv>` and resolves to the exit code (see {@link ExitCode}).
 * Never throws: usage, input, I/O and internal errors are reported on `io.stderr`.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  const runner = name === undefined ? undefined : findRunner(name);
  const label = runner && name !== 'help' && name !== 'version' ? `frognano ${name}` : 'frognano';
  try {
    if (name === undefined) {
      io.stderr.write(mainHelp(packageVersion()));
      return ExitCode.USAGE;
    }
    if (name === '--help' || name === '-h') return await RUNNERS.help([], io);
    if (name === '--version' || name === '-v') return await RUNNERS.version([], io);
    if (!runner) throw new UnknownSubcommandError(name);
    return await runner(rest, io);
  } catch (e) {
    if (e instanceof UnknownSubcommandError) {
      io.stderr.write(`${label}: ${e.message}\nRun '${label} --help' for the list.\n`);
      return ExitCode.USAGE;
    }
    if (e instanceof UsageError) {
      io.stderr.write(`${label}: ${e.message}\nRun '${label} --help' for usage.\n`);
      return ExitCode.USAGE;
    }
    if (e instanceof InvalidInputError) {
      io.stderr.write(`${label}: ${e.message}\n`);
      return ExitCode.INVALID_INPUT;
    }
    if (e instanceof OutputClosedError) return ExitCode.OK;
    if (e instanceof IoError || isSystemError(e)) {
      io.stderr.write(`${label}: I/O error: ${(e as Error).message}\n`);
      return ExitCode.IO_ERROR;
    }
    io.stderr.write(`${label}: internal error (a bug in frognano):\n${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    return ExitCode.INTERNAL;
  }
}
