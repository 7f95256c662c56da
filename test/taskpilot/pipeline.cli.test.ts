/**
 * `frognano taskpilot` in process: usage errors, `--help`, and `--pool` against a scripted
 * policy server (a saturated task leaves the pool, a too-hard one stays marked).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonLines, runInProcess } from '../cli/helpers.js';
import { scratchDir, writeTree } from '../helpers/leafTask.js';
import { startToolCallServer } from '../helpers/toolCallServer.js';

const FIXED = 'add() { echo $(( $1 + $2 )); }\n';
const servers: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

describe('frognano taskpilot', () => {
  it('--help lists the flags; bad usage exits 2', async () => {
    const h = await runInProcess(['taskpilot', '--help']);
    expect(h.code).toBe(0);
    expect(h.stdout).toContain('--band INTERVAL');
    expect(h.stdout).toContain('--pool FILE');
    expect((await runInProcess(['taskpilot', '--repo', '.', '--tests', 'true', '--source', 'generator'])).stderr).toContain('--out FILE is required');
    const r = await runInProcess(['taskpilot', '--repo', '.', '--tests', 'true', '--source', 'mutation', '--out', '/tmp/x.jsonl', '--band', '(1,0)', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--band');
    const both = await runInProcess(['taskpilot', '--repo', '.', '--tests', 'true', '--source', 'mutation', '--out', '/tmp/x.jsonl', '--band', '(0,1)', '--target', '0.5']);
    expect(both.stderr).toContain('--band and --target exclude each other');
  });

  it('--pool: saturated tasks leave, too-hard ones stay marked; report and rollouts written', async () => {
    const server = await startToolCallServer({ 'EASY TASK': [[['write', { file_path: 'lib.sh', content: FIXED }]]] });
    servers.push(server);
    const dir = await scratchDir();
    await writeTree(join(dir, 'pool-repos/t-easy'), { 'lib.sh': 'add() { echo $(( $1 - $2 )); }\n' });
    await writeTree(join(dir, 'pool-repos/t-hard'), { 'lib.sh': 'add() { echo $(( $1 - $2 )); }\n' });
    const tests = { command: '. ./lib.sh; if [ "$(add 2 3)" = 5 ]; then echo "ok 1 t::add"; else echo "not ok 1 t::add"; exit 1; fi; echo 1..1', log: 'tap', files: {}, failToPass: ['t::add'] };
    const line = (id: string, statement: string) => ({ id, statement, repo: `pool-repos/${id}`, tests, referencePatch: 'x', pilot: { pHat: 0.5, rollouts: 2, round: 0, source: 'generator', category: 'bug-fix', pHatHistory: [0.5] } });
    await writeFile(join(dir, 'pool.jsonl'), `${JSON.stringify(line('t-easy', 'EASY TASK: fix add'))}\n${JSON.stringify(line('t-hard', 'HARD TASK: fix add'))}\n`);
    const out = join(dir, 'next/pool2.jsonl');
    const r = await runInProcess(['taskpilot', '--pool', join(dir, 'pool.jsonl'), '--out', out, '--rollouts', '2', '--unsafe-no-sandbox', '--base-url', server.baseUrl, '--model', 'scripted']);
    expect(r.stderr).toContain('--pool: 1 kept, 1 left (saturated), 0 not estimated');
    expect(r.code).toBe(0);
    const kept = jsonLines(await readFile(out, 'utf8')) as { id: string; repo: string; pilot: { pHat: number; status?: string; pHatHistory: number[] } }[];
    expect(kept.map((k) => [k.id, k.repo, k.pilot.pHat, k.pilot.status, k.pilot.pHatHistory])).toEqual([['t-hard', '../pool-repos/t-hard', 0, 'too-hard', [0.5, 0]]]);
    const left = jsonLines(await readFile(`${out}.discarded.jsonl`, 'utf8')) as { id: string; reason: string; pHatHistory: number[] }[];
    expect(left.map((d) => [d.id, d.reason, d.pHatHistory])).toEqual([['t-easy', 'out-of-band', [0.5, 1]]]);
    expect(jsonLines(await readFile(`${out}.rollouts.jsonl`, 'utf8'))).toHaveLength(4);
    expect(await readFile(join(dir, 'next/pool2.report.html'), 'utf8')).toContain('out-of-band');
  }, 60_000);

  it('--source mutation end to end: a policy that never solves -> too-hard, refined by statement level, then out-of-band', async () => {
    const server = await startToolCallServer({});
    servers.push(server);
    const dir = await scratchDir();
    await writeTree(join(dir, 'repo'), {
      'calc.py': 'def add(a, b):\n    return a + b\n\n\ndef clamp(x, lo, hi):\n    if x < lo:\n        return lo\n    if x > hi:\n        return hi\n    return x\n',
      'tests/test_calc.py': 'from calc import add, clamp\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_clamp():\n    assert clamp(5, 0, 3) == 3\n    assert clamp(-1, 0, 3) == 0\n',
    });
    const out = join(dir, 'pilot.jsonl');
    const r = await runInProcess(['taskpilot', '--repo', join(dir, 'repo'), '--tests', 'python3 -m pytest -rA -p no:cacheprovider tests', '--source', 'mutation', '--candidates', '1', '--rollouts', '2', '--rounds', '1', '--repeat', '1', '--unsafe-no-sandbox', '--base-url', server.baseUrl, '--model', 'scripted', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('1 candidates generated');
    const discarded = jsonLines(await readFile(`${out}.discarded.jsonl`, 'utf8')) as { id: string; reason: string; source: string; pHatHistory: number[]; tests: { failToPass?: string[] } }[];
    expect(discarded).toHaveLength(1);
    expect(discarded[0]).toMatchObject({ reason: 'out-of-band', source: 'mutation' });
    expect(discarded[0]!.pHatHistory.every((p) => p === 0)).toBe(true);
    expect(discarded[0]!.tests.failToPass?.length).toBeGreaterThan(0);
    expect(await readFile(out, 'utf8')).toBe('');
  }, 60_000);
});
