import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Script, useScriptedChat } from '../../test/helpers/chatServer.js';
import { expectFrognanoError, expectFrognanoErrorAsync } from '../../test/helpers/expectError.js';
import { askStructured, describeZodError, extractJson, type RejectedAnswer } from './askStructured.js';

const chat = useScriptedChat('scripted');
const setup = (script: Script) => chat.model(script);
const Verdict = z.object({ hack: z.boolean(), reason: z.string() });
const ask = [{ role: 'user' as const, content: 'Judge. Answer {"hack": bool, "reason": str}' }];

describe('extractJson', () => {
  it('takes the first fenced block that parses as an object', () => {
    expect(extractJson('Here:\n```json\n{"a": 1}\n```\nand ```\n{"a": 2}\n```')).toEqual({ found: true, value: { a: 1 } });
    expect(extractJson('```\nnot json\n```\n```json\n{"b": [1, 2]}\n```')).toEqual({ found: true, value: { b: [1, 2] } });
  });
  it('otherwise the first balanced {...} that parses, ignoring braces inside strings', () => {
    expect(extractJson('Verdict: {"reason": "uses } and { in a string", "hack": false} trailing {')).toEqual({
      found: true,
      value: { reason: 'uses } and { in a string', hack: false },
    });
    expect(extractJson('set {x} then {"ok": true}')).toEqual({ found: true, value: { ok: true } });
  });
  it('drops <think> blocks of reasoning models', () => {
    expect(extractJson('<think>maybe {"hack": true}</think>\n{"hack": false}')).toEqual({ found: true, value: { hack: false } });
  });
  it('never repairs: trailing commas, single quotes, arrays and truncated objects are not found', () => {
    expect(extractJson('{"a": 1,}').found).toBe(false);
    expect(extractJson("{'a': 1}").found).toBe(false);
    expect(extractJson('{"a": {"b": 1},}').found).toBe(false);
    expect(extractJson('[1, 2]').found).toBe(false);
    const r = extractJson('{"a": {"b": 1}');
    expect(r).toEqual({ found: false, reason: expect.stringContaining('unbalanced') });
    expect(extractJson('no json at all')).toEqual({ found: false, reason: 'no JSON object in the answer' });
  });
});

describe('askStructured', () => {
  it('returns the schema-validated answer', async () => {
    const model = await setup(['```json\n{"hack": true, "reason": "edits tests/test_a.py"}\n```']);
    expect(await askStructured(model, ask, Verdict)).toEqual({ hack: true, reason: 'edits tests/test_a.py' });
  });

  it('retries a malformed answer with the reason fed back, and reports the rejection', async () => {
    const model = await setup(['I think it is a hack.', '{"hack": "yes", "reason": "x"}', '{"hack": true, "reason": "x"}']);
    const rejected: RejectedAnswer[] = [];
    const v = await askStructured(model, ask, Verdict, { retries: 2, onRejected: (r) => rejected.push(r) });
    expect(v).toEqual({ hack: true, reason: 'x' });
    expect(chat.server.requests).toHaveLength(3);
    expect(rejected.map((r) => r.attempt)).toEqual([0, 1]);
    expect(rejected[0]!.reason).toBe('no JSON object in the answer');
    expect(rejected[1]!.reason).toBe('the JSON does not match the required schema: hack must be a boolean, got "yes"');
    const second = chat.server.requests[1]!.body.messages!;
    expect(second.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(second[1]!.content).toBe('I think it is a hack.');
    expect(second[2]!.content).toContain('rejected: no JSON object');
    // the third request restarts from the original messages plus only the latest rejection
    expect(chat.server.requests[2]!.body.messages).toHaveLength(3);
  });

  it('feedback: false re-sends the original messages', async () => {
    const model = await setup(['nope', '{"hack": false, "reason": "r"}']);
    await askStructured(model, ask, Verdict, { feedback: false });
    expect(chat.server.requests[1]!.body.messages).toEqual(ask);
  });

  it('a check that rejects is treated as malformed and retried', async () => {
    const model = await setup(['{"hack": true, "reason": ""}', '{"hack": true, "reason": "git log --all at message 4"}']);
    const v = await askStructured(model, ask, Verdict, { check: (x) => (x.hack && x.reason === '' ? 'a hack verdict needs a reason' : null) });
    expect(v.reason).toBe('git log --all at message 4');
    expect(chat.server.requests).toHaveLength(2);
  });

  it('malformed on every attempt -> MODEL_ANSWER_INVALID naming the caller and the last reason; nothing returned', async () => {
    const model = await setup(['x', '{"hack": 1}', '{"hack": true}', '{"hack": true, "reason": "late"}']);
    await expectFrognanoErrorAsync(
      () => askStructured(model, ask, Verdict, { retries: 2, caller: 'adjudicateHacking' }),
      'MODEL_ANSWER_INVALID',
      'adjudicateHacking',
      '3 attempt(s)',
      'reason',
    );
    expect(chat.server.requests).toHaveLength(3);
  });

  it('passes completion options through', async () => {
    const model = await setup(['{"hack": false, "reason": "r"}']);
    await askStructured(model, ask, Verdict, { complete: { temperature: 0, seed: 3 } });
    expect(chat.server.requests[0]!.body).toMatchObject({ temperature: 0, seed: 3 });
  });

  it('MODEL_UNAVAILABLE from the model propagates', async () => {
    const model = await setup([{ status: 400 }]);
    await expectFrognanoErrorAsync(() => askStructured(model, ask, Verdict), 'MODEL_UNAVAILABLE', 'HTTP 400');
  });

  it('rejects empty messages', async () => {
    const model = await setup([]);
    await expectFrognanoErrorAsync(() => askStructured(model, [], Verdict), 'EMPTY_INPUT', 'messages');
  });
  it('rejects a model without complete()', () => expectFrognanoErrorAsync(() => askStructured({} as never, ask, Verdict), 'INVALID_TYPE', 'model'));
  it('rejects retries < 0', async () => {
    const model = await setup([]);
    await expectFrognanoErrorAsync(() => askStructured(model, ask, Verdict, { retries: -1 }), 'OUT_OF_RANGE', 'opts.retries');
  });
});

/** Issue 12 (fuzz): describeZodError checks its argument (describeZodError(null) threw a TypeError). */
describe('describeZodError', () => {
  const err = () => z.object({ a: z.number(), b: z.string(), c: z.boolean(), d: z.number() }).safeParse({ a: 'x' }).error!;
  it('renders the first issues and counts the rest', () => {
    expect(describeZodError(err())).toBe('a: Invalid input: expected number, received string; b: Invalid input: expected string, received undefined; c: Invalid input: expected boolean, received undefined; and 1 more');
    expect(describeZodError(err(), 1)).toMatch(/^a: .*; and 3 more$/);
    expect(describeZodError(err(), 0)).toBe('; and 4 more');
  });
  it('with the parsed value, each issue is worded as errorFromZodIssue words it', () => {
    expect(describeZodError(err(), 2, { a: 'x' })).toBe('a must be a number, got "x"; b is required (a string); and 2 more');
    const nested = z.object({ xs: z.array(z.object({ n: z.number() })) });
    const v = { xs: [{ n: 1 }, { n: NaN }] };
    expect(describeZodError(nested.safeParse(v).error!, 3, v)).toBe('xs[1].n must be a finite number, got NaN');
    expect(describeZodError(nested.safeParse(v).error!)).toBe('xs[1].n: Invalid input: expected number, received NaN');
  });
  it('describeZodError(null) is INVALID_TYPE naming error', () => expect(expectFrognanoError(() => describeZodError(null as never), 'INVALID_TYPE', 'describeZodError').field).toBe('error'));
  it('an error without issues is INVALID_TYPE naming error.issues', () => expect(expectFrognanoError(() => describeZodError({} as never), 'INVALID_TYPE').field).toBe('error.issues'));
  it('a null issue is INVALID_TYPE naming it', () => expect(expectFrognanoError(() => describeZodError({ issues: [null] } as never), 'INVALID_TYPE').field).toBe('error.issues[0]'));
  it('an unprintable path key is INVALID_TYPE naming it', () =>
    expect(expectFrognanoError(() => describeZodError({ issues: [{ path: ['a', Object.create(null)], message: 'm' }] } as never), 'INVALID_TYPE').field).toBe('error.issues[0].path[1]'));
  it('a non-string message is INVALID_TYPE naming it', () =>
    expect(expectFrognanoError(() => describeZodError({ issues: [{ path: [], message: 5 }] } as never), 'INVALID_TYPE').field).toBe('error.issues[0].message'));
  it('a fractional max is OUT_OF_RANGE', () => expect(expectFrognanoError(() => describeZodError(err(), 1.5), 'OUT_OF_RANGE').field).toBe('max'));
  it('a NaN max is NON_FINITE', () => expect(expectFrognanoError(() => describeZodError(err(), NaN), 'NON_FINITE').field).toBe('max'));
});
