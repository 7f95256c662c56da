import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadHirsConversation } from '../../test/fixtures/load.js';
import { firstUserText, type Script, useScriptedChat } from '../../test/helpers/chatServer.js';
import { expectFrognanoError, expectFrognanoErrorAsync } from '../../test/helpers/expectError.js';
import { annotateHirs } from './annotateHirs.js';
import type { HirsRecord } from './hirsRecord.js';
import { hirsTokenPolarity } from './hirsTokenPolarity.js';
import { segmentHirsTurns } from './segmentHirsTurns.js';
import { validateHirsRecord } from './validateHirsRecord.js';

const chat = useScriptedChat('annotator');
const model = (script: Script) => chat.model(script);

const neg: HirsRecord = { polarity: 'negative', confidence: 'high', signal_source: 'explicit', negative_reason: 'misunderstanding', user_fairness: 'reasonable', evidence: 'that is wrong' };
const pos: HirsRecord = { polarity: 'positive', confidence: 'medium', signal_source: 'explicit', negative_reason: null, user_fairness: 'reasonable', evidence: 'Great, works now.' };
const neutral: HirsRecord = { polarity: 'neutral', confidence: 'low', signal_source: 'none', negative_reason: null, user_fairness: 'unclear', evidence: '' };

describe('validateHirsRecord', () => {
  it('keeps a record whose evidence occurs verbatim', () => {
    expect(validateHirsRecord(neg, 'No, that is wrong: redo it.')).toEqual({ record: neg, neutralized: null });
    expect(validateHirsRecord({ ...neg, evidence: '  that is wrong ' }, 'No, that is wrong.').neutralized).toBeNull();
  });
  it('evidence not in the user text -> neutral', () => {
    const r = validateHirsRecord({ ...neg, evidence: 'this is wrong' }, 'No, that is wrong.');
    expect(r.neutralized).toBe('evidence-not-verbatim');
    expect(r.record).toEqual({ ...neg, evidence: 'this is wrong', polarity: 'neutral', negative_reason: null });
  });
  it('verbatim means case and punctuation too', () => expect(validateHirsRecord({ ...neg, evidence: 'That is wrong' }, 'No, that is wrong.').neutralized).toBe('evidence-not-verbatim'));
  it('empty evidence -> neutral', () => expect(validateHirsRecord({ ...pos, evidence: ' ' }, 'Great').neutralized).toBe('missing-evidence'));
  it('low confidence -> neutral; minConfidence high also drops medium', () => {
    expect(validateHirsRecord({ ...neg, confidence: 'low' }, 'that is wrong').neutralized).toBe('low-confidence');
    expect(validateHirsRecord(pos, 'Great, works now.').neutralized).toBeNull();
    expect(validateHirsRecord(pos, 'Great, works now.', { minConfidence: 'high' }).neutralized).toBe('low-confidence');
  });
  it('a neutral record passes unchanged, evidence or not', () => expect(validateHirsRecord(neutral, 'ok')).toEqual({ record: neutral, neutralized: null }));
  it('rejects a negative record without reason', () => expectFrognanoError(() => validateHirsRecord({ ...neg, negative_reason: null }, 'x'), 'INVALID_TYPE', 'record.negative_reason'));
  it('rejects a reason on a positive record', () => expectFrognanoError(() => validateHirsRecord({ ...pos, negative_reason: 'other' }, 'x'), 'INVALID_TYPE', 'record.negative_reason'));
  it('rejects an unknown polarity', () => expectFrognanoError(() => validateHirsRecord({ ...neg, polarity: 'angry' as never }, 'x'), 'INVALID_TYPE', 'record.polarity'));
});

const conv = loadHirsConversation();
// messages: 0 system, 1 user, 2 assistant(+call), 3 tool, 4 assistant, 5 user, 6 assistant(+call), 7 tool, 8 assistant,
//           9 user, 10 assistant(+call), 11 tool, 12 assistant, 13 user, 14 assistant

describe('segmentHirsTurns', () => {
  it('one turn per user message with its reply', () => {
    expect(segmentHirsTurns(conv.messages)).toEqual([
      { userIndex: 1, replyIndices: [2, 3, 4] },
      { userIndex: 5, replyIndices: [6, 7, 8] },
      { userIndex: 9, replyIndices: [10, 11, 12] },
      { userIndex: 13, replyIndices: [14] },
    ]);
  });
});

/** The user message being annotated, as shown in the annotator's prompt. */
const feedbackOf = (req: Parameters<Exclude<Script, readonly unknown[]>>[0]): string => firstUserText(req).split("## User's next message (annotate this)\n")[1] ?? '';

describe('annotateHirs', () => {
  const answerFor = (req: Parameters<Exclude<Script, readonly unknown[]>>[0]): string => {
    const text = feedbackOf(req);
    if (text.includes('--verbose must also set')) return JSON.stringify(neg);
    if (text.includes('Great, works now')) return `\`\`\`json\n${JSON.stringify({ ...pos, evidence: 'Great, works now' })}\n\`\`\``;
    return JSON.stringify({ ...neg, evidence: 'I hate this', negative_reason: 'omission', confidence: 'medium' }); // invented quote
  };

  it('annotates each user message as feedback on the previous reply; unquoted evidence becomes neutral', async () => {
    const m = await model(answerFor);
    const turns = await annotateHirs(conv, { model: m });
    expect(chat.server.requests).toHaveLength(3); // 4 turns -> 3 feedback messages
    expect(turns.map((t) => [t.turn, t.feedbackMessageIndex, t.record.polarity, t.neutralized])).toEqual([
      [0, 5, 'negative', null],
      [1, 9, 'positive', null],
      [2, 13, 'neutral', 'evidence-not-verbatim'],
    ]);
    expect(turns[2]!.original.polarity).toBe('negative');
  });

  it('the prompt drops the system prompt and reasoning and condenses tool calls', async () => {
    const m = await model(answerFor);
    await annotateHirs(conv.messages, { model: m });
    const first = firstUserText(chat.server.requests.find((q) => feedbackOf(q).includes('--verbose must also set'))!);
    expect(first).toContain('## Previous request\nAdd a --verbose flag to the CLI in cli.py.');
    expect(first).toContain('-> edit cli.py');
    expect(first).not.toContain('Find the parser'); // <think> removed
    expect(first).not.toContain('You are a coding assistant');
  });

  it('a structurally malformed record is asked again, never used', async () => {
    const m = await model((req, k) => (k < 3 ? JSON.stringify({ ...neg, negative_reason: null }) : answerFor(req)));
    const turns = await annotateHirs(conv, { model: m, retries: 1 });
    expect(chat.server.requests).toHaveLength(6);
    expect(turns[0]!.record).toEqual(neg);
  });

  it('MODEL_ANSWER_INVALID when a turn stays malformed', async () => {
    const m = await model(() => '{"polarity": "meh"}');
    await expectFrognanoErrorAsync(() => annotateHirs(conv, { model: m, retries: 0 }), 'MODEL_ANSWER_INVALID', 'annotateHirs');
  });
  it('rejects a malformed message', async () => {
    const m = await model([]);
    await expectFrognanoErrorAsync(() => annotateHirs([{ role: 'robot', content: 'x' }] as never, { model: m }), 'INVALID_TYPE', 'conversation[0].role');
  });
});

describe('hirsTokenPolarity', () => {
  const msgs = [{ role: 'system' }, { role: 'user' }, { role: 'assistant' }, { role: 'tool' }, { role: 'assistant' }, { role: 'user' }, { role: 'assistant' }] as const;
  const counts = [5, 4, 3, 6, 2, 4, 3];

  it('full layout: polarity on the assistant tokens of the judged turn, spans split at tool outputs', () => {
    const r = hirsTokenPolarity(msgs, [{ turn: 0, record: { polarity: 'negative' } }], counts);
    expect(r.spans).toEqual([
      { start: 9, end: 12, polarity: 'negative' },
      { start: 18, end: 20, polarity: 'negative' },
    ]);
    const lossMask = [...Array(9).fill(0), 1, 1, 1, ...Array(6).fill(0), 1, 1, 0, 0, 0, 0, 1, 1, 1];
    expect(r.lossMask).toEqual(lossMask);
    expect(r.neutralMask).toEqual([...Array(24).fill(0), 1, 1, 1]);
    expect(r.polarity.slice(9, 12)).toEqual(['negative', 'negative', 'negative']);
    expect(r.polarity.slice(12, 18)).toEqual(Array(6).fill('neutral'));
    expect(r.polarity).toHaveLength(27);
  });

  it('assistant layout: one span per non-neutral turn over the assistant tokens only', () => {
    const r = hirsTokenPolarity(msgs, [{ turn: 0, record: { polarity: 'positive' } }, { turn: 1, record: { polarity: 'negative' } }], counts, { layout: 'assistant' });
    expect(r.spans).toEqual([
      { start: 0, end: 5, polarity: 'positive' },
      { start: 5, end: 8, polarity: 'negative' },
    ]);
    expect(r.lossMask).toEqual(Array(8).fill(1));
    expect(r.neutralMask).toEqual(Array(8).fill(0));
  });

  it('adjacent assistant messages of one turn merge; zero-token messages add nothing', () => {
    const m2 = [{ role: 'user' }, { role: 'assistant' }, { role: 'tool' }, { role: 'assistant' }, { role: 'user' }] as const;
    const r = hirsTokenPolarity(m2, [{ turn: 0, record: { polarity: 'positive' } }], [2, 3, 0, 4, 1]);
    expect(r.spans).toEqual([{ start: 2, end: 9, polarity: 'positive' }]);
    const empty = hirsTokenPolarity(m2, [{ turn: 0, record: { polarity: 'positive' } }], [2, 0, 0, 0, 1]);
    expect(empty.spans).toEqual([]);
  });

  it('the annotator output feeds it directly', async () => {
    const m = await model((req) => (feedbackOf(req).includes('--verbose must also set') ? JSON.stringify(neg) : JSON.stringify(neutral)));
    const turns = await annotateHirs(conv, { model: m });
    const counts2 = conv.messages.map(() => 2);
    const r = hirsTokenPolarity(conv.messages, turns, counts2);
    // turn 0's assistant messages 2 and 4 (tool 3 between): tokens [4,6) and [8,10)
    expect(r.spans).toEqual([
      { start: 4, end: 6, polarity: 'negative' },
      { start: 8, end: 10, polarity: 'negative' },
    ]);
  });

  it('property: every assistant token is in exactly one of spans / neutralMask; others in neither', () => {
    const role = fc.constantFrom('system' as const, 'user' as const, 'assistant' as const, 'tool' as const);
    fc.assert(
      fc.property(fc.array(fc.tuple(role, fc.integer({ min: 0, max: 4 })), { minLength: 1, maxLength: 12 }), fc.array(fc.constantFrom('positive' as const, 'neutral' as const, 'negative' as const), { maxLength: 12 }), (ms, pols) => {
        const messages = ms.map(([r]) => ({ role: r }));
        const nTurns = segmentHirsTurns(messages).length;
        const anns = pols.slice(0, nTurns).map((p, turn) => ({ turn, record: { polarity: p } }));
        for (const layout of ['full', 'assistant'] as const) {
          const r = hirsTokenPolarity(messages, anns, ms.map(([, c]) => c), { layout });
          const inSpan = new Array<number>(r.polarity.length).fill(0);
          for (const s of r.spans) {
            expect(s.end).toBeGreaterThan(s.start);
            for (let t = s.start; t < s.end; t++) {
              inSpan[t]!++;
              expect(r.polarity[t]).toBe(s.polarity);
            }
          }
          r.polarity.forEach((_, t) => {
            expect(inSpan[t]! + r.neutralMask[t]!).toBe(r.lossMask[t]);
          });
        }
      }),
    );
  });

  it('rejects a tokenCounts length mismatch', () => expectFrognanoError(() => hirsTokenPolarity(msgs, [], [1, 2]), 'LENGTH_MISMATCH', 'tokenCounts'));
  it('rejects a fractional token count', () => expectFrognanoError(() => hirsTokenPolarity(msgs, [], [5, 4, 3.5, 6, 2, 4, 3]), 'OUT_OF_RANGE', 'tokenCounts[2]'));
  it('rejects a turn beyond the conversation', () => expectFrognanoError(() => hirsTokenPolarity(msgs, [{ turn: 2, record: { polarity: 'positive' } }], counts), 'OUT_OF_RANGE', 'annotations[0].turn'));
  it('rejects a repeated turn', () =>
    expectFrognanoError(() => hirsTokenPolarity(msgs, [{ turn: 0, record: { polarity: 'positive' } }, { turn: 0, record: { polarity: 'negative' } }], counts), 'OUT_OF_RANGE', 'annotations[1].turn'));
});
