import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { DIGIT_TOKENS as K, digitAnswer, type DigitTask, hintCount, MAX_SPECIFICITY } from './digitTask.js';
import { DigitTaskFamily } from './digitTasks.js';
import { type Episode, verifyEpisode } from './environment.js';

const d = (...xs: number[]) => xs.map((x) => K.digit0 + x);
const task = (over: Partial<DigitTask> = {}): DigitTask => ({ id: 't', op: 'reverse', digits: [3, 1, 4], specificity: 1, ...over });
const ep = (prompt: number[], turns: Episode['turns'], stop: Episode['stop'] = 'end'): Episode => ({ prompt, turns, stop });

describe('digit tasks: hidden test and statements', () => {
  const fam = new DigitTaskFamily({ ops: ['reverse', 'sort', 'rotate', 'copy'] });
  it('computes the four operations', () => {
    expect(digitAnswer('reverse', [3, 1, 4])).toEqual([4, 1, 3]);
    expect(digitAnswer('sort', [3, 1, 4, 1])).toEqual([1, 1, 3, 4]);
    expect(digitAnswer('rotate', [3, 1, 4])).toEqual([1, 4, 3]);
    expect(digitAnswer('copy', [3, 1, 4])).toEqual([3, 1, 4]);
  });
  it('hint counts per level (capped at L - 1)', () => {
    expect([0, 1, 2, 3, 4].map((l) => hintCount(l, 6))).toEqual([0, 0, 1, 3, 5]);
    expect([0, 1, 2, 3, 4].map((l) => hintCount(l, 2))).toEqual([0, 0, 1, 1, 1]);
  });
  it('renders the five specificity levels of the same task (Fig. 5: same hidden test, other statement)', () => {
    const t = task({ digits: [3, 1, 4, 1] }); // reverse -> 1 4 1 3
    expect(fam.prompt({ ...t, specificity: 0 })).toEqual([K.unknownOp, ...d(3, 1, 4, 1), K.eq]);
    expect(fam.prompt({ ...t, specificity: 1 })).toEqual([K.reverse, ...d(3, 1, 4, 1), K.eq]);
    expect(fam.prompt({ ...t, specificity: 2 })).toEqual([K.reverse, ...d(3, 1, 4, 1), K.eq, ...d(1)]);
    expect(fam.prompt({ ...t, specificity: 3 })).toEqual([K.reverse, ...d(3, 1, 4, 1), K.eq, ...d(1, 4)]);
    expect(fam.prompt({ ...t, specificity: 4 })).toEqual([K.reverse, ...d(3, 1, 4, 1), K.eq, ...d(1, 4, 1)]);
    // what is left to write shrinks, the full answer (prompt hint + written) is the same
    for (let s = 0; s <= MAX_SPECIFICITY; s++) {
      const tt = { ...t, specificity: s };
      const hint = fam.prompt(tt).slice(6);
      expect([...hint, ...fam.expected(tt)]).toEqual(d(1, 4, 1, 3));
    }
    expect(fam.describe(t)).toBe('R 3 1 4 1 = | reverse, L=4, terse');
  });
  it('limits: the answer, its terminator and the slack; turns from the tool option', () => {
    expect(fam.limits(task())).toEqual({ maxNewTokens: 3 + 1 + 2, maxTurns: 2 });
    expect(new DigitTaskFamily({ checkTool: false }).limits(task())).toEqual({ maxNewTokens: 6, maxTurns: 1 });
    expect(new DigitTaskFamily({ checkTool: false }).toolCallToken).toBeUndefined();
  });
  it('rejects a malformed task', () => expectFrognanoError(() => fam.prompt({ ...task(), digits: [12] }), 'INVALID_TYPE', 'task'));
  it('rejects maxLength < minLength', () => expectFrognanoError(() => new DigitTaskFamily({ minLength: 5, maxLength: 3 }), 'OUT_OF_RANGE', 'maxLength'));
  it('rejects all-zero specificity weights', () =>
    expectFrognanoError(() => new DigitTaskFamily({ specificityWeights: [0, 0, 0, 0, 0] }), 'OUT_OF_RANGE', 'specificityWeights'));
  it('rejects an unknown option', () => expectFrognanoError(() => new DigitTaskFamily({ lenght: 3 } as never), 'INVALID_TYPE', 'lenght'));
});

describe('digit tasks: grading, the check tool, the verifier', () => {
  const fam = new DigitTaskFamily();
  const t = task(); // reverse 3 1 4 -> 4 1 3
  const p = fam.prompt(t);
  it('a direct correct answer passes, a wrong one fails', () => {
    const ok = ep(p, [{ assistant: [...d(4, 1, 3), K.end], end: 'end', observation: [] }]);
    expect(verifyEpisode(fam, t, ok)).toEqual({ success: true, truncated: false, reason: null, assistantTokens: 4 });
    const bad = ep(p, [{ assistant: [...d(1, 3, 4), K.end], end: 'end', observation: [] }]);
    expect(verifyEpisode(fam, t, bad).success).toBe(false);
    const long = ep(p, [{ assistant: [...d(4, 1, 3, 3), K.end], end: 'end', observation: [] }]);
    expect(verifyEpisode(fam, t, long).success).toBe(false);
  });
  it('the tool answers + or - for the last turn', () => {
    expect(fam.respond(t, ep(p, [{ assistant: [...d(4, 1, 3), K.call], end: 'tool', observation: [] }]))).toEqual([K.ok]);
    expect(fam.respond(t, ep(p, [{ assistant: [...d(1, 3, 4), K.call], end: 'tool', observation: [] }]))).toEqual([K.no]);
  });
  it('grades the last non-empty answer: check then end, and a retry after -', () => {
    const checked = ep(p, [
      { assistant: [...d(4, 1, 3), K.call], end: 'tool', observation: [K.ok] },
      { assistant: [K.end], end: 'end', observation: [] },
    ]);
    expect(verifyEpisode(fam, t, checked)).toEqual({ success: true, truncated: false, reason: null, assistantTokens: 5 });
    const retried = ep(p, [
      { assistant: [...d(1, 3, 4), K.call], end: 'tool', observation: [K.no] },
      { assistant: [...d(4, 1, 3), K.end], end: 'end', observation: [] },
    ]);
    expect(verifyEpisode(fam, t, retried).success).toBe(true);
  });
  it('a correct answer checked in the last allowed turn is a truncated success (max-turns)', () => {
    const e = ep(
      p,
      [
        { assistant: [...d(1, 3, 4), K.call], end: 'tool', observation: [K.no] },
        { assistant: [...d(4, 1, 3), K.call], end: 'tool', observation: [K.ok] },
      ],
      'max-turns',
    );
    expect(verifyEpisode(fam, t, e)).toEqual({ success: true, truncated: true, reason: 'max-turns', assistantTokens: 8 });
  });
  it('a turn cut by the token budget is graded as written', () => {
    const e = ep(p, [{ assistant: d(4, 1, 3, 3, 3, 3), end: 'max-new-tokens', observation: [] }], 'max-new-tokens');
    expect(verifyEpisode(fam, t, e)).toEqual({ success: false, truncated: true, reason: 'max-new-tokens', assistantTokens: 6 });
    const wall = ep(p, [{ assistant: d(4, 1, 3), end: 'wall-time', observation: [] }], 'wall-time');
    expect(verifyEpisode(fam, t, wall)).toMatchObject({ success: true, truncated: true, reason: 'wall-time' });
  });
  it('no answer at all fails', () => expect(fam.grade(t, ep(p, [], 'context'))).toBe(false));
});

describe('digit tasks: generation, refinement, demonstrations', () => {
  it('samples within the knobs, deterministically for a seed', () => {
    const fam = new DigitTaskFamily({ minLength: 3, maxLength: 4, ops: ['sort'] });
    const a = Array.from({ length: 50 }, ((r) => () => fam.sample(r))(seedrandom('x')));
    const b = Array.from({ length: 50 }, ((r) => () => fam.sample(r))(seedrandom('x')));
    expect(a).toEqual(b);
    for (const t of a) {
      expect(t.op).toBe('sort');
      expect(t.digits.length).toBeGreaterThanOrEqual(3);
      expect(t.digits.length).toBeLessThanOrEqual(4);
      expect(t.specificity).toBeGreaterThanOrEqual(0);
      expect(t.specificity).toBeLessThanOrEqual(MAX_SPECIFICITY);
    }
    const only = new DigitTaskFamily({ specificityWeights: [0, 1, 0, 0, 0] });
    const r = seedrandom('y');
    for (let i = 0; i < 20; i++) expect(only.sample(r).specificity).toBe(1);
  });
  it('statement-first refinement keeps the input (the hidden test) and moves the level', () => {
    const fam = new DigitTaskFamily({ minLength: 2, maxLength: 5 });
    const r = seedrandom('z');
    const t = task({ specificity: 2 });
    expect(fam.rewrite(t, 'easier', r)).toEqual({ ...t, id: 't.r1', specificity: 3 });
    expect(fam.rewrite(t, 'harder', r)).toEqual({ ...t, id: 't.r1', specificity: 1 });
    expect(fam.rewrite({ ...t, id: 't.r1' }, 'harder', r)!.id).toBe('t.r2');
    // at the bounds, the difficulty moves
    expect(fam.rewrite({ ...t, specificity: 4 }, 'easier', r)).toMatchObject({ specificity: 4, digits: [3, 1] });
    const longer = fam.rewrite({ ...t, specificity: 0 }, 'harder', r)!;
    expect(longer.digits.slice(0, 3)).toEqual([3, 1, 4]);
    expect(longer.digits).toHaveLength(4);
    // neither knob can move
    expect(fam.rewrite({ ...t, digits: [1, 2], specificity: 4 }, 'easier', r)).toBeNull();
    expect(fam.rewrite({ ...t, digits: [1, 2, 3, 4, 5], specificity: 0 }, 'harder', r)).toBeNull();
  });
  it('difficulty-first refinement moves the length first', () => {
    const fam = new DigitTaskFamily({ minLength: 2, maxLength: 5, refineFirst: 'difficulty' });
    const r = seedrandom('w');
    expect(fam.rewrite(task(), 'easier', r)).toMatchObject({ digits: [3, 1], specificity: 1 });
    expect(fam.rewrite(task({ digits: [1, 2] }), 'easier', r)).toMatchObject({ digits: [1, 2], specificity: 2 });
  });
  it('held-out tasks are terse, cover every length and do not depend on anything but their seed', () => {
    const fam = new DigitTaskFamily({ minLength: 2, maxLength: 5 });
    const h = fam.heldOut(8, 3);
    expect(h.map((t) => t.digits.length)).toEqual([2, 3, 4, 5, 2, 3, 4, 5]);
    expect(h.every((t) => t.specificity === 1)).toBe(true);
    expect(new DigitTaskFamily({ minLength: 2, maxLength: 5 }).heldOut(8, 3)).toEqual(h);
    expect(fam.heldOut(8, 4)).not.toEqual(h);
  });
  it('demonstrations: assistant tokens trained, statement and observations not; the sloppy solver misreads and checks', () => {
    const fam = new DigitTaskFamily({ ops: ['reverse', 'sort'], demoMisreadRate: 0.5, demoCheckRate: 0.5 });
    const demos = fam.demonstrations(400, 1);
    let misreadFinal = 0;
    let checks = 0;
    for (const x of demos) {
      expect(x.lossMask).toHaveLength(x.tokens.length);
      const eq = x.tokens.indexOf(K.eq);
      for (let i = 0; i <= eq; i++) expect(x.lossMask[i]).toBe(0);
      x.tokens.forEach((tok, i) => {
        if (tok === K.ok || tok === K.no) expect(x.lossMask[i]).toBe(0);
        if (tok === K.end || tok === K.call) expect(x.lossMask[i]).toBe(1);
      });
      expect(x.tokens.at(-1)).toBe(K.end);
      if (x.tokens.includes(K.call)) checks++;
    }
    // a perfect solver never misreads
    const exact = new DigitTaskFamily({ demoMisreadRate: 0, demoCheckRate: 0 });
    const r = seedrandom('d');
    for (let i = 0; i < 50; i++) {
      const t = exact.sample(r);
      const demo = exact.demonstration(t, r);
      expect(demo.tokens.slice(exact.prompt(t).length)).toEqual([...exact.expected(t), K.end]);
    }
    const r2 = seedrandom('e');
    for (let i = 0; i < 300; i++) {
      const t = { ...fam.sample(r2), specificity: 1 };
      const demo = fam.demonstration(t, r2);
      const written = demo.tokens.slice(fam.prompt(t).length);
      if (!written.includes(K.call) && written.slice(0, -1).join() !== fam.expected(t).join()) misreadFinal++;
    }
    expect(checks / demos.length).toBeGreaterThan(0.4);
    expect(checks / demos.length).toBeLessThan(0.6);
    // about misread * (1 - check) = 0.25 end with a wrong answer (less when both operations agree)
    expect(misreadFinal / 300).toBeGreaterThan(0.12);
    expect(misreadFinal / 300).toBeLessThan(0.35);
  });
});

/** Issue 12 (fuzz): the pure helpers of the digit family and the verifier check their input. */
describe('digitAnswer / hintCount / verifyEpisode: bad input', () => {
  it("digitAnswer('reverse', 5) is INVALID_TYPE naming digits", () =>
    expect(expectFrognanoError(() => digitAnswer('reverse', 5 as never), 'INVALID_TYPE', 'digitAnswer').field).toBe('digits'));
  it("digitAnswer('sort', [Infinity, 1]) is NON_FINITE naming digits[0]", () =>
    expect(expectFrognanoError(() => digitAnswer('sort', [Infinity, 1]), 'NON_FINITE').field).toBe('digits[0]'));
  it("digitAnswer('copy', [3, 12]) is OUT_OF_RANGE naming digits[1]", () => expect(expectFrognanoError(() => digitAnswer('copy', [3, 12]), 'OUT_OF_RANGE').field).toBe('digits[1]'));
  it("digitAnswer('copy', [0.5]) is OUT_OF_RANGE", () => expect(expectFrognanoError(() => digitAnswer('copy', [0.5]), 'OUT_OF_RANGE').field).toBe('digits[0]'));
  it('digitAnswer with an unknown op is INVALID_TYPE naming op', () => expect(expectFrognanoError(() => digitAnswer('shuffle' as never, [1]), 'INVALID_TYPE').field).toBe('op'));
  it('digitAnswer with a hole is INVALID_TYPE naming it', () => expect(expectFrognanoError(() => digitAnswer('copy', [1, , 2] as never), 'INVALID_TYPE').field).toBe('digits[1]'));
  it("digitAnswer('rotate', []) is []", () => expect(digitAnswer('rotate', [])).toEqual([]));
  it('hintCount(3, NaN) is NON_FINITE naming L', () => expect(expectFrognanoError(() => hintCount(3, NaN), 'NON_FINITE', 'hintCount').field).toBe('L'));
  it('hintCount(3, Infinity) is NON_FINITE naming L', () => expect(expectFrognanoError(() => hintCount(3, Infinity), 'NON_FINITE').field).toBe('L'));
  it('hintCount({}, 6) is INVALID_TYPE naming level', () => expect(expectFrognanoError(() => hintCount({} as never, 6), 'INVALID_TYPE').field).toBe('level'));
  it('hintCount(5, 6) is OUT_OF_RANGE naming level', () => expect(expectFrognanoError(() => hintCount(5, 6), 'OUT_OF_RANGE').field).toBe('level'));
  it('hintCount(1.5, 6) is OUT_OF_RANGE naming level', () => expect(expectFrognanoError(() => hintCount(1.5, 6), 'OUT_OF_RANGE').field).toBe('level'));
  it('hintCount(3, 0) is OUT_OF_RANGE naming L', () => expect(expectFrognanoError(() => hintCount(3, 0), 'OUT_OF_RANGE').field).toBe('L'));
  const fam = new DigitTaskFamily();
  const t = task();
  it('verifyEpisode with turns: 5 is INVALID_TYPE naming episode.turns', () =>
    expect(expectFrognanoError(() => verifyEpisode(fam, t, { prompt: [2], turns: 5, stop: 'end' } as never), 'INVALID_TYPE', 'verifyEpisode').field).toBe('episode.turns'));
  it('verifyEpisode with an assistant that is not an array is INVALID_TYPE naming it (not assistantTokens: NaN)', () => {
    const e = expectFrognanoError(() => verifyEpisode(fam, t, { prompt: [2], turns: [{ assistant: 5, end: 'end', observation: [] }], stop: 'end' } as never), 'INVALID_TYPE');
    expect(e.field).toBe('episode.turns[0].assistant');
    expect(e.index).toEqual([0]);
  });
  it('verifyEpisode with a null turn is INVALID_TYPE naming it', () =>
    expect(expectFrognanoError(() => verifyEpisode(fam, t, { prompt: [2], turns: [null], stop: 'end' } as never), 'INVALID_TYPE').field).toBe('episode.turns[0]'));
  it('verifyEpisode with an unknown stop is INVALID_TYPE naming episode.stop', () =>
    expect(expectFrognanoError(() => verifyEpisode(fam, t, { prompt: [2], turns: [], stop: 'later' } as never), 'INVALID_TYPE').field).toBe('episode.stop'));
  it('verifyEpisode with a null episode is INVALID_TYPE naming episode', () => expect(expectFrognanoError(() => verifyEpisode(fam, t, null as never), 'INVALID_TYPE').field).toBe('episode'));
  it('verifyEpisode with an env without grade is INVALID_TYPE naming env', () =>
    expect(expectFrognanoError(() => verifyEpisode({} as never, t, { prompt: [], turns: [], stop: 'end' }), 'INVALID_TYPE').field).toBe('env'));
  it('verifyEpisode with a grade returning a number is INVALID_TYPE naming env.grade', () =>
    expect(expectFrognanoError(() => verifyEpisode({ grade: () => 1 } as never, t, { prompt: [], turns: [], stop: 'end' }), 'INVALID_TYPE').field).toBe('env.grade'));
});
