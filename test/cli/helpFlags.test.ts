/**
 * Each subcommand's help lists exactly the flags its parser accepts, and
 * `frognano --help` claims a flag only for the subcommands that take it.
 * Generated from the flag tables: every flag of a subcommand's table is listed
 * in its `--help` (with its description) and accepted by the real CLI
 * (`frognano <sub> --flag [v] --help` exits 0: the parser runs before the
 * help); every flag of another table that is not in its own is refused (exit
 * 2, unknown flag); and every `--flag` its help mentions anywhere (usage line,
 * prose, examples) is one of its table's.
 */
import { describe, expect, it } from 'vitest';
import { subcommandNames } from '../../src/cli/cli.js';
import { LEAF_REPORT_FLAGS } from '../../src/cli/commands/leafReport.js';
import { EVALUATE_FLAGS } from '../../src/cli/commands/evaluate.js';
import { WEB_JUDGE_FLAGS } from '../../src/cli/commands/webJudge.js';
import { TASKS_FLAGS } from '../../src/cli/commands/tasksImport.js';
import { TASKPILOT_FLAGS } from '../../src/cli/commands/taskpilot.js';
import { IMAGE_FLAGS } from '../../src/cli/commands/image.js';
import { COMMON_FLAGS } from '../../src/cli/help.js';
import { ROLLOUT_FLAGS, VALIDATE_FLAGS } from '../../src/cli/leafCommands.js';
import { type FlagSpec, RECORD_COMMANDS } from '../../src/commands/index.js';
import { SERVE_FLAGS } from '../../src/server/serveCommand.js';
import { runInProcess } from './helpers.js';

type Table = Readonly<Record<string, FlagSpec>>;

/** The flag table of every subcommand but `help` and `version` (a record subcommand parses its own flags and the common ones). */
const TABLES: Readonly<Record<string, Table>> = {
  ...Object.fromEntries(RECORD_COMMANDS.map((c) => [c.name, { ...COMMON_FLAGS, ...c.flags }])),
  serve: SERVE_FLAGS,
  rollout: ROLLOUT_FLAGS,
  'validate-tasks': VALIDATE_FLAGS,
  'leaf-report': LEAF_REPORT_FLAGS,
  evaluate: EVALUATE_FLAGS,
  'web-judge': WEB_JUDGE_FLAGS,
  tasks: TASKS_FLAGS,
  taskpilot: TASKPILOT_FLAGS,
  image: IMAGE_FLAGS,
};
const RECORD_NAMES = RECORD_COMMANDS.map((c) => c.name);
/** Every flag some subcommand takes. */
const ALL_FLAGS = [...new Set(Object.values(TABLES).flatMap((t) => Object.keys(t)))].sort();

/** The `--flag` names a text mentions (not `--` inside a word). */
const mentioned = (text: string): string[] => [...new Set([...text.matchAll(/(?<![\w-])--([a-z][a-z0-9-]*)/g)].map((m) => m[1]!))];
const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The help's table line of one flag: `  --name VALUE   description`. */
const flagLine = (name: string, f: FlagSpec): RegExp => new RegExp(`^ {2}${escape(`--${name}${f.type === 'string' ? ` ${f.value ?? 'VALUE'}` : ''}`)} {2,}${escape(f.description)}$`, 'm');
/** `frognano <sub> --flag [value] --help`: the parser sees the flag, then the help ends the run. */
const probe = (sub: string, name: string, f?: FlagSpec) => runInProcess([sub, `--${name}`, ...(f?.type === 'string' ? ['1'] : []), '--help']);

describe('the flag tables', () => {
  it('cover every subcommand the CLI dispatches (but help and version)', () => {
    expect(Object.keys(TABLES).sort()).toEqual(subcommandNames().filter((n) => n !== 'help' && n !== 'version').sort());
  });
});

describe.each(Object.keys(TABLES))('frognano %s', (sub) => {
  const table = TABLES[sub]!;
  it('--help lists every flag of its table, with its description', async () => {
    const { stdout, code } = await runInProcess([sub, '--help']);
    expect(code).toBe(0);
    for (const [name, f] of Object.entries(table)) expect(stdout, `--${name}`).toMatch(flagLine(name, f));
  });
  it('--help mentions no flag outside its table', async () => {
    const { stdout } = await runInProcess([sub, '--help']);
    expect(mentioned(stdout).filter((n) => !Object.hasOwn(table, n))).toEqual([]);
  });
  it('the parser accepts every flag of the table', async () => {
    for (const [name, f] of Object.entries(table)) {
      const r = await probe(sub, name, f);
      expect([r.code, r.stderr], `--${name}`).toEqual([0, '']);
    }
  });
  it('the parser refuses every other flag (exit 2, unknown flag)', async () => {
    for (const name of ALL_FLAGS.filter((n) => !Object.hasOwn(table, n))) {
      const r = await probe(sub, name);
      expect(r.code, `--${name}`).toBe(2);
      expect(r.stderr).toContain(`unknown flag '--${name}'`);
    }
  });
});

describe('frognano --help', () => {
  /** The lines of the help's section that starts with `title`, up to the blank line. */
  const section = (help: string, title: string): string[] => {
    const lines = help.split('\n');
    const start = lines.indexOf(title);
    expect(start, title).toBeGreaterThan(0);
    const end = lines.indexOf('', start);
    return lines.slice(start + 1, end);
  };

  it('each usage line names only flags its subcommand takes (<record subcommand>: every record subcommand)', async () => {
    const { stdout } = await runInProcess(['--help']);
    const usage = stdout.split('\n').filter((l) => /^(Usage: | {7})frognano /.test(l));
    expect(usage.length).toBeGreaterThanOrEqual(6);
    for (const l of usage) {
      const name = /frognano (<[^>]+>|\S+)/.exec(l)![1]!;
      const subs = name === '<record subcommand>' ? RECORD_NAMES : name.startsWith('<') ? Object.keys(TABLES) : [name];
      for (const s of subs) {
        expect(TABLES[s], l).toBeDefined();
        expect(mentioned(l).filter((n) => !Object.hasOwn(TABLES[s]!, n)), `${l} (for ${s})`).toEqual([]);
      }
    }
  });
  it('the record subcommands\' flags are listed as theirs, and every record subcommand takes each', async () => {
    const { stdout } = await runInProcess(['--help']);
    const flags = mentioned(section(stdout, 'Flags of every record subcommand:').join('\n'));
    expect(flags.sort()).toEqual(Object.keys(COMMON_FLAGS).sort());
    for (const s of RECORD_NAMES) expect(flags.filter((n) => !Object.hasOwn(TABLES[s]!, n)), s).toEqual([]);
    // --in is one of them, and it is not a flag of rollout, validate-tasks or serve
    expect(flags).toContain('in');
    for (const s of ['rollout', 'validate-tasks', 'serve']) expect((await probe(s, 'in', COMMON_FLAGS.in)).code, s).toBe(2);
  });
  it('frognano\'s own flags work before any subcommand', async () => {
    const { stdout } = await runInProcess(['--help']);
    expect(mentioned(section(stdout, 'Flags of frognano itself:').join('\n')).sort()).toEqual(['help', 'version']);
    expect((await runInProcess(['--version'])).code).toBe(0);
  });
  it('lists every subcommand once, record and other ones apart', async () => {
    const { stdout } = await runInProcess(['--help']);
    const names = [...section(stdout, 'Record subcommands:'), ...section(stdout, 'Other subcommands (each takes only its own flags; see its --help):')].map((l) => l.trim().split(/\s+/)[0]);
    expect(names.sort()).toEqual(Object.keys(TABLES).sort());
  });
});
