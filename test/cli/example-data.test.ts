/**
 * The bundled example data and the subcommands it feeds:
 * examples/data/tinker-rollouts.jsonl is `frognano tinker-datums` input;
 * examples/data/rollouts.jsonl (the demo's task groups) is not. Both files are
 * what examples/data/generate.ts makes, byte for byte.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { broadcastToTokens } from '../../src/advantage/index.js';
import { CLI_ARGS, jsonLines, ROOT, runFrognano, viaJson } from './helpers.js';

const TINKER = 'examples/data/tinker-rollouts.jsonl';
const GROUPS = 'examples/data/rollouts.jsonl';
const dir = mkdtempSync(join(tmpdir(), 'frognano-data-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface TinkerIn {
  id: string;
  tokens: number[];
  lossMask: number[];
  logprobs: number[];
  advantage: number;
}
interface Datum {
  id: string;
  model_input: number[];
  loss_fn_inputs: { target_tokens: number[]; logprobs: number[]; advantages: number[] };
}

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

describe.concurrent('examples/data', () => {
  it(`frognano tinker-datums --in ${TINKER}: one datum per rollout, shifted by one, exit 0`, async () => {
    const inputs = jsonLines(read(TINKER)) as TinkerIn[];
    // the 4 groups of 8 the zero-variance filter keeps (of 6: one all solved, one all failed)
    expect(inputs).toHaveLength(32);
    expect(new Set(inputs.map((r) => r.id)).size).toBe(32);
    const res = await runFrognano(['tinker-datums', '--in', TINKER]);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const datums = jsonLines(res.stdout) as Datum[];
    expect(datums).toHaveLength(inputs.length);
    datums.forEach((d, i) => {
      const r = inputs[i]!;
      const n = r.tokens.length;
      expect(d.id).toBe(r.id);
      expect(d.model_input).toEqual(r.tokens.slice(0, -1));
      expect(d.loss_fn_inputs.target_tokens).toEqual(r.tokens.slice(1));
      expect(d.loss_fn_inputs.logprobs).toHaveLength(n - 1);
      expect(d.loss_fn_inputs.advantages).toEqual(viaJson(broadcastToTokens([r.advantage], [r.lossMask])[0]!.slice(1)));
      d.loss_fn_inputs.logprobs.forEach((lp, t) => expect(lp).toBe(r.lossMask[t + 1] === 1 ? r.logprobs[t + 1] : 0));
    });
    // a real training signal: advantages of both signs
    expect(inputs.some((r) => r.advantage > 0) && inputs.some((r) => r.advantage < 0)).toBe(true);
  });

  it(`${GROUPS} is the demo's task groups, not tinker-datums input: exit 1 naming its fields`, async () => {
    const res = await runFrognano(['tinker-datums', '--in', GROUPS]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('line 1: unknown field(s) "taskId", "statement", "rollouts"');
  });

  it('examples/data/generate.ts makes both files again, byte for byte (seeded)', async () => {
    const code = await new Promise<number | null>((done, reject) => {
      const child = spawn(process.execPath, [...CLI_ARGS.slice(0, -1), 'examples/data/generate.ts', dir], { cwd: ROOT, stdio: 'ignore' });
      child.on('error', reject);
      child.on('close', done);
    });
    expect(code).toBe(0);
    for (const name of ['rollouts.jsonl', 'tinker-rollouts.jsonl']) {
      expect(readFileSync(join(dir, name), 'utf8'), name).toBe(read(`examples/data/${name}`));
    }
  });

  it('docs/cli.md says which file feeds which subcommand', () => {
    const md = read('docs/cli.md');
    expect(md).toContain(`frognano tinker-datums --in ${TINKER}`);
    expect(md).toContain(GROUPS);
  });
});
