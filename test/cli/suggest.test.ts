/**
 * "Did you mean": an unknown subcommand (or flag) names the nearest real one
 * when it is close, found with a small edit distance over the names the
 * dispatcher knows, and points at `frognano --help` rather than at the help of
 * a subcommand that does not exist.
 */
import { describe, expect, it } from 'vitest';
import { subcommandNames } from '../../src/cli/cli.js';
import { OTHER_COMMANDS } from '../../src/cli/help.js';
import { editDistance, nearest, parseFlags, RECORD_COMMANDS } from '../../src/commands/index.js';
import { runFrognano, runInProcess } from './helpers.js';

describe('editDistance (optimal string alignment)', () => {
  it('counts insertions, deletions and substitutions', () => {
    expect(editDistance('', '')).toBe(0);
    expect(editDistance('abc', 'abc')).toBe(0);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('abc', '')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('advantagez', 'advantages')).toBe(1);
    expect(editDistance('advantage', 'advantages')).toBe(1);
    expect(editDistance('gagar-scores', 'gagar-score')).toBe(1);
  });

  it('counts a swap of two adjacent characters as one edit', () => {
    expect(editDistance('hlep', 'help')).toBe(1);
    expect(editDistance('metircs', 'metrics')).toBe(1);
    expect(editDistance('ab', 'ba')).toBe(1);
    // optimal string alignment: no edit of a swapped pair ('ca' -> 'ac' -> 'abc' would be 2)
    expect(editDistance('ca', 'abc')).toBe(3);
  });

  it('is symmetric', () => {
    const words = ['', 'a', 'serve', 'sevre', 'rollout', 'tinker-datums', 'pass-at-k', 'passatk'];
    for (const a of words) for (const b of words) expect(editDistance(a, b), `${a} / ${b}`).toBe(editDistance(b, a));
  });
});

describe('nearest', () => {
  const names = ['advantages', 'gagar', 'gagar-score', 'help', 'serve'];

  it('suggests within max(2, floor(length / 3)) edits, case aside', () => {
    expect(nearest('advantagez', names)).toBe('advantages');
    expect(nearest('ADVANTAGES', names)).toBe('advantages');
    expect(nearest('hlep', names)).toBe('help');
    expect(nearest('srv', names)).toBe('serve'); // 2 edits, the floor of the limit
    expect(nearest('tinkr-dtms', ['tinker-datums'])).toBe('tinker-datums'); // 3 edits, 10 characters: limit 3
    expect(nearest('advntgs', names)).toBeUndefined(); // 3 edits, 7 characters: limit 2
  });

  it('suggests nothing when nothing is close', () => {
    expect(nearest('xyz', names)).toBeUndefined();
    expect(nearest('rewardz-and-more', names)).toBeUndefined();
    expect(nearest('', names)).toBeUndefined();
    expect(nearest('advantages', [])).toBeUndefined();
  });

  it('prefers the closest, then the earlier candidate', () => {
    expect(nearest('gagar-scor', names)).toBe('gagar-score');
    expect(nearest('gagar', names)).toBe('gagar');
    expect(nearest('ab', ['ax', 'xb'])).toBe('ax');
  });
});

describe('the names the dispatcher knows', () => {
  it('are the record subcommands, the other subcommands of the help, help and version, each once', () => {
    const names = subcommandNames();
    expect(names).toEqual(expect.arrayContaining([...RECORD_COMMANDS.map((c) => c.name), 'serve', 'rollout', 'validate-tasks', 'help', 'version']));
    expect(names).toEqual(expect.arrayContaining(OTHER_COMMANDS.map((c) => c.name)));
    expect(new Set(names).size).toBe(names.length);
  });

  it('each of them dispatches (none is an unknown subcommand), and the main help lists every subcommand', async () => {
    for (const name of subcommandNames()) {
      const res = await runInProcess([name, '--help']);
      expect(res.stderr, name).not.toContain('unknown subcommand');
      expect(res.code, name).toBe(0);
    }
    const help = (await runInProcess(['--help'])).stdout;
    for (const c of [...RECORD_COMMANDS, ...OTHER_COMMANDS]) expect(help).toContain(`  ${c.name} `);
  });
});

describe('an unknown subcommand', () => {
  it('names the nearest real one and points at frognano --help (exit 2, spawned binary)', async () => {
    const res = await runFrognano(['advantagez']);
    expect(res.code).toBe(2);
    expect(res.stderr).toBe(`frognano: unknown subcommand "advantagez"; did you mean "advantages"?\nRun 'frognano --help' for the list.\n`);
    expect(res.stdout).toBe('');
  });

  it('suggests the non-record subcommands too', async () => {
    for (const [typo, real] of [
      ['serv', 'serve'],
      ['rolout', 'rollout'],
      ['validate-task', 'validate-tasks'],
      ['tinker-datum', 'tinker-datums'],
      ['hlep', 'help'],
    ] as const) {
      const res = await runInProcess([typo]);
      expect(res.code).toBe(2);
      expect(res.stderr).toBe(`frognano: unknown subcommand "${typo}"; did you mean "${real}"?\nRun 'frognano --help' for the list.\n`);
    }
  });

  it('without a close name: no suggestion, still the pointer at the list', async () => {
    const res = await runInProcess(['frobnicate']);
    expect(res.code).toBe(2);
    expect(res.stderr).toBe(`frognano: unknown subcommand "frobnicate"\nRun 'frognano --help' for the list.\n`);
  });

  it('through `help NAME` and as a misspelt top-level flag', async () => {
    const viaHelp = await runInProcess(['help', 'metircs']);
    expect(viaHelp.code).toBe(2);
    expect(viaHelp.stderr).toContain('unknown subcommand "metircs"; did you mean "metrics"?');
    const flag = await runInProcess(['--hlep']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('did you mean "--help"?');
  });

  it('a known subcommand keeps its own label and help pointer on bad usage', async () => {
    const res = await runInProcess(['advantages', '--scale', 'zscore']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("frognano advantages: --scale must be one of std, none");
    expect(res.stderr).toContain("Run 'frognano advantages --help' for usage.");
  });
});

describe('an unknown flag', () => {
  it('names the nearest flag of its subcommand', async () => {
    const res = await runInProcess(['advantages', '--scael', 'none']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("frognano advantages: unknown flag '--scael'; did you mean --scale?");
    expect(res.stderr).toContain("Run 'frognano advantages --help' for usage.");
  });

  it('parseFlags: --budjet -> --budget, also written --budjet=N; nothing when nothing is close', () => {
    const specs = { budget: { type: 'string', description: '' }, alpha: { type: 'string', description: '' } } as const;
    expect(() => parseFlags(['--budjet', '5'], specs)).toThrow("unknown flag '--budjet'; did you mean --budget?");
    expect(() => parseFlags(['--budjet=5'], specs)).toThrow("unknown flag '--budjet'; did you mean --budget?");
    expect(() => parseFlags(['--zzz'], specs)).toThrow(/^unknown flag '--zzz'$/);
  });

  it('rollout --budjet (a subcommand outside the record ones)', async () => {
    const res = await runInProcess(['rollout', '--budjet', '6000']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("frognano rollout: unknown flag '--budjet'; did you mean --budget?");
  });
});
