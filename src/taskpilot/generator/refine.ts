/**
 * Statement refinement (FrogNano §3, Fig. 5; SPEC §15): the snapshot, the gold patch
 * and the hidden tests stay fixed and only the statement changes: more specific when
 * the task is too hard for the policy (name the file, the function or class, a failing
 * input and its expected output), less specific when too easy (the behaviour contract
 * without the location).
 * @module
 */
import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../../errors/FrognanoError.js';
import { describeValue } from '../../errors/validate.js';
import { askStructured } from '../../llm/askStructured.js';
import type { ChatMessage, ChatModel, CompleteOptions } from '../../llm/chatModel.js';
import type { PilotCandidate } from '../candidate.js';
import { statementLeak } from './propose.js';

/** The first line of every refine request's user message. */
export const REFINE_HEADER = 'TaskPilot: refine a task statement';

/** Which way to move the statement: `easier` = more specific, `harder` = less specific. */
export type RefineDirection = 'easier' | 'harder';

/** The generator's refine answer (SPEC §15). */
export const RefineAnswerSchema = z.object({ statement: z.string().trim().min(1) });

const SYSTEM = [
  'You refine the problem statements of software-engineering tasks for training coding agents (FrogNano TaskPilot).',
  'The repository snapshot, the gold patch and the hidden tests of the task are fixed; you only rewrite the statement.',
  'Answer with ONE JSON object and nothing else: {"statement": string}',
].join('\n');

const GUIDE: Record<RefineDirection, string> = {
  easier:
    'The current policy (almost) never solves the task: make the statement MORE specific. Name the file and the function or class to change, give a failing input and its expected output, and state the contract precisely (edge cases included). Do not paste the patch.',
  harder:
    'The current policy (almost) always solves the task: make the statement LESS specific. State the behaviour contract precisely but without the location: do not name the file, the function or class, and drop worked examples of inputs and outputs.',
};

/**
 * The refine request. The user message starts with {@link REFINE_HEADER}, then a
 * `Direction: easier|harder` line, then the current statement between `<statement>`
 * and `</statement>` lines, the gold patch and the hidden tests.
 */
export function refineMessages(candidate: PilotCandidate, direction: RefineDirection): ChatMessage[] {
  const tests = Object.entries(candidate.tests.files)
    .map(([p, c]) => `--- ${p}\n${c.endsWith('\n') ? c : `${c}\n`}`)
    .join('\n');
  const user = [
    REFINE_HEADER,
    `Direction: ${direction}`,
    GUIDE[direction],
    '',
    'Current statement:',
    '<statement>',
    candidate.statement,
    '</statement>',
    '',
    'Gold patch:',
    '<gold_patch>',
    candidate.goldPatch.endsWith('\n') ? candidate.goldPatch.slice(0, -1) : candidate.goldPatch,
    '</gold_patch>',
    '',
    'Hidden tests:',
    '<hidden_tests>',
    tests.endsWith('\n') ? tests.slice(0, -1) : tests,
    '</hidden_tests>',
  ].join('\n');
  return [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: user },
  ];
}

/** Options of {@link refineStatement}. */
export interface RefineOptions {
  /** Further attempts after a malformed answer (default 2). */
  retries?: number;
  complete?: CompleteOptions;
}

/**
 * Asks the generator for a rewritten statement of `candidate` (answer `{ "statement": string }`,
 * retried when malformed). Returns the new statement only: the caller makes the refined
 * candidate (same id, gold patch and tests; `parent` as the pipeline records it).
 *
 * @throws FrognanoError `MODEL_ANSWER_INVALID` when every attempt was malformed; `MODEL_UNAVAILABLE` from the model;
 *   `INVALID_TYPE` for a bad direction or candidate
 */
export async function refineStatement(model: ChatModel, candidate: PilotCandidate, direction: RefineDirection, opts?: RefineOptions): Promise<string> {
  const fn = 'refineStatement';
  if (direction !== 'easier' && direction !== 'harder') throw new FrognanoError(ErrorCode.INVALID_TYPE, `direction must be 'easier' or 'harder', got ${describeValue(direction)}`, { fn, field: 'direction' });
  if (typeof candidate?.statement !== 'string' || typeof candidate.goldPatch !== 'string' || typeof candidate.tests?.files !== 'object' || candidate.tests.files === null) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `candidate must be a PilotCandidate (statement, goldPatch, tests.files), got ${describeValue(candidate)}`, { fn, field: 'candidate' });
  }
  // a rewrite that quotes the fix is retried, as a proposal's is
  const a = await askStructured(model, refineMessages(candidate, direction), RefineAnswerSchema, { retries: opts?.retries ?? 2, caller: fn, complete: opts?.complete, check: (x: { statement: string }) => statementLeak(x.statement, candidate.goldPatch, candidate.tests.files) });
  return a.statement.trim();
}
