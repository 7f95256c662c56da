import { type FlagSpec, flagLines, RECORD_COMMANDS, type RecordCommand } from '../commands/index.js';

/** The flags every record subcommand accepts (and only those: the other subcommands have their own tables). */
export const COMMON_FLAGS: Readonly<Record<string, FlagSpec>> = {
  in: { type: 'string', value: 'FILE', description: 'read records from FILE (default: stdin; - is stdin)' },
  out: { type: 'string', value: 'FILE', description: 'write records to FILE, atomically on success; a FIFO or device is written directly (default: stdout)' },
  format: { type: 'string', value: 'auto|jsonl|json', description: 'input format: JSONL, one JSON document (array or object), or auto (default)' },
  'max-line': { type: 'string', value: 'SIZE', description: 'longest input line, in bytes or with a unit (1MiB, 1GiB); a longer line is invalid input (default 64MiB)' },
  'skip-invalid': { type: 'boolean', description: 'skip invalid records and count them on stderr (default: stop at the first, exit 1)' },
  progress: { type: 'boolean', description: 'draw a progress line on stderr (default: only when stderr is a TTY)' },
  'no-progress': { type: 'boolean', description: 'never draw the progress line' },
  help: { type: 'boolean', description: 'this help' },
};

/**
 * The subcommands that are not record filters, with their line in `frognano --help`.
 * `runCli` has a runner for each (its table is typed by these names), so this
 * list and the dispatcher cannot drift apart.
 */
export const OTHER_COMMANDS = [
  { name: 'serve', summary: 'HTTP service: OpenRLHF / slime / verl reward endpoints, advantages, GAGAR' },
  { name: 'rollout', summary: 'Leaf harness: G sandboxed episodes per task against a model, graded, with rewards and advantages' },
  { name: 'validate-tasks', summary: 'executable validation of a tasks file (fails before, passes with the reference patch)' },
  { name: 'leaf-report', summary: 'the HTML report of a rollout output file: totals, a row per task, every episode\'s conversation' },
  { name: 'evaluate', summary: 'SWE-bench-style evaluation of predictions (model patches) against a tasks file: report.json' },
  { name: 'web-judge', summary: 'interactive web judge (VH §3.2): plan, act in headless Chromium, judge the recording; SPEC §13 JSON and an HTML report' },
  { name: 'tasks', summary: 'tasks import: SWE-bench-family instances as a Leaf tasks file, each repo a one-commit git repository' },
  { name: 'taskpilot', summary: 'TaskPilot on a repository (FrogNano §3): generated or mutation tasks, validated, calibrated to the policy by p-hat' },
  { name: 'image', summary: 'image import ARCHIVE / image ls: environment images (docker save, OCI) unpacked once into a content-addressed cache' },
] as const;

/** The name of one of {@link OTHER_COMMANDS}. */
export type OtherCommandName = (typeof OTHER_COMMANDS)[number]['name'];

/** The exit-code table printed by the help. */
const EXIT_CODES_HELP = `Exit codes:
  0   success (with --skip-invalid: the valid records were processed)
  1   invalid input: a record is not JSON or fails validation (stderr names the line and the field)
  2   bad usage: unknown subcommand or flag, bad flag value, --in that cannot be opened, --out that cannot be created
  3   I/O error while reading or writing
  70  internal error (a bug; please report it with the stack trace)`;

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Renders an example as a shell line and its output. */
function exampleLines(command: string, input: string, output: string): string[] {
  const lines = input.split('\n');
  const feed = lines.length === 1 ? `echo ${shellQuote(lines[0]!)}` : `printf '%s\\n' ${lines.map(shellQuote).join(' ')}`;
  return [`  $ ${feed} | ${command}`, ...output.split('\n').map((l) => `  ${l}`)];
}

/** `frognano <subcommand> --help`. */
export function commandHelp(c: RecordCommand<unknown>): string {
  const out = [
    `frognano ${c.name}: ${c.summary}`,
    '',
    `Usage: frognano ${c.name} [--in FILE] [--out FILE] [flags]`,
    `Calls: ${c.calls}`,
    '',
    'Input (one record per line):',
    ...c.input.split('\n').map((l) => `  ${l}`),
    '',
    'Output (one JSON object per line):',
    ...c.output.split('\n').map((l) => `  ${l}`),
    '  A record\'s "id" (string or number) is copied to its output.',
  ];
  if (Object.keys(c.flags).length) out.push('', 'Flags:', ...flagLines(c.flags));
  out.push('', 'Common flags:', ...flagLines(COMMON_FLAGS), '', 'Example:');
  for (const ex of c.examples) out.push(...exampleLines(ex.command, ex.input, ex.output));
  out.push('', EXIT_CODES_HELP, '');
  return out.join('\n');
}

/** The flags of `frognano` itself (before any subcommand). */
const OWN_FLAGS: Readonly<Record<string, FlagSpec>> = {
  help: { type: 'boolean', description: 'this help (`frognano <subcommand> --help`: the subcommand\'s)' },
  version: { type: 'boolean', description: 'print the version' },
};

/** `frognano --help`. */
export function mainHelp(version: string): string {
  const width = Math.max(...[...RECORD_COMMANDS, ...OTHER_COMMANDS].map((c) => c.name.length)) + 2;
  const rows = (cs: readonly { name: string; summary: string }[]): string[] => cs.map((c) => `  ${c.name.padEnd(width)}${c.summary}`);
  const first = RECORD_COMMANDS.find((c) => c.name === 'advantages')!.examples[0]!;
  return [
    `frognano ${version}: RL primitives for training coding agents (FrogNano, GAGAR, Verification Horizon)`,
    '',
    'Usage: frognano <record subcommand> [--in FILE] [--out FILE] [flags]',
    '       frognano serve --port N [--host 127.0.0.1] [flags]',
    '       frognano rollout --tasks FILE [--group G] [--concurrency C] [--out FILE [--resume]]',
    '       frognano validate-tasks --tasks FILE',
    '       frognano leaf-report [--in FILE] [--out FILE]',
    '       frognano web-judge --app DIR --rubric FILE [--out DIR]',
    '',
    'A record subcommand reads JSON records (JSONL, one per line, or one JSON document) from --in',
    'or stdin and writes one JSON object per line to --out or stdout, streaming line by line.',
    '',
    'Record subcommands:',
    ...rows(RECORD_COMMANDS),
    '',
    'Other subcommands (each takes only its own flags; see its --help):',
    ...rows(OTHER_COMMANDS),
    '',
    'Flags of every record subcommand:',
    ...flagLines(COMMON_FLAGS),
    '',
    'Flags of frognano itself:',
    ...flagLines(OWN_FLAGS),
    '',
    'Example:',
    ...exampleLines(first.command, first.input, first.output),
    '',
    'Run `frognano <subcommand> --help` for its input and output format, flags and examples.',
    '',
    EXIT_CODES_HELP,
    '',
  ].join('\n');
}
