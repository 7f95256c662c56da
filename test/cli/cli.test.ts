/**
 * The CLI's contract: exit codes (SPEC §11: 0 ok, 1 invalid input, 2 bad
 * usage), errors that name the line and the field, --skip-invalid, --in /
 * --out, JSON documents, help with an example per subcommand, progress, EPIPE.
 * The exit codes are checked on the spawned binary; the finer cases run
 * in-process (same code, no process start-up).
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { groupAdvantages } from '../../src/advantage/index.js';
import { parseFlags, RECORD_COMMANDS } from '../../src/commands/index.js';
import { commandHelp } from '../../src/cli/help.js';
import { jsonl, jsonLines, runFrognano, runInProcess, viaJson } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'frognano-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.concurrent('exit codes of the spawned binary', () => {
  it('1 on a line that is not JSON: stderr names the line; the lines before it were written', async () => {
    const res = await runFrognano(['advantages'], '{"rewards":[1,0]}\n\n{"rewards":[0,1]}\n{"rewards": [1,\n{"rewards":[1,1]}\n');
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('line 4');
    expect(res.stderr).toContain('INVALID_JSON');
    expect(jsonLines(res.stdout)).toHaveLength(2);
  });

  it('1 on a field error: stderr names the line, the field and the code', async () => {
    const res = await runFrognano(['advantages'], '{"rewards":[1,0]}\n{"rewards":[1,0,1e999]}\n');
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/line 2: rewards\[2\] must be a finite number.*\[NON_FINITE\]/);
  });

  it('0 with --skip-invalid: valid lines written, invalid ones described and counted', async () => {
    const res = await runFrognano(['advantages', '--skip-invalid'], jsonl([{ rewards: [1, 0] }, { rewards: 'x' }, { rewards: [0, 1] }, [1, 2]]) + 'not json\n');
    expect(res.code).toBe(0);
    expect(jsonLines(res.stdout)).toEqual(viaJson([0, 1].map((i) => ({ advantages: groupAdvantages([i ? [0, 1] : [1, 0]]).advantages[0], kept: true }))));
    expect(res.stderr).toContain('skipped line 2: rewards must be an array');
    expect(res.stderr).toContain('skipped line 4: a record must be a JSON object');
    expect(res.stderr).toContain('skipped line 5: not valid JSON');
    expect(res.stderr).toContain('5 record(s) read, 2 written, 3 invalid skipped');
  });

  it('2 on bad usage: unknown subcommand, unknown flag, bad flag value, missing --in file', async () => {
    const [sub, flag, value, missing] = await Promise.all([
      runFrognano(['advantagez']),
      runFrognano(['advantages', '--scael', 'none']),
      runFrognano(['advantages', '--scale', 'zscore']),
      runFrognano(['advantages', '--in', join(dir, 'does-not-exist.jsonl')]),
    ]);
    expect(sub.code).toBe(2);
    expect(sub.stderr).toContain('frognano: unknown subcommand "advantagez"; did you mean "advantages"?');
    expect(sub.stderr).toContain("Run 'frognano --help' for the list.");
    expect(sub.stderr).not.toContain('frognano advantagez --help');
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("unknown flag '--scael'");
    expect(value.code).toBe(2);
    expect(value.stderr).toContain('--scale must be one of std, none');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot open --in');
    expect(missing.stderr).toContain('ENOENT');
  });

  it('--in FILE --out FILE: the output file appears complete; on invalid input it does not appear', async () => {
    const input = join(dir, 'groups.jsonl');
    const groups = [[1, 0, 0, 1], [0.5, 0.5], [3, 1, 2]];
    writeFileSync(input, jsonl(groups.map((rewards) => ({ rewards }))));
    const out = join(dir, 'adv.jsonl');
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(join(dir, 'bad-in.jsonl'), jsonl([{ rewards: [1, 0] }, { rewards: [] }]));
    const [ok, fail] = await Promise.all([
      runFrognano(['advantages', '--in', input, '--out', out, '--scale', 'none']),
      runFrognano(['advantages', '--in', join(dir, 'bad-in.jsonl'), '--out', bad]),
    ]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toBe('');
    expect(jsonLines(readFileSync(out, 'utf8'))).toEqual(viaJson(groups.map((g) => ({ advantages: groupAdvantages([g], { scale: 'none' }).advantages[0], kept: groupAdvantages([g]).kept[0] }))));
    expect(fail.code).toBe(1);
    expect(fail.stderr).toContain('line 2: groupAdvantages: rewards must have at least 1 element');
    expect(existsSync(bad)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });

  it('--help of a subcommand prints its format and example, exit 0', async () => {
    const res = await runFrognano(['gagar', '--help']);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('Usage: frognano gagar');
    expect(res.stdout).toContain('Example:');
    expect(res.stdout).toContain('| frognano gagar');
  });
});

describe('every subcommand has a help with an example that is true', () => {
  for (const cmd of RECORD_COMMANDS) {
    it(`${cmd.name}: its examples produce the documented output`, async () => {
      expect(cmd.examples.length).toBeGreaterThan(0);
      const help = commandHelp(cmd);
      for (const ex of cmd.examples) {
        expect(help).toContain(ex.command);
        const argv = ex.command.split(' ').slice(1);
        const res = await runInProcess(argv, ex.input + '\n');
        expect(res.stderr).toBe('');
        expect(res.code).toBe(0);
        expect(res.stdout.trim()).toBe(ex.output);
      }
    });
  }

  it('frognano --help lists every subcommand and serve; no arguments is bad usage', async () => {
    const res = await runInProcess(['--help']);
    expect(res.code).toBe(0);
    for (const c of RECORD_COMMANDS) expect(res.stdout).toContain(`  ${c.name} `);
    expect(res.stdout).toContain('serve');
    expect(res.stdout).toContain('Exit codes:');
    const none = await runInProcess([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('Usage: frognano');
    expect((await runInProcess(['help', 'metrics'])).stdout).toContain('frognano metrics:');
    expect((await runInProcess(['serve', '--help'])).stdout).toContain('POST /openrlhf/reward');
  });
});

describe('input formats', () => {
  it('a JSON array document: one record per element, errors name the record', async () => {
    const doc = JSON.stringify([{ rewards: [1, 0] }, { rewards: [2, 2] }], null, 2);
    const res = await runInProcess(['advantages'], doc);
    expect(res.code).toBe(0);
    expect(jsonLines(res.stdout)).toEqual(viaJson([groupAdvantages([[1, 0]]), groupAdvantages([[2, 2]])].map((g) => ({ advantages: g.advantages[0], kept: g.kept[0] }))));
    const bad = await runInProcess(['advantages'], JSON.stringify([{ rewards: [1, 0] }, { rewardz: [1] }]));
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('record 2: unknown field(s) "rewardz"');
  });

  it('a pretty-printed single object is one record; --format jsonl reads it as broken lines', async () => {
    const doc = JSON.stringify({ rewards: [1, 0, 0] }, null, 2);
    const auto = await runInProcess(['advantages'], doc);
    expect(auto.code).toBe(0);
    expect(jsonLines(auto.stdout)).toHaveLength(1);
    const forced = await runInProcess(['advantages', '--format', 'jsonl'], doc);
    expect(forced.code).toBe(1);
    expect(forced.stderr).toContain('line 1: not valid JSON');
  });

  it('CRLF line ends, blank lines and a last line without newline are fine; empty input writes nothing', async () => {
    const res = await runInProcess(['pass-at-k', '--k', '1'], '{"n":2,"c":1}\r\n\r\n{"n":3,"c":0}');
    expect(res.code).toBe(0);
    expect(jsonLines(res.stdout)).toEqual([
      { n: 2, c: 1, k: 1, passAtK: 0.5 },
      { n: 3, c: 0, k: 1, passAtK: 0 },
    ]);
    const empty = await runInProcess(['advantages'], '');
    expect(empty.code).toBe(0);
    expect(empty.stdout).toBe('');
  });
});

describe('invalid records name the field (one case per kind)', () => {
  const cases: [string, string[], unknown, RegExp][] = [
    ['missing field', ['advantages'], { filterBy: [1] }, /rewards is required \(an array\) \[INVALID_TYPE\]/],
    ['unknown field', ['advantages'], { rewards: [1], reward: 2 }, /unknown field\(s\) "reward" \[INVALID_TYPE\]/],
    ['length mismatch', ['advantages'], { rewards: [1, 0], filterBy: [1, 0, 1] }, /filterBy has length 3 but rewards has length 2 \[LENGTH_MISMATCH\]/],
    ['option out of range', ['advantages'], { rewards: [1, 0], opts: { eps: -1 } }, /opts\.eps.*\[OUT_OF_RANGE\]/],
    ['filterBy inside opts', ['advantages'], { rewards: [1, 0], opts: { filterBy: [[1, 0]] } }, /opts\.filterBy: give filterBy at the top level/],
    ['missing budget', ['rewards'], { outcome: { success: true, truncated: false, assistantTokens: 3 } }, /opts\.budget is required: pass --budget/],
    ['bad outcome', ['rewards', '--budget', '10', '--alpha', '0'], { outcomes: [{ success: true, truncated: false, assistantTokens: 1.5 }] }, /outcomes\[0\]\.assistantTokens.*\[OUT_OF_RANGE\]/],
    ['outcome and outcomes', ['rewards', '--budget', '10', '--alpha', '0'], { outcome: {}, outcomes: [] }, /give either "outcomes"/],
    ['bad single outcome', ['rewards', '--budget', '10', '--alpha', '0'], { outcome: { success: 'yes', truncated: false, assistantTokens: 1 } }, /outcome\.success.*\[INVALID_TYPE\]/],
    ['bad tier', ['gagar'], { rewards: [1, 0], candidates: [{ tier: 'T4', rank: 1 }, null] }, /candidates\[0\]\.tier.*\[INVALID_TYPE\]/],
    ['zero success coefficient', ['gagar'], { rewards: [1, 0], coefficients: [0, null] }, /coefficients\[0\].*\(0, 1\].*\[OUT_OF_RANGE\]/],
    ['lambdaMax below 1', ['gagar'], { rewards: [1, 0], coefficients: [1, null], opts: { lambdaMax: 0.5 } }, /opts\.lambdaMax.*\[OUT_OF_RANGE\]/],
    ['bad rubric score', ['gagar-score'], { scores: { approach: 5 } }, /scores\.precision.*\[INVALID_TYPE\]/],
    ['logit instead of log-prob', ['dppo-mask'], { logpNew: [0.5], logpRollout: [-1], advantages: 1 }, /logpNew\[0\] must be a log-probability.*\[OUT_OF_RANGE\]/],
    ['k above n', ['pass-at-k'], { n: 3, c: 1, k: 4 }, /k must be an integer with 1 <= k <= n.*\[OUT_OF_RANGE\]/],
    ['k list entry above n', ['pass-at-k'], { n: 3, c: 1, k: [1, 5] }, /k\[1\] must be an integer/],
    ['metrics ut/eval lengths', ['metrics'], { ut: [1, 0], eval: [1] }, /eval has length 1 but ut has length 2 \[LENGTH_MISMATCH\]/],
    ['tinker mask value', ['tinker-datums'], { tokens: [1, 2, 3], lossMask: [0, 2, 1], logprobs: [0, 0, 0], advantage: 1 }, /lossMask\[1\] must be 0 or 1, got 2 \[OUT_OF_RANGE\]/],
    ['tinker negative token', ['tinker-datums'], { tokens: [1, -2], lossMask: [0, 1], logprobs: [0, 0], advantage: 1 }, /tokens\[1\].*\[OUT_OF_RANGE\]/],
  ];
  for (const [name, argv, rec, msg] of cases) {
    it(name, async () => {
      const res = await runInProcess(argv, jsonl([rec]));
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(/line 1: /);
      expect(res.stderr).toMatch(msg);
    });
  }

  it('metrics: a mixed file (task lines and set lines) is invalid', async () => {
    const res = await runInProcess(['metrics'], jsonl([{ ut: [1], eval: [1] }, { tasks: [{ ut: [1], eval: [1] }] }]));
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('line 2: a "tasks" set line in a file of task lines');
  });
});

describe('flags', () => {
  it('negative values need --flag=value; bad values are usage errors naming the flag', async () => {
    const budget = await runInProcess(['rewards', '--budget', '0', '--alpha', '1'], '');
    expect(budget.stderr).toContain('--budget');
    expect(budget.code).toBe(2);
    expect((await runInProcess(['gagar', '--lambda-max', '0.5'], '')).code).toBe(2);
    expect((await runInProcess(['pass-at-k', '--k', '1,x'], '')).stderr).toContain('--k must be an integer');
    expect((await runInProcess(['advantages', '--format', 'csv'], '')).code).toBe(2);
    expect((await runInProcess(['advantages', 'extra'], '')).stderr).toContain('unexpected argument "extra"');
    expect(parseFlags(['--floor=-1'], { floor: { type: 'string', description: '' } })).toEqual({ floor: '-1' });
  });
});

describe('streaming behaviour', () => {
  it('--progress draws a progress line on stderr for long inputs and erases it', async () => {
    const input = jsonl(Array.from({ length: 3000 }, () => ({ rewards: [1, 0] })));
    const res = await runInProcess(['advantages', '--progress'], input);
    expect(res.code).toBe(0);
    expect(res.stderr).toMatch(/frognano advantages: [\d,]+ lines, [\d,]+ lines\/s/);
    expect(res.stderr.endsWith('\r\x1b[K')).toBe(true);
    const quiet = await runInProcess(['advantages', '--no-progress'], input, { stderrTTY: true });
    expect(quiet.stderr).toBe('');
  });

  it('a closed stdout (EPIPE) ends the run quietly with 0', async () => {
    let writes = 0;
    const stdout = new Writable({
      highWaterMark: 16,
      write(_chunk, _enc, cb) {
        writes++;
        const e = Object.assign(new Error('write EPIPE'), { code: 'EPIPE', syscall: 'write' });
        cb(e);
      },
    });
    stdout.on('error', () => {});
    const input = jsonl(Array.from({ length: 20_000 }, () => ({ rewards: [1, 0, 1] })));
    const res = await runInProcess(['advantages'], input, { stdout });
    expect(res.code).toBe(0);
    expect(res.stderr).toBe('');
    expect(writes).toBe(1);
  });
});
