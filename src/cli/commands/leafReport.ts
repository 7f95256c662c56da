/**
 * `frognano leaf-report`: the HTML page of `renderLeafReport` for the lines a
 * `frognano rollout` wrote. Loaded only when the subcommand runs (the CLI's
 * runner table imports it dynamically).
 * @module
 */
import { open, stat } from 'node:fs/promises';
import { type CliIo, ExitCode, type FlagSpec, flagLines, parseFlags, UsageError } from '../../commands/index.js';
import { renderLeafReport } from '../../leaf/index.js';
import { openOutputFile } from '../outputFile.js';
import { readRolloutRecords } from '../rolloutLines.js';

/** The flags of `frognano leaf-report`. */
export const LEAF_REPORT_FLAGS: Readonly<Record<string, FlagSpec>> = {
  in: { type: 'string', value: 'FILE', description: 'the JSONL that frognano rollout wrote (default: stdin; - is stdin)' },
  out: { type: 'string', value: 'FILE', description: 'write the HTML page to FILE, atomically (default: stdout)' },
  title: { type: 'string', value: 'TEXT', description: 'the page title (default "Leaf rollouts")' },
  model: { type: 'string', value: 'NAME', description: 'the policy\'s name, shown under the title (default: not shown)' },
  help: { type: 'boolean', description: 'this help' },
};

/** `frognano leaf-report --help`. */
export function leafReportHelp(): string {
  return [
    'frognano leaf-report: the HTML report of a frognano rollout output file',
    '',
    'Usage: frognano leaf-report [--in rollouts.jsonl] [--out report.html] [--title TEXT] [--model NAME]',
    'Calls: renderLeafReport',
    '',
    'Reads the JSONL lines of frognano rollout (one episode per line; blank lines skipped) and writes',
    'one self-contained HTML page: the totals, a row per task (solve rate, turns, tokens, truncations,',
    'errors, rule-funnel findings, mean reward) and every episode\'s conversation, diff and grading.',
    '',
    'Flags:',
    ...flagLines(LEAF_REPORT_FLAGS),
    '',
    'Example:',
    '  $ frognano leaf-report --in rollouts.jsonl --out report.html',
    '',
    'Exit codes:',
    '  0  the page was written',
    '  1  a line is not a rollout record (stderr: "rollouts.jsonl line N: ..." naming the field)',
    '  2  bad usage: flags, --in that cannot be opened, --out that cannot be written',
    '',
  ].join('\n');
}

/** `--in FILE` opened for reading, or stdin; the name messages use. A file that cannot be opened is bad usage. */
async function openInput(path: string | undefined, io: CliIo): Promise<{ source: AsyncIterable<Buffer | string>; name: string; close(): Promise<void> }> {
  if (path === undefined || path === '-') return { source: io.stdin, name: 'stdin', close: async () => {} };
  try {
    if ((await stat(path)).isDirectory()) throw new UsageError(`cannot read --in ${path}: it is a directory`);
    const handle = await open(path, 'r');
    return { source: handle.createReadStream({ highWaterMark: 1 << 16, autoClose: false }), name: path, close: () => handle.close().catch(() => {}) };
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw new UsageError(`cannot open --in ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/** Writes `text` to stdout; a reader that went away (EPIPE, `| head`) ends it quietly, as for the other subcommands. */
function writeStdout(io: CliIo, text: string): Promise<void> {
  const ignore = (): void => {};
  io.stdout.on('error', ignore);
  return new Promise<void>((resolve, reject) => {
    io.stdout.write(text, (e) => (e && (e as NodeJS.ErrnoException).code !== 'EPIPE' ? reject(e) : resolve()));
  }).finally(() => io.stdout.off('error', ignore));
}

/** Where the page goes: stdout, or `--out FILE` written atomically (a temporary file renamed on success). */
async function openOutput(path: string | undefined, io: CliIo): Promise<{ write(html: string): Promise<void>; abort(): Promise<void> }> {
  if (path === undefined || path === '-') return { write: (html) => writeStdout(io, html), abort: async () => {} };
  const out = await openOutputFile(path, { atomic: true });
  return {
    async write(html) {
      await new Promise<void>((resolve, reject) => out.stream.write(html, (e) => (e ? reject(e) : resolve())));
      await out.commit();
    },
    abort: () => out.abort(),
  };
}

/** `frognano leaf-report`. */
export async function runLeafReport(argv: readonly string[], io: CliIo): Promise<number> {
  const flags = parseFlags(argv, LEAF_REPORT_FLAGS);
  if (flags.help) {
    io.stdout.write(leafReportHelp());
    return ExitCode.OK;
  }
  const opts = { ...(typeof flags.title === 'string' ? { title: flags.title } : {}), ...(typeof flags.model === 'string' ? { model: flags.model } : {}) };
  const input = await openInput(flags.in as string | undefined, io);
  try {
    const output = await openOutput(flags.out as string | undefined, io);
    try {
      await output.write(renderLeafReport(await readRolloutRecords(input.source, input.name), opts));
    } catch (e) {
      await output.abort();
      throw e;
    }
  } finally {
    await input.close();
  }
  return ExitCode.OK;
}
