/**
 * The TaskPilot pipeline on repositories (SPEC §15) end to end, without a model server:
 * in-process fake sources, a scripted policy whose success depends on the statement,
 * a tiny bash repository graded through TAP logs, the unsandboxed runner (fast).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/leaf/index.js';
import type { ToolChatModel } from '../../src/llm/index.js';
import {
  doneIds, estimatePHat, formatBand, levelRefinement, openPilotOutputs, parseBand, type PilotCandidate, type PilotDiscardLine, type PilotTaskLine,
  readJsonLines, renderPilotReport, runRepoTaskPilot, targetBand, validateCandidate,
} from '../../src/taskpilot/index.js';
import { expectFrognanoError } from '../helpers/expectError.js';
import { scratchDir, writeTree } from '../helpers/leafTask.js';
import { calls, final } from '../helpers/toolModel.js';

const sandbox = createSandbox({ unsafeNoSandbox: true });
const BUGGY = 'add() { echo $(( $1 - $2 )); }\nmul() { echo $(( $1 * $2 )); }\n';
const FIXED = 'add() { echo $(( $1 + $2 )); }\nmul() { echo $(( $1 * $2 )); }\n';
const GOLD = '--- a/lib.sh\n+++ b/lib.sh\n@@ -1,2 +1,2 @@\n-add() { echo $(( $1 - $2 )); }\n+add() { echo $(( $1 + $2 )); }\n mul() { echo $(( $1 * $2 )); }\n';
const BAD_GOLD = '--- a/lib.sh\n+++ b/lib.sh\n@@ -1,2 +1,2 @@\n-sub() { nothing here; }\n+add() { echo $(( $1 + $2 )); }\n mul() { echo $(( $1 * $2 )); }\n';
const RUNNER = 'out=$(for f in tests/*.sh; do bash "$f"; done)\necho "$out"\necho "1..$(echo "$out" | grep -c "ok ")"\n! echo "$out" | grep -q "^not ok"\n';
const tap = (file: string, name: string, cond: string): string => `. ./lib.sh\nif ${cond}; then echo "ok 1 ${file}::${name}"; else echo "not ok 1 ${file}::${name}"; fi\n`;
const HIDDEN = { 'tests/test_add.sh': tap('tests/test_add.sh', 'add', '[ "$(add 2 3)" = 5 ]') };

async function repo(): Promise<string> {
  const dir = await scratchDir('frognano-pilot-');
  await writeTree(join(dir, 'repo'), { 'lib.sh': BUGGY, 'run_tests.sh': RUNNER, 'tests/test_mul.sh': tap('tests/test_mul.sh', 'mul', '[ "$(mul 2 3)" = 6 ]') });
  return join(dir, 'repo');
}

function candidate(repoDir: string, id: string, statement: string, over: Partial<PilotCandidate> = {}): PilotCandidate {
  return { id, source: 'generator', category: 'bug-fix', statement, repoDir, goldPatch: GOLD, tests: { command: 'bash run_tests.sh', log: 'tap', files: HIDDEN }, ...over };
}

/**
 * The scripted policy: a statement containing `solve K/N` makes the j-th episode of that
 * statement (counted per statement, episodes in order) fix the bug iff j mod N < K.
 */
function policy(): ToolChatModel & { episodes: Map<string, number> } {
  const episodes = new Map<string, number>();
  return {
    name: 'scripted-policy',
    episodes,
    async complete() {
      throw new Error('not scripted');
    },
    async chat(messages) {
      const usage = { promptTokens: 10, completionTokens: 2 };
      if (messages[messages.length - 1]!.role === 'tool') return { ...final(), usage } as never;
      const user = messages.find((m) => m.role === 'user');
      const text = typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content);
      const m = /solve (\d+)\/(\d+)/.exec(text);
      const j = episodes.get(text) ?? 0;
      episodes.set(text, j + 1);
      const solve = m !== null && j % Number(m[2]) < Number(m[1]);
      return { ...(solve ? calls(['write', { file_path: 'lib.sh', content: FIXED }]) : final('I give up.')), usage } as never;
    },
  };
}

const REFINED: Record<string, string | null> = {
  'Fix add. solve 0/4': 'Fix add in lib.sh: it must return the sum. solve 2/4',
  'Fix add. solve 4/4': 'Something is off. solve 1/4',
  'Hopeless. solve 0/4': 'Still hopeless. solve 0/4',
  'Still hopeless. solve 0/4': 'Even more hopeless. solve 0/4',
};
const refine = async (c: PilotCandidate): Promise<string | null> => REFINED[c.statement] ?? null;

describe('band flags', () => {
  it('parses interval notation', () => {
    expect(parseBand('(0,1)')).toEqual({ low: 0, high: 1, lowInclusive: false, highInclusive: false });
    expect(parseBand(' ( 0 , 0.5 ] ')).toEqual({ low: 0, high: 0.5, lowInclusive: false, highInclusive: true });
    expect(parseBand('[0.25,0.75)')).toEqual({ low: 0.25, high: 0.75, lowInclusive: true, highInclusive: false });
    expect(parseBand('[0.5,0.5]')).toEqual({ low: 0.5, high: 0.5, lowInclusive: true, highInclusive: true });
    expect(formatBand(parseBand('(0,.5]'))).toBe('(0, 0.5]');
  });
  it('rejects malformed bands', () => {
    expectFrognanoError(() => parseBand('0,1'), 'INVALID_TYPE', 'band');
    expectFrognanoError(() => parseBand('(0;1)'), 'INVALID_TYPE', 'band');
    expectFrognanoError(() => parseBand('(a,1)'), 'INVALID_TYPE', 'band');
    expectFrognanoError(() => parseBand('(0.6,0.4)'), 'OUT_OF_RANGE', 'band');
    expectFrognanoError(() => parseBand('(0,1.5)'), 'OUT_OF_RANGE', 'band');
    expectFrognanoError(() => parseBand('(0.5,0.5]'), 'OUT_OF_RANGE', 'band');
  });
  it('--target t is [t - 1/N, t + 1/N] clipped, inclusive', () => {
    expect(targetBand(0.5, 8)).toEqual({ low: 0.375, high: 0.625, lowInclusive: true, highInclusive: true });
    expect(targetBand(0.1, 4)).toEqual({ low: 0, high: 0.35, lowInclusive: true, highInclusive: true });
    expect(targetBand(1, 2)).toEqual({ low: 0.5, high: 1, lowInclusive: true, highInclusive: true });
    expectFrognanoError(() => targetBand(1.2, 8), 'OUT_OF_RANGE', 'target');
  });
});

describe('validateCandidate', () => {
  it('finds F2P and P2P ids', async () => {
    const v = await validateCandidate(candidate(await repo(), 'generator-a', 's'), { sandbox });
    expect(v).toMatchObject({ ok: true, candidate: { tests: { failToPass: ['tests/test_add.sh::add'], passToPass: ['tests/test_mul.sh::mul'] } } });
  });
  it('discard reasons', async () => {
    const r = await repo();
    const reason = async (over: Partial<PilotCandidate>): Promise<string> => {
      const v = await validateCandidate(candidate(r, 'x', 's', over), { sandbox });
      return v.ok ? 'ok' : v.reason;
    };
    expect(await reason({ goldPatch: BAD_GOLD })).toBe('patch-does-not-apply');
    expect(await reason({ tests: { command: 'bash run_tests.sh', log: 'tap', files: { 'tests/test_add.sh': tap('tests/test_add.sh', 'add', '[ "$(add 2 2)" = 0 ] || [ "$(add 2 2)" = 4 ]') } } })).toBe('tests-already-pass');
    expect(await reason({ tests: { command: 'bash run_tests.sh', log: 'tap', files: { 'tests/test_add.sh': tap('tests/test_add.sh', 'add', '[ "$(add 2 3)" = 7 ]') } } })).toBe('tests-fail-after');
    const breaksMul = GOLD.replace(' mul() { echo $(( $1 * $2 )); }\n', '-mul() { echo $(( $1 * $2 )); }\n+mul() { echo 0; }\n').replace('@@ -1,2 +1,2 @@', '@@ -1,2 +1,2 @@');
    expect(await reason({ goldPatch: breaksMul })).toBe('p2p-broken');
    // lists given (mutation): checked as validate-tasks does
    expect(await reason({ tests: { command: 'bash run_tests.sh', log: 'tap', files: HIDDEN, failToPass: ['tests/test_mul.sh::mul'] } })).toBe('tests-already-pass');
  });
  it('a hidden file that overwrites a passing test of the snapshot drops it from both sides: p2p-broken against the untouched snapshot (review)', async () => {
    const r = await repo();
    // the "hidden test" replaces tests/test_mul.sh with one that prints nothing: mul's test vanishes before and after
    const v = await validateCandidate(candidate(r, 'x', 's', { tests: { command: 'bash run_tests.sh', log: 'tap', files: { ...HIDDEN, 'tests/test_mul.sh': ':\n' } } }), { sandbox, repeat: 1 });
    expect(v).toMatchObject({ ok: false, reason: 'p2p-broken' });
    expect((v as { detail: string }).detail).toContain('tests/test_mul.sh::mul passes on the untouched snapshot and is missing');
  });

  it('the fail-to-pass ids are the hidden files\' tests: a repo test the gold patch fixes as well is not one (review)', async () => {
    const r = await repo();
    await writeFile(join(r, 'tests/test_add_repo.sh'), tap('tests/test_add_repo.sh', 'add_repo', '[ "$(add 1 1)" = 2 ]'));
    const v = await validateCandidate(candidate(r, 'x', 's'), { sandbox, repeat: 1 });
    expect(v.ok).toBe(true);
    expect((v as { candidate: PilotCandidate }).candidate.tests.failToPass).toEqual(['tests/test_add.sh::add']);
  });

  it('a test whose status alternates between runs of a side is flaky', async () => {
    const r = await repo();
    const counter = join(await scratchDir(), 'counter');
    const flip = `n=$(cat '${counter}' 2>/dev/null || echo 0); echo $((n + 1)) > '${counter}'\nif [ $((n % 2)) = 1 ]; then echo "ok 1 tests/test_flip.sh::flip"; else echo "not ok 1 tests/test_flip.sh::flip"; fi\n`;
    const v = await validateCandidate(candidate(r, 'x', 's', { tests: { command: 'bash run_tests.sh', log: 'tap', files: { ...HIDDEN, 'tests/test_flip.sh': flip } } }), { sandbox, repeat: 2 });
    expect(v).toMatchObject({ ok: false, reason: 'flaky' });
    expect((v as { detail: string }).detail).toContain('tests/test_flip.sh::flip');
  });
});

describe('estimatePHat', () => {
  it('p-hat is the mean of the graded outcomes; every record reaches onRecords', async () => {
    const v = await validateCandidate(candidate(await repo(), 'generator-e', 'Fix add. solve 3/4'), { sandbox });
    if (!v.ok) throw new Error(v.detail);
    const seen: unknown[] = [];
    const est = await estimatePHat([v.candidate], { model: policy(), sandbox, rollouts: 4, onRecords: (rs) => void seen.push(...rs) });
    const e = est.get('generator-e')!;
    expect(e.outcomes).toEqual([true, true, true, false]);
    expect(e.pHat).toBe(e.records.filter((r) => r.outcome?.success).length / 4);
    expect(e.pHat).toBe(0.75);
    expect(seen).toHaveLength(4);
  });
});

async function pilot(outFile: string, repoDir: string, opts: { resume?: boolean; validated?: string[] } = {}) {
  const outs = await openPilotOutputs(outFile, { resume: opts.resume });
  const skip = opts.resume ? await doneIds(outs.paths) : undefined;
  const cands = [
    candidate(repoDir, 'generator-accept', 'Fix add. solve 2/4'),
    candidate(repoDir, 'generator-easier', 'Fix add. solve 0/4'),
    candidate(repoDir, 'generator-harder', 'Fix add. solve 4/4'),
    candidate(repoDir, 'generator-hopeless', 'Hopeless. solve 0/4'),
    candidate(repoDir, 'generator-badpatch', 'Fix add. solve 2/4', { goldPatch: BAD_GOLD }),
  ];
  const events: string[] = [];
  const result = await runRepoTaskPilot({
    source: async () => ({ candidates: cands, discarded: [{ reason: 'duplicate', detail: 'same as generator-accept', pHatHistory: [] }] }),
    estimate: { model: policy(), sandbox, rollouts: 4, seed: 7 },
    validation: { repeat: 1 },
    validate: async (c) => {
      opts.validated?.push(c.id);
      return validateCandidate(c, { sandbox, repeat: 1 });
    },
    rounds: 2,
    refine,
    ...(skip ? { skip } : {}),
    onAccepted: (a) => outs.accepted(a),
    onDiscarded: (d) => outs.discarded(d),
    onRecords: (rs) => outs.records(rs),
    onProgress: (p) => void events.push(p.kind),
  });
  return { result, outs, events };
}

describe('runRepoTaskPilot', () => {
  it('accepts, refines easier and harder, discards out-of-band and a bad patch; writes the files', async () => {
    const dir = await scratchDir();
    const file = join(dir, 'pilot.jsonl');
    const { outs, events } = await pilot(file, await repo());
    const tasks = await readJsonLines<PilotTaskLine>(outs.paths.file);
    const discarded = await readJsonLines<PilotDiscardLine>(outs.paths.discarded);
    expect(tasks.map((t) => [t.id, t.pilot.pHat, t.pilot.round, t.pilot.parent])).toEqual([
      ['generator-accept', 0.5, 0, undefined],
      ['generator-easier-r1', 0.5, 1, 'generator-easier'],
      ['generator-harder-r1', 0.25, 1, 'generator-harder'],
    ]);
    expect(tasks[1]!.statement).toBe('Fix add in lib.sh: it must return the sum. solve 2/4');
    expect(tasks[0]).toMatchObject({ repo: 'pilot-repos/generator-accept', referencePatch: GOLD, tests: { command: 'bash run_tests.sh', log: 'tap', failToPass: ['tests/test_add.sh::add'], passToPass: ['tests/test_mul.sh::mul'] }, pilot: { rollouts: 4, source: 'generator', category: 'bug-fix' } });
    expect(await readFile(join(dir, 'pilot-repos/generator-accept/lib.sh'), 'utf8')).toBe(BUGGY);
    expect(discarded.map((d) => [d.id, d.reason, d.pHatHistory])).toEqual([
      [undefined, 'duplicate', []],
      ['generator-badpatch', 'patch-does-not-apply', []],
      ['generator-hopeless-r2', 'out-of-band', [0, 0, 0]],
    ]);
    expect(discarded[2]).toMatchObject({ parent: 'generator-hopeless', statement: 'Even more hopeless. solve 0/4', goldPatch: GOLD, source: 'generator', category: 'bug-fix' });
    const rollouts = await readJsonLines<{ taskId: string; pilot: { round: number } }>(outs.paths.rollouts);
    // round 0: 4 candidates; round 1: 3 refined; round 2: 1 -> 8 estimates of 4 episodes
    expect(rollouts).toHaveLength(32);
    expect(new Set(events)).toEqual(new Set(['generated', 'validated', 'estimated', 'refined', 'accepted', 'discarded']));
    // the report renders
    const html = renderPilotReport(tasks, discarded, { band: '(0, 1)', rollouts: 4 });
    await writeFile(outs.paths.report, html);
    expect(html).toContain('Round 2');
    expect(html).toContain('patch-does-not-apply');
    expect(html).not.toMatch(/<script|https?:\/\//);
  }, 60_000);

  it('same seed, same outputs; --resume skips the ids done', async () => {
    const r = await repo();
    const a = await pilot(join(await scratchDir(), 'p.jsonl'), r);
    const b = await pilot(join(await scratchDir(), 'p.jsonl'), r);
    expect(await readFile(b.outs.paths.file, 'utf8')).toBe(await readFile(a.outs.paths.file, 'utf8'));
    expect(await readFile(b.outs.paths.discarded, 'utf8')).toBe(await readFile(a.outs.paths.discarded, 'utf8'));
    const validated: string[] = [];
    const c = await pilot(a.outs.paths.file, r, { resume: true, validated });
    expect(validated).toEqual([]);
    expect(c.result.skipped).toBe(5);
    expect((await readJsonLines(a.outs.paths.file)).length).toBe(3);
  }, 60_000);

  it('levelRefinement moves mutation statements by one level', () => {
    const c = candidate('/x', 'mutation-a', 'b', { source: 'mutation', meta: { statementLevels: ['a', 'b', 'c'], level: 1 } });
    expect(levelRefinement(c, 'easier')).toEqual({ statement: 'c', meta: { statementLevels: ['a', 'b', 'c'], level: 2 } });
    expect(levelRefinement(c, 'harder')).toEqual({ statement: 'a', meta: { statementLevels: ['a', 'b', 'c'], level: 0 } });
    expect(levelRefinement({ ...c, meta: { statementLevels: ['a', 'b', 'c'], level: 2 } }, 'easier')).toBeNull();
    expect(levelRefinement({ ...c, meta: undefined }, 'easier')).toBeNull();
  });
});
