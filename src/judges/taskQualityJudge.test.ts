import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Script, useScriptedChat } from '../../test/helpers/chatServer.js';
import { expectFrognanoError, expectFrognanoErrorAsync } from '../../test/helpers/expectError.js';
import { judgeTaskQuality } from './taskQualityJudge.js';
import { taskQualityMetrics } from './taskQualityMetrics.js';

const chat = useScriptedChat('judge');
const model = (script: Script) => chat.model(script);
const vote = (clear: boolean, align: boolean) => JSON.stringify({ instruct_clear: clear, instruct_ut_align: align, reasons: { instruct_clear: 'c', instruct_ut_align: 'a' } });
const task = {
  statement: 'Fix the typo in the error message of parse().',
  tests: "def test_msg():\n    assert str(err) == 'Invaild input'",
  goldPatch: "-raise ValueError('Invaild input')\n+raise ValueError('Invalid input')",
};

describe('judgeTaskQuality', () => {
  it('majority vote per dimension over n samples; overall_good = both', async () => {
    const m = await model([vote(true, false), vote(true, true), vote(false, false)]);
    const r = await judgeTaskQuality(task, { model: m, samples: 3 });
    expect(r.instructClear).toBe(true);
    expect(r.instructUtAlign).toBe(false);
    expect(r.overallGood).toBe(false);
    expect(r.votes).toHaveLength(3);
    expect(r.agreement.instructClear).toBeCloseTo(2 / 3, 12);
    expect(r.agreement.instructUtAlign).toBeCloseTo(2 / 3, 12);
    // sample k gets seed + k; temperature defaults to 0.7 for n > 1
    expect(chat.server.requests.map((q) => q.body.seed).sort()).toEqual([0, 1, 2]);
    expect(chat.server.requests.every((q) => q.body.temperature === 0.7)).toBe(true);
  });

  it('overall_good when both majorities hold; a single sample keeps the server temperature', async () => {
    const m = await model([vote(true, true)]);
    const r = await judgeTaskQuality(task, { model: m, samples: 1 });
    expect(r.overallGood).toBe(true);
    expect(chat.server.requests[0]!.body.temperature).toBeUndefined();
  });

  it('a tie (even samples) counts as false', async () => {
    const m = await model([vote(true, true), vote(false, true)]);
    const r = await judgeTaskQuality(task, { model: m, samples: 2 });
    expect(r.instructClear).toBe(false);
    expect(r.instructUtAlign).toBe(true);
    expect(r.agreement.instructClear).toBe(0.5);
  });

  it('shows few-shot examples as prior turns, and the gold patch unless useGoldPatch is false', async () => {
    const m = await model([vote(true, true), vote(true, true)]);
    const fewShot = [{ task: { statement: 'Make it faster.', tests: 'def test_x(): pass' }, label: { instructClear: false, instructUtAlign: false } }];
    await judgeTaskQuality(task, { model: m, samples: 1, fewShot });
    const msgs = chat.server.requests[0]!.body.messages!;
    expect(msgs.map((x) => x.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(JSON.parse(msgs[2]!.content as string)).toMatchObject({ instruct_clear: false, instruct_ut_align: false });
    expect(msgs[3]!.content).toContain('Ground-truth patch');
    await judgeTaskQuality(task, { model: m, samples: 1, useGoldPatch: false });
    expect(chat.server.requests[1]!.body.messages![1]!.content).not.toContain('Ground-truth patch');
  });

  it('a malformed sample is retried; it never votes', async () => {
    const m = await model(['{"instruct_clear": "yes"}', vote(false, false)]);
    const r = await judgeTaskQuality(task, { model: m, samples: 1 });
    expect(r.votes).toEqual([{ instructClear: false, instructUtAlign: false, reasons: { instructClear: 'c', instructUtAlign: 'a' } }]);
    expect(chat.server.requests).toHaveLength(2);
  });

  it('MODEL_ANSWER_INVALID when a sample stays malformed', async () => {
    const m = await model(() => 'not json');
    await expectFrognanoErrorAsync(() => judgeTaskQuality(task, { model: m, samples: 1, retries: 1 }), 'MODEL_ANSWER_INVALID', 'judgeTaskQuality');
  });
  it('rejects an empty statement', async () => {
    const m = await model([]);
    await expectFrognanoErrorAsync(() => judgeTaskQuality({ ...task, statement: '' }, { model: m }), 'OUT_OF_RANGE', 'task.statement');
  });
  it('rejects samples = 0', async () => {
    const m = await model([]);
    await expectFrognanoErrorAsync(() => judgeTaskQuality(task, { model: m, samples: 0 }), 'OUT_OF_RANGE', 'opts.samples');
  });
});

describe('taskQualityMetrics', () => {
  it('precision, recall, F1 and accuracy by hand', () => {
    // tp = 2 (0, 1), fp = 1 (2), fn = 1 (3), tn = 1 (4)
    const r = taskQualityMetrics([true, true, true, false, false], [true, true, false, true, false]);
    expect(r).toEqual({ precision: 2 / 3, recall: 2 / 3, f1: expect.closeTo(2 / 3, 12), accuracy: 0.6, tp: 2, fp: 1, fn: 1, tn: 1 });
  });
  it('positive: false scores the judge as a bad-task detector', () => {
    const r = taskQualityMetrics([true, true, true, false, false], [true, true, false, true, false], { positive: false });
    expect(r).toMatchObject({ tp: 1, fp: 1, fn: 1, tn: 2, precision: 0.5, recall: 0.5 });
  });
  it('zero denominators give 0, never NaN', () => {
    expect(taskQualityMetrics([false, false], [false, false])).toMatchObject({ precision: 0, recall: 0, f1: 0, accuracy: 1 });
  });
  it('property: F1 is the harmonic mean and lies between min and max of P and R', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.boolean()), { minLength: 1, maxLength: 30 }), (pairs) => {
        const r = taskQualityMetrics(pairs.map((p) => p[0]), pairs.map((p) => p[1]));
        expect(r.tp + r.fp + r.fn + r.tn).toBe(pairs.length);
        if (r.precision + r.recall > 0) {
          expect(r.f1).toBeLessThanOrEqual(Math.max(r.precision, r.recall) + 1e-12);
          expect(r.f1).toBeGreaterThanOrEqual(Math.min(r.precision, r.recall) - 1e-12);
        }
      }),
    );
  });
  it('rejects mismatched lengths', () => expectFrognanoError(() => taskQualityMetrics([true], [true, false]), 'LENGTH_MISMATCH', 'labels'));
  it('rejects a non-boolean prediction', () => expectFrognanoError(() => taskQualityMetrics([true, 1 as never], [true, true]), 'INVALID_TYPE', 'predictions[1]'));
  it('rejects empty input', () => expectFrognanoError(() => taskQualityMetrics([], []), 'EMPTY_INPUT', 'predictions'));
});
