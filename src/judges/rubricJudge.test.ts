import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Script, useScriptedChat } from '../../test/helpers/chatServer.js';
import { expectFrognanoError, expectFrognanoErrorAsync } from '../../test/helpers/expectError.js';
import { buildRubricChecklist } from './buildRubricChecklist.js';
import { judgeWithRubric } from './judgeWithRubric.js';
import { RUBRIC_DIMENSION_WEIGHTS, RUBRIC_DIMENSIONS } from './rubricItems.js';
import { rubricRankingAgreement } from './rubricRankingAgreement.js';
import { rubricScore } from './rubricScore.js';

const chat = useScriptedChat('judge');
const model = (script: Script) => chat.model(script);

describe('rubricScore', () => {
  it('the paper dimension shares as weights, normalised over the dimensions present', () => {
    const r = rubricScore([
      { dimension: 'functional', verdict: 'pass' },
      { dimension: 'functional', verdict: 'fail' },
      { dimension: 'visual', verdict: 'pass' },
    ]);
    expect(r.score).toBeCloseTo((100 * (0.377 * 0.5 + 0.133)) / (0.377 + 0.133), 12);
    expect(r.score).toBeCloseTo(63.03921568627451, 12);
    expect(r.byDimension.functional).toEqual({ items: 2, value: 0.5 });
    expect(r.byDimension.layout).toEqual({ items: 0, value: null });
  });
  it('partial counts 1/2; weighting: item is the plain item mean', () => {
    const items = [
      { dimension: 'functional' as const, verdict: 'partial' as const },
      { dimension: 'ux' as const, verdict: 'pass' as const },
      { dimension: 'ux' as const, verdict: 'pass' as const },
    ];
    expect(rubricScore(items, { weighting: 'item' }).score).toBeCloseTo((100 * 2.5) / 3, 12);
    expect(rubricScore(items).score).toBeCloseTo((100 * (0.377 * 0.5 + 0.093)) / 0.47, 12);
    expect(rubricScore(items, { weights: { functional: 1, ux: 1 } }).score).toBeCloseTo(75, 12);
  });
  it('the weights are the paper shares (sum 0.994)', () => {
    expect(RUBRIC_DIMENSIONS.reduce((s, d) => s + RUBRIC_DIMENSION_WEIGHTS[d], 0)).toBeCloseTo(0.994, 12);
  });
  it('property: the score lies in [0, 100] and is 100 exactly when every item passes', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('pass' as const, 'partial' as const, 'fail' as const), { minLength: 6, maxLength: 6 }), (vs) => {
        const items = RUBRIC_DIMENSIONS.map((d, i) => ({ dimension: d, verdict: vs[i]! }));
        const s = rubricScore(items).score;
        expect(s).toBeGreaterThanOrEqual(0);
        expect(s).toBeLessThanOrEqual(100);
        expect(s === 100).toBe(vs.every((v) => v === 'pass'));
      }),
    );
  });
  it('rejects no item', () => expectFrognanoError(() => rubricScore([]), 'EMPTY_INPUT', 'items'));
  it('rejects an unknown dimension', () => expectFrognanoError(() => rubricScore([{ dimension: 'speed' as never, verdict: 'pass' }]), 'INVALID_TYPE', 'items[0].dimension'));
  it('rejects a negative weight', () => expectFrognanoError(() => rubricScore([{ dimension: 'ux', verdict: 'pass' }], { weights: { ux: -1 } }), 'OUT_OF_RANGE', 'opts.weights.ux'));
  it('rejects all-zero weights of the present dimensions', () => expectFrognanoError(() => rubricScore([{ dimension: 'ux', verdict: 'pass' }], { weights: { ux: 0 } }), 'OUT_OF_RANGE', 'opts.weights'));
});

const checklist = [
  { id: 'R1', dimension: 'functional' as const, description: 'Add button appends an item' },
  { id: 'R2', dimension: 'visual' as const, description: 'Uses a dark theme' },
  { id: 'R3', dimension: 'technical' as const, description: 'No console errors' },
];
const input = { task: 'A todo app', sourceCode: '<button id="add">Add</button>', checklist };

describe('judgeWithRubric', () => {
  it('asks for a verdict per item and scores them', async () => {
    const m = await model(['{"items": [{"id": "R3", "verdict": "pass", "reason": "ok"}, {"id": "R1", "verdict": "fail", "reason": "no handler"}, {"id": "R2", "verdict": "partial", "reason": "grey"}]}']);
    const r = await judgeWithRubric({ ...input, screenshots: ['data:image/png;base64,AAAA'] }, { model: m, strictness: 'strict' });
    expect(r.items.map((x) => x.verdict)).toEqual(['fail', 'partial', 'pass']);
    expect(r.score).toBeCloseTo((100 * (0.133 * 0.5 + 0.072)) / (0.377 + 0.133 + 0.072), 12);
    const msgs = chat.server.requests[0]!.body.messages!;
    expect(msgs[0]!.content).toContain('Be strict');
    const parts = msgs[1]!.content as { type: string }[];
    expect(parts.map((p) => p.type)).toEqual(['text', 'image_url']);
  });
  it('a missing or invented item id is malformed and asked again', async () => {
    const m = await model([
      '{"items": [{"id": "R1", "verdict": "pass", "reason": ""}]}',
      '{"items": [{"id": "R1", "verdict": "pass", "reason": ""}, {"id": "R2", "verdict": "pass", "reason": ""}, {"id": "R9", "verdict": "pass", "reason": ""}]}',
      '{"items": [{"id": "R1", "verdict": "pass", "reason": ""}, {"id": "R2", "verdict": "pass", "reason": ""}, {"id": "R3", "verdict": "pass", "reason": ""}]}',
    ]);
    const r = await judgeWithRubric(input, { model: m });
    expect(r.score).toBeCloseTo(100, 12);
    expect(chat.server.requests).toHaveLength(3);
  });
  it('rejects a repeated checklist id', async () => {
    const m = await model([]);
    await expectFrognanoErrorAsync(() => judgeWithRubric({ ...input, checklist: [checklist[0]!, checklist[0]!] }, { model: m }), 'OUT_OF_RANGE', 'input.checklist[1].id');
  });
  it('rejects an empty checklist', async () => {
    const m = await model([]);
    // issue 15: an empty array is EMPTY_INPUT like every empty input (was OUT_OF_RANGE with zod's wording)
    await expectFrognanoErrorAsync(() => judgeWithRubric({ ...input, checklist: [] }, { model: m }), 'EMPTY_INPUT', 'input.checklist', 'at least 1');
  });
});

describe('buildRubricChecklist', () => {
  it('numbers the model items R1..Rn', async () => {
    const m = await model(['{"items": [{"dimension": "functional", "description": "Add works"}, {"dimension": "layout", "description": "Centered"}]}']);
    expect(await buildRubricChecklist('A todo app', { model: m, targetItems: 2 })).toEqual([
      { id: 'R1', dimension: 'functional', description: 'Add works' },
      { id: 'R2', dimension: 'layout', description: 'Centered' },
    ]);
  });
  it('rejects an empty task', async () => {
    const m = await model([]);
    await expectFrognanoErrorAsync(() => buildRubricChecklist('  ', { model: m }), 'INVALID_TYPE', 'task');
  });
});

describe('rubricRankingAgreement', () => {
  it('pairwise Kendall tau of the configurations model rankings', () => {
    const r = rubricRankingAgreement({ 'max-default': [71, 64, 58], 'max-strict': [62, 51, 47], 'plus-default': [70, 58, 60] });
    expect(r.configs).toEqual(['max-default', 'max-strict', 'plus-default']);
    expect(r.tau[0]).toEqual([1, 1, expect.closeTo(1 / 3, 12)]);
    expect(r.tau[2]![0]).toBeCloseTo(1 / 3, 12);
    expect(r.minTau).toBeCloseTo(1 / 3, 12);
    expect(r.meanTau).toBeCloseTo((1 + 1 / 3 + 1 + 1 / 3 + 1 / 3 + 1 / 3) / 6, 12);
  });
  it('ties in the other configuration count 0; a constant reference gives null', () => {
    const r = rubricRankingAgreement({ a: [3, 2, 1], b: [5, 5, 1], c: [1, 1, 1] });
    expect(r.tau[0]![1]).toBeCloseTo(2 / 3, 12);
    expect(r.tau[2]![0]).toBeNull();
  });
  it('one configuration: no off-diagonal tau', () => expect(rubricRankingAgreement({ a: [1, 2] })).toEqual({ configs: ['a'], tau: [[1]], minTau: null, meanTau: null }));
  it('rejects no configuration', () => expectFrognanoError(() => rubricRankingAgreement({}), 'EMPTY_INPUT', 'scoresByConfig'));
  it('rejects different model counts', () => expectFrognanoError(() => rubricRankingAgreement({ a: [1, 2], b: [1, 2, 3] }), 'LENGTH_MISMATCH', 'scoresByConfig.b'));
  it('rejects a NaN score', () => expectFrognanoError(() => rubricRankingAgreement({ a: [1, NaN] }), 'NON_FINITE', 'scoresByConfig.a[1]'));
});
