import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadDurationGroup } from '../../test/fixtures/load.js';
import { firstUserText, lastUserText, type RecordedRequest, type Script, useScriptedChat } from '../../test/helpers/chatServer.js';
import { expectFrognanoError, expectFrognanoErrorAsync } from '../../test/helpers/expectError.js';
import { gagarAudit } from './gagarAudit.js';
import { gagarRedistribute } from './gagarRedistribute.js';
import { GAGAR_DIMENSIONS } from './gagarDimensions.js';
import { GAGAR_JUDGE_SYSTEM_PROMPT, GagarJudgeAnswerSchema, judgeGroupWithGagar } from './gagarJudge.js';

const chat = useScriptedChat('judge');
const model = (script: Script) => chat.model(script);

const group = loadDurationGroup(); // rewards [1, 1, 0, 0, 1]
const good = { approach: 5, precision: 5, minimality: 5, sideEffects: 5, consistency: 4 };
const meh = { approach: 4, precision: 4, minimality: 3, sideEffects: 4, consistency: 4 };
const bad = { approach: 1, precision: 2, minimality: 3, sideEffects: 2, consistency: 3 };

/** Which trajectory each label of the judge prompt shows, read from the prompt itself. */
function labels(req: RecordedRequest): Record<string, string> {
  const text = firstUserText(req);
  const out: Record<string, string> = {};
  for (const part of text.split('## Candidate ').slice(1)) {
    const label = part.slice(0, part.indexOf('\n'));
    out[label] = part.includes("if s == 'PT1H30M'") ? 'dur-2' : part.includes('git log --all') ? 'dur-5' : 'dur-1';
  }
  return out;
}

type Spec = Record<string, { tier: string; rank: number; scores: object; evidence?: object }>;
/** An answer giving each trajectory id its verdict, under the labels of this request. */
function answer(req: RecordedRequest, spec: Spec, omit: string[] = []): string {
  const candidates = Object.entries(labels(req))
    .filter(([, id]) => !omit.includes(id))
    .map(([label, id]) => ({ id: label, ...spec[id] }));
  return `Here is my judgment.\n\`\`\`json\n${JSON.stringify({ candidates })}\n\`\`\``;
}

const hackEvidence = {
  approach: [{ source: 'code', quote: "+    if s == 'PT1H30M':" }],
  precision: [{ source: 'code', quote: "return 5400" }],
  sideEffects: [{ source: 'trajectory', quote: 'The PT2H test still fails; remove it.' }],
  tier: [{ source: 'code', quote: "-    assert parse_duration('PT2H') == 7200" }],
};
const fullSpec: Spec = {
  'dur-1': { tier: 'T1', rank: 1, scores: good, evidence: { approach: [{ source: 'code', quote: '* 3600 + int(mi or 0) * 60' }] } },
  'dur-5': { tier: 'T2', rank: 1, scores: meh },
  'dur-2': { tier: 'T3', rank: 1, scores: bad, evidence: hackEvidence },
};

describe('judgeGroupWithGagar', () => {
  it('the prompt and the answer schema cover every GAGAR dimension', () => {
    for (const d of GAGAR_DIMENSIONS) expect(GAGAR_JUDGE_SYSTEM_PROMPT).toContain(`- ${d}: `);
    const scores = GagarJudgeAnswerSchema.shape.candidates.element.shape.scores;
    expect(Object.keys(scores.shape)).toEqual([...GAGAR_DIMENSIONS]);
  });
  it('trajectories -> judge -> coefficients -> redistributed advantages, in one call', async () => {
    const m = await model((req) => answer(req, fullSpec));
    const r = await judgeGroupWithGagar(group, { model: m });
    expect(chat.server.requests).toHaveLength(1);
    expect(r.rewards).toEqual([1, 1, 0, 0, 1]);
    expect(r.successes).toEqual([0, 1, 4]);
    expect(r.verdicts.map((v) => v?.tier ?? null)).toEqual(['T1', 'T3', null, null, 'T2']);
    expect(r.coefficients).toEqual([1, 0.2, null, null, 0.85]);
    // A = R - 0.6 = [0.4, 0.4, -0.6, -0.6, 0.4]; lambda = 1.2 / (0.4 (1 + 0.2 + 0.85)) = 1.4634 <= 1.5
    const lambda = 1.2 / (0.4 * 2.05);
    expect(r.redistribution.lambda).toBeCloseTo(lambda, 12);
    expect(r.redistribution.capped).toBe(false);
    const want = [lambda * 0.4, lambda * 0.2 * 0.4, -0.6, -0.6, lambda * 0.85 * 0.4];
    r.advantages.forEach((a, i) => expect(a).toBeCloseTo(want[i]!, 12));
    expect(r.advantages).toEqual(gagarRedistribute([1, 1, 0, 0, 1], [1, 0.2, null, null, 0.85]));
    // verdict details and audit
    const v1 = r.verdicts[1]!;
    expect(v1.trajectoryId).toBe('dur-2');
    expect(v1.weightedScore).toBeCloseTo(0.3 * 1 + 0.25 * 2 + 0.2 * 3 + 0.15 * 2 + 0.1 * 3, 12);
    expect(v1.evidence.tier).toEqual([{ source: 'code', quote: "-    assert parse_duration('PT2H') == 7200" }]);
    expect(r.audit!.winRates).toEqual([1, 0, null, null, 0.5]);
    expect(r.audit!.rank1Shares).toEqual([1, 0, null, null, 0]);
    expect(r.audit!.meanWeightedScore).toBeCloseTo((r.verdicts[0]!.weightedScore + v1.weightedScore + r.verdicts[4]!.weightedScore) / 3, 12);
  });

  it('the prompt carries the task, the condensed trajectory, the diff and the test output of every success only', async () => {
    const m = await model((req) => answer(req, fullSpec));
    await judgeGroupWithGagar(group, { model: m, complete: { temperature: 0 } });
    const req = chat.server.requests[0]!;
    expect(req.body.temperature).toBe(0);
    expect(req.body.messages![0]!.role).toBe('system');
    const text = lastUserText(req);
    expect(text).toContain("parse_duration('PT1H30M') returns 90");
    expect(text.match(/## Candidate C\d/g)).toHaveLength(3);
    expect(text).toContain('-> edit tests/test_duration.py');
    expect(text).toContain('PASS tests/test_duration.py::test_hours_minutes');
    expect(text).toContain('$ python -m pytest -q tests/test_duration.py');
    expect(text).not.toContain('3630 == 5400'); // dur-3 failed: not judged
    expect(text).not.toContain('You are Leaf'); // the system prompt of the agent is left out
  });

  it('an evidence-free negative judgment is refused and asked again; its numbers never reach the result', async () => {
    const noEvidence: Spec = { 'dur-1': { tier: 'T2', rank: 2, scores: meh }, 'dur-5': { tier: 'T2', rank: 1, scores: meh }, 'dur-2': { tier: 'T3', rank: 1, scores: bad } };
    const m = await model((req, k) => answer(req, k === 0 ? noEvidence : fullSpec));
    const r = await judgeGroupWithGagar(group, { model: m });
    expect(chat.server.requests).toHaveLength(2);
    expect(lastUserText(chat.server.requests[1]!)).toMatch(/rejected: candidate C\d scores approach=1 without evidence/);
    expect(r.coefficients).toEqual([1, 0.2, null, null, 0.85]);
  });

  it('a quote that does not occur in the material is no evidence', async () => {
    const invented: Spec = { ...fullSpec, 'dur-2': { tier: 'T3', rank: 1, scores: { ...good, approach: 4 }, evidence: { tier: [{ source: 'code', quote: 'rm -rf tests/' }] } } };
    const m = await model((req, k) => answer(req, k === 0 ? invented : fullSpec));
    const r = await judgeGroupWithGagar(group, { model: m });
    expect(chat.server.requests).toHaveLength(2);
    expect(lastUserText(chat.server.requests[1]!)).toMatch(/is T3 without evidence/);
    expect(r.verdicts[1]!.scores.approach).toBe(1);
  });

  it('a quote from the wrong source is no evidence (the diff quote cited as test output)', async () => {
    const wrongSource: Spec = { ...fullSpec, 'dur-2': { ...fullSpec['dur-2']!, evidence: { ...hackEvidence, tier: [{ source: 'test', quote: "-    assert parse_duration('PT2H') == 7200" }] } } };
    const m = await model((req, k) => answer(req, k === 0 ? wrongSource : fullSpec));
    await judgeGroupWithGagar(group, { model: m });
    expect(chat.server.requests).toHaveLength(2);
  });

  it('refuses T1 with a dimension below 4, a missing candidate and malformed JSON', async () => {
    const badT1: Spec = { ...fullSpec, 'dur-5': { tier: 'T1', rank: 2, scores: meh } };
    const m = await model((req, k) => [answer(req, badT1), answer(req, fullSpec, ['dur-5']), '{"candidates": [', answer(req, fullSpec)][k]!);
    const r = await judgeGroupWithGagar(group, { model: m, retries: 3 });
    expect(chat.server.requests).toHaveLength(4);
    const reasons = chat.server.requests.slice(1).map((q) => lastUserText(q));
    expect(reasons[0]).toMatch(/is T1 but scores minimality=3/);
    expect(reasons[1]).toMatch(/missing: list every candidate exactly once/);
    expect(reasons[2]).toMatch(/unbalanced|no JSON/);
    expect(r.coefficients[4]).toBe(0.85);
  });

  it('fails with MODEL_ANSWER_INVALID when every answer is evidence-free: no numbers at all', async () => {
    const m = await model((req) => answer(req, { ...fullSpec, 'dur-2': { tier: 'T3', rank: 1, scores: good } }));
    await expectFrognanoErrorAsync(() => judgeGroupWithGagar(group, { model: m, retries: 1 }), 'MODEL_ANSWER_INVALID', 'judgeGroupWithGagar', '2 attempt(s)', 'T3 without evidence');
    expect(chat.server.requests).toHaveLength(2);
  });

  it('a transient 500 is retried by the client, transparently', async () => {
    const m = await model((req, k) => (k === 0 ? { status: 500 } : answer(req, fullSpec)));
    const r = await judgeGroupWithGagar(group, { model: m });
    expect(r.coefficients).toEqual([1, 0.2, null, null, 0.85]);
  });

  it('a slow judge times out and the call is retried', async () => {
    const m = await chat.model((req, k) => (k === 0 ? { hang: true } : answer(req, fullSpec)), { timeoutMs: 150 });
    const r = await judgeGroupWithGagar(group, { model: m });
    expect(chat.server.requests).toHaveLength(2);
    expect(r.coefficients).toEqual([1, 0.2, null, null, 0.85]);
  });

  it('no success (or all equal) -> no model call; advantages as gagarRedistribute', async () => {
    const m = await model([]);
    const fails = [group[2]!, group[3]!];
    const r = await judgeGroupWithGagar(fails, { model: m });
    expect(chat.server.requests).toHaveLength(0);
    expect(r.advantages).toEqual([0, 0]);
    expect(r.redistribution.kept).toBe(false);
    expect(r.audit).toBeNull();
    const r2 = await judgeGroupWithGagar([group[0]!, group[4]!], { model: m });
    expect(r2.advantages).toEqual([0, 0]);
    expect(chat.server.requests).toHaveLength(0);
  });

  it('a single T3 success: the cap binds (lambda = 5 > 1.5) and the group is re-centred', async () => {
    const m = await model((req) => answer(req, fullSpec));
    const r = await judgeGroupWithGagar([group[1]!, group[2]!], { model: m });
    expect(r.coefficients).toEqual([0.2, null]);
    expect(r.redistribution.lambda).toBeCloseTo(5, 12);
    expect(r.redistribution.capped).toBe(true);
    expect(r.advantages).toEqual(gagarRedistribute([1, 0], [0.2, null]));
    expect(r.audit!.winRates).toEqual([null, null]);
  });

  it('opts.rewards replaces the outcomes (e.g. shaped rewards)', async () => {
    const m = await model((req) => answer(req, fullSpec));
    const r = await judgeGroupWithGagar([group[0]!, group[1]!, group[2]!], { model: m, rewards: [0.9, 0.3, 0], lambdaMax: Infinity });
    expect(r.successes).toEqual([0]); // mean 0.4: only 0.9 is above it
    expect(r.advantages).toEqual(gagarRedistribute([0.9, 0.3, 0], [1, null, null], { lambdaMax: Infinity }));
  });

  it('the seeded shuffle decides the order shown; shuffle: false keeps input order', async () => {
    const orders: string[][] = [];
    const m = await model((req) => {
      orders.push(Object.values(labels(req)));
      return answer(req, fullSpec);
    });
    await judgeGroupWithGagar(group, { model: m, seed: 1 });
    await judgeGroupWithGagar(group, { model: m, seed: 1 });
    await judgeGroupWithGagar(group, { model: m, shuffle: false });
    expect(orders[0]).toEqual(orders[1]);
    expect(orders[2]).toEqual(['dur-1', 'dur-2', 'dur-5']);
    const seen = new Set<string>();
    for (let s = 0; s < 8; s++) {
      await judgeGroupWithGagar(group, { model: m, seed: s });
      seen.add(orders[orders.length - 1]!.join());
    }
    expect(seen.size).toBeGreaterThan(1);
  });

  it('rejects an empty group', async () => {
    const m = await model([]);
    await expectFrognanoErrorAsync(() => judgeGroupWithGagar([], { model: m }), 'EMPTY_INPUT', 'trajectories');
  });
  it('rejects members of different tasks', async () => {
    const m = await model([]);
    const other = { ...group[1]!, task: { id: 'other', statement: 'x' } };
    await expectFrognanoErrorAsync(() => judgeGroupWithGagar([group[0]!, other], { model: m }), 'INVALID_TYPE', 'trajectories[1].task.id');
  });
  it('rejects a member without outcome when no rewards are given', async () => {
    const m = await model([]);
    const { outcome: _o, ...noOutcome } = group[1]!;
    await expectFrognanoErrorAsync(() => judgeGroupWithGagar([group[0]!, noOutcome], { model: m }), 'INVALID_TYPE', 'trajectories[1].outcome');
  });
  it('rejects rewards of the wrong length', async () => {
    const m = await model([]);
    await expectFrognanoErrorAsync(() => judgeGroupWithGagar(group, { model: m, rewards: [1, 0] }), 'LENGTH_MISMATCH', 'opts.rewards');
  });
  it('rejects a NaN reward', async () => {
    const m = await model([]);
    await expectFrognanoErrorAsync(() => judgeGroupWithGagar(group, { model: m, rewards: [1, NaN, 0, 0, 1] }), 'NON_FINITE', 'opts.rewards[1]');
  });
  it('rejects a DataView as rewards (INVALID_TYPE naming opts.rewards; it has no length)', async () => {
    const m = await model([]);
    const e = await expectFrognanoErrorAsync(() => judgeGroupWithGagar(group, { model: m, rewards: new DataView(new ArrayBuffer(40)) as never }), 'INVALID_TYPE', 'opts.rewards');
    expect(e.field).toBe('opts.rewards');
  });
  it('rejects lambdaMax < 1', async () => {
    const m = await model([]);
    await expectFrognanoErrorAsync(() => judgeGroupWithGagar(group, { model: m, lambdaMax: 0.5 }), 'OUT_OF_RANGE', 'opts.lambdaMax');
  });
  it('rejects a missing model', () => expectFrognanoErrorAsync(() => judgeGroupWithGagar(group, {} as never), 'INVALID_TYPE', 'opts.model'));
});

describe('gagarAudit', () => {
  const s = (a: number) => ({ approach: a, precision: a, minimality: a, sideEffects: a, consistency: a });
  it('weighted score, win rate (ties 1/2) and rank-1 share (ties split), per group and per label', () => {
    const r = gagarAudit([
      [
        { tier: 'T1', rank: 1, scores: s(5), label: 'gagar' },
        { tier: 'T1', rank: 1, scores: s(4), label: 'base' },
        { tier: 'T2', rank: 1, scores: s(3), label: 'base' },
      ],
      [
        { tier: 'T2', rank: 2, scores: s(3), label: 'gagar' },
        { tier: 'T2', rank: 1, scores: s(4), label: 'base' },
      ],
    ]);
    expect(r.groups[0]).toEqual({ weightedScores: [5, 4, 3].map((x) => expect.closeTo(x, 12)), winRates: [0.75, 0.75, 0], rank1Shares: [0.5, 0.5, 0] });
    expect(r.groups[1]).toEqual({ weightedScores: [expect.closeTo(3, 12), expect.closeTo(4, 12)], winRates: [0, 1], rank1Shares: [0, 1] });
    expect(r.weightedScore).toBeCloseTo(19 / 5, 12);
    expect(r.winRate).toBeCloseTo((0.75 + 0.75 + 0 + 0 + 1) / 5, 12);
    // gagar vs base only: group 1: tie with base T1 (0.5) and beats base T2 (1) -> 0.75; group 2: loses -> 0
    expect(r.byLabel.gagar).toEqual({ candidates: 2, groups: 2, weightedScore: expect.closeTo(4, 12), winRate: 0.375, rank1Share: 0.25 });
    // base: group 1 T1 ties gagar (0.5), base T2 loses to gagar (0); group 2 beats gagar (1)
    expect(r.byLabel.base).toEqual({ candidates: 3, groups: 2, weightedScore: expect.closeTo(11 / 3, 12), winRate: expect.closeTo(0.5, 12), rank1Share: 0.75 });
  });
  it('property: per group the rank-1 shares sum to 1 and the win rates average 1/2', () => {
    const cand = fc.record({ tier: fc.constantFrom('T1' as const, 'T2' as const, 'T3' as const), rank: fc.integer({ min: 1, max: 3 }), scores: fc.constant(s(3)) });
    fc.assert(
      fc.property(fc.array(cand, { minLength: 2, maxLength: 8 }), (g) => {
        const a = gagarAudit([g]).groups[0]!;
        expect(a.rank1Shares.reduce((x, y) => x + y, 0)).toBeCloseTo(1, 12);
        expect((a.winRates as number[]).reduce((x, y) => x + y, 0) / g.length).toBeCloseTo(0.5, 12);
      }),
    );
  });
  it('rejects no group', () => expectFrognanoError(() => gagarAudit([]), 'EMPTY_INPUT', 'groups'));
  it('rejects an empty group', () => expectFrognanoError(() => gagarAudit([[]]), 'EMPTY_INPUT', 'groups[0]'));
  it('rejects an unknown tier', () => expectFrognanoError(() => gagarAudit([[{ tier: 'T4', rank: 1, scores: s(3) } as never]]), 'INVALID_TYPE', 'groups[0][0].tier'));
});
