import { createWriteStream, readFileSync, type WriteStream } from 'node:fs';
import { open, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import type { FlagSpec, ParsedFlags, RecordCommand } from './command.js';
import { findRecordCommand } from './commands/index.js';
import { ExitCode, IoError, UsageError } from './exitCodes.js';
import { enumFlag } from './flags.js';
import { commandHelp, COMMON_FLAGS, mainHelp } from './help.js';
import type { InputFormat } from './jsonl.js';
import { InvalidInputError, OutputClosedError, runRecords } from './run.js';

/** The streams a CLI run uses (the process's own, or test doubles). */
export interface CliIo {
  stdin: Readable & { isTTY?: boolean };
  stdout: Writable;
  stderr: Writable & { isTTY?: boolean };
}

/** The package version, read from package.json next to `src/` or `dist/`. */
export function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** Parses `argv` against the flag specs; unknown flags and positionals are bad usage. */
export function parseFlags(argv: readonly string[], specs: Readonly<Record<string, FlagSpec>>): ParsedFlags {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {};
  for (const [name, f] of Object.entries(specs)) options[name] = { type: f.type };
  if (options.help) options.help.short = 'h';
  try {
    const { values, positionals } = parseArgs({ args: [...argv], options, strict: true, allowPositionals: true });
    if (positionals.length) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])} (flags start with --)`);
    return values as ParsedFlags;
  } catch (e) {
    if (e instanceof UsageError) throw e;
    const msg = e instanceof Error ? e.message : String(e);
    throw new UsageError(msg.replace(/\. To specify a positional argument.*$/s, '').replace(/^Unknown option/, 'unknown flag'));
  }
}

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

async function openOutput(path: string | undefined, io: CliIo): Promise<Output> {
  if (path === undefined || path === '-') {
    return { stream: io.stdout, commit: async () => {}, abort: async () => {} };
  }
  const tmp = join(dirname(path), `.${basename(path)}.tmp-${process.pid}-${Date.now()}`);
  const stream: WriteStream = createWriteStream(tmp, { flags: 'wx' });
  try {
    await new Promise<void>((resolve, reject) => {
      stream.once('open', () => resolve());
      stream.once('error', reject);
    });
  } catch (e) {
    throw new UsageError(`cannot write --out ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  return {
    stream,
    async commit() {
      stream.end();
      await finished(stream);
      await rename(tmp, path);
    },
    async abort() {
      stream.destroy();
      await unlink(tmp).catch(() => {});
    },
  };
}

async function runRecordCommand(cmd: RecordCommand<unknown>, argv: readonly string[], io: CliIo): Promise<number> {
  const label = `frognano ${cmd.name}`;
  const flags = parseFlags(argv, { ...COMMON_FLAGS, ...cmd.flags });
  if (flags.help) {
    io.stdout.write(commandHelp(cmd));
    return ExitCode.OK;
  }
  const format = enumFlag<InputFormat>(flags, 'format', ['auto', 'jsonl', 'json']) ?? 'auto';
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

/**
 * Runs `frognano <argv>` and resolves to the exit code (see {@link ExitCode}).
 * Never throws: usage, input, I/O and internal errors are reported on `io.stderr`.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  const label = name && !name.startsWith('-') ? `frognano ${name}` : 'frognano';
  try {
    if (name === undefined) {
      io.stderr.write(mainHelp(packageVersion()));
      return ExitCode.USAGE;
    }
    if (name === '--help' || name === '-h') {
      io.stdout.write(mainHelp(packageVersion()));
      return ExitCode.OK;
    }
    if (name === '--version' || name === '-v' || name === 'version') {
      io.stdout.write(`${packageVersion()}\n`);
      return ExitCode.OK;
    }
    if (name === 'help') {
      const sub = rest[0];
      if (sub === undefined) {
        io.stdout.write(mainHelp(packageVersion()));
        return ExitCode.OK;
      }
      return runCli([sub, '--help'], io);
    }
    if (name === 'serve') {
      const { runServe } = await import('../server/serveCommand.js');
      return await runServe(rest, io);
    }
    if (name === 'rollout' || name === 'validate-tasks') {
      const { runRollout, runValidateTasks } = await import('./leafCommands.js');
      return await (name === 'rollout' ? runRollout : runValidateTasks)(rest, io);
    }
    const cmd = findRecordCommand(name);
    if (!cmd) throw new UsageError(`unknown subcommand ${JSON.stringify(name)}`);
    return await runRecordCommand(cmd, rest, io);
  } catch (e) {
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
