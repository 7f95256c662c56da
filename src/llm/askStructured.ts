import { z } from 'zod';
import { errorFromZodIssue, zodFieldPath } from '../errors/errorFromZodIssue.js';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue, functionSchema, integerAtLeast, parseOptions } from '../errors/validate.js';
import { type ChatMessage, type ChatModel, ChatModelSchema, type CompleteOptions, CompleteOptionsSchema } from './chatModel.js';

/** The outcome of {@link extractJson}. */
export type ExtractJsonResult = { found: true; value: unknown } | { found: false; reason: string };

/**
 * Removes `<think>...</think>` / `<thinking>` / `<reasoning>` blocks that reasoning
 * models print before the answer, and everything up to a closing tag whose opening
 * tag was left out (the chat template's). @internal
 */
export function stripReasoning(text: string): string {
  // Linear in the text: the regex `/<(think|thinking|reasoning)>[\s\S]*?<\/\1>/gi`
  // it replaces rescanned to the end for every unclosed tag (quadratic on
  // model output that repeats `<think>`).
  const lower = text.toLowerCase();
  const open = /<(think|thinking|reasoning)>/gi;
  const unclosedFrom = new Map<string, number>(); // no `</name>` at or after this index
  let out = '';
  let kept = 0;
  for (let m = open.exec(text); m !== null; m = open.exec(text)) {
    const name = m[1]!.toLowerCase();
    const from = m.index + m[0].length;
    if ((unclosedFrom.get(name) ?? Infinity) <= from) continue;
    const close = `</${name}>`;
    const j = lower.indexOf(close, from);
    if (j < 0) {
      unclosedFrom.set(name, from);
      continue;
    }
    out += text.slice(kept, m.index);
    kept = j + close.length;
    open.lastIndex = kept;
  }
  out += text.slice(kept);
  // an answer whose opening tag was in the prompt: drop everything up to the first closing tag
  const lowerOut = out === text ? lower : out.toLowerCase();
  let first = -1;
  let len = 0;
  for (const name of ['think', 'thinking', 'reasoning']) {
    const k = lowerOut.indexOf(`</${name}>`);
    if (k >= 0 && (first < 0 || k < first)) {
      first = k;
      len = name.length + 3;
    }
  }
  return first < 0 ? out : out.slice(first + len);
}

/** End index (exclusive) of the balanced `{...}` starting at `start`, skipping braces inside strings; -1 if unbalanced. */
function balancedEnd(s: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < s.length; i++) {
    const ch = s[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{') depth++;
    else if (ch === '}') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/**
 * Finds the JSON object in a model's answer: reasoning blocks
 * (`<think>...</think>`) are dropped, then the first fenced code block
 * (```` ```json ... ``` ```` or ```` ``` ... ``` ````) whose content parses as a
 * JSON object wins; otherwise the first top-level balanced `{...}` of the
 * text that parses (objects nested in a block that does not parse, or in a
 * truncated one, are never taken). Nothing is repaired or guessed: trailing commas, comments or single
 * quotes make the answer unparseable.
 *
 * @param text - the model's answer
 * @returns `{ found: true, value }` or `{ found: false, reason }`
 * @example
 * ```ts
 * extractJson('Sure!\n```json\n{"tier": "T1"}\n```'); // { found: true, value: { tier: 'T1' } }
 * ```
 */
export function extractJson(text: string): ExtractJsonResult {
  if (typeof text !== 'string') return { found: false, reason: `the answer is not text (${describeValue(text)})` };
  const s = stripReasoning(text);
  const isObject = (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v);
  const fence = /```[a-zA-Z0-9_-]*[ \t]*\r?\n([\s\S]*?)```/g;
  for (let m = fence.exec(s); m !== null; m = fence.exec(s)) {
    try {
      const v: unknown = JSON.parse(m[1]!);
      if (isObject(v)) return { found: true, value: v };
    } catch {
      // not this block
    }
  }
  let firstError: string | undefined;
  // Only top-level blocks are candidates: an object nested in a block that does not
  // parse (or in a truncated one) is never taken for the answer.
  for (let i = s.indexOf('{'); i !== -1; ) {
    const end = balancedEnd(s, i);
    if (end === -1) {
      firstError ??= 'an unbalanced { ... } (truncated answer?)';
      break;
    }
    try {
      const v: unknown = JSON.parse(s.slice(i, end));
      if (isObject(v)) return { found: true, value: v };
    } catch (e) {
      firstError ??= `invalid JSON (${e instanceof Error ? e.message : String(e)})`;
    }
    i = s.indexOf('{', end);
  }
  return { found: false, reason: firstError ?? 'no JSON object in the answer' };
}

/** A rejected answer, reported to {@link AskStructuredOptions.onRejected}. */
export interface RejectedAnswer {
  /** 0-based attempt number. */
  attempt: number;
  /** Why the answer was rejected (parse error, first schema issues, or the `check` reason). */
  reason: string;
  /** The raw answer text. */
  raw: string;
}

const fnSchema = functionSchema<(...a: never[]) => unknown>();

/** Options of {@link askStructured}: the schema is the type ({@link AskStructuredOptions}). */
export const AskStructuredOptionsSchema = z
  .object({
    /** Further attempts after a malformed answer (integer >= 0). Default 2. */
    retries: z.number().int().min(0).default(2),
    /**
     * Semantic check run on a schema-valid answer: return a reason string to
     * reject it (it is then treated exactly as a malformed answer and retried),
     * or `null` / `undefined` to accept it. The judges use it to refuse a negative
     * judgment without evidence.
     */
    check: fnSchema.optional(),
    /**
     * On a rejected answer, retry with the conversation extended by the rejected
     * answer and a user message giving the reason (default `true`); `false`
     * re-sends the original messages unchanged.
     */
    feedback: z.boolean().default(true),
    /** Options passed to every `model.complete` call (temperature, seed, ...). */
    complete: CompleteOptionsSchema.optional(),
    /** Called for every rejected answer (audit logs, tests). */
    onRejected: functionSchema<(r: RejectedAnswer) => void>().optional(),
    /** Name used in error messages (the judge calling). Default `askStructured`. */
    caller: z.string().min(1).default('askStructured'),
  })
  .strict();

/**
 * Options of {@link askStructured}: the input type of {@link AskStructuredOptionsSchema},
 * with `check` typed by the answer type `T` (the one field the schema cannot know).
 */
export type AskStructuredOptions<T> = Omit<z.input<typeof AskStructuredOptionsSchema>, 'check'> & {
  /** See {@link AskStructuredOptionsSchema}: a reason string rejects a schema-valid answer. */
  check?: (value: T) => string | null | undefined;
};

/**
 * Renders the first zod issues, `; `-separated, with a count of the rest.
 *
 * Without `value`, each issue is `path: zod's message` (the path as
 * `z.core.toDotPath` writes it, `(root)` for the value itself). With the value
 * that was parsed, each issue is worded as every frognano boundary words it
 * (`errorFromZodIssue` in `src/errors`): `hack must be a boolean, got "yes"`.
 *
 * @param error - a zod error (any object with `issues: [{ path: (string | number | symbol)[], message: string }, ...]`)
 * @param max - how many issues to render, an integer >= 0 (default 3)
 * @param value - the value that was parsed, so that each issue says what it got (optional)
 * @throws FrognanoError `INVALID_TYPE` when `error` is not a zod error or one of the rendered issues is
 *   malformed (naming `error.issues[i]`, `error.issues[i].path[j]`, ...); `OUT_OF_RANGE` / `NON_FINITE` for `max`
 * @example describeZodError(schema.safeParse(value).error!) // 'a: Invalid input: expected number, received string'
 * @example describeZodError(schema.safeParse(value).error!, 3, value) // 'a must be a number, got "x"'
 */
export function describeZodError(error: z.ZodError, max = 3, ...value: [value?: unknown]): string {
  const fn = 'describeZodError';
  const bad = (field: string, what: string, v: unknown): never => {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `${field} must be ${what}, got ${describeValue(v)}`, { fn, field });
  };
  if (error === null || typeof error !== 'object') bad('error', 'a zod error ({ issues: [...] })', error);
  const issues: unknown = (error as { issues?: unknown }).issues;
  if (!Array.isArray(issues)) bad('error.issues', 'an array of zod issues', issues);
  const list = issues as unknown[];
  integerAtLeast(fn, 'max', max, 0);
  const parts: string[] = [];
  for (let k = 0; k < Math.min(max, list.length); k++) {
    const where = `error.issues[${k}]`;
    const i: unknown = list[k];
    if (i === null || typeof i !== 'object') bad(where, 'a zod issue ({ path, message })', i);
    const { path, message } = i as { path?: unknown; message?: unknown };
    if (!Array.isArray(path)) bad(`${where}.path`, 'an array of keys', path);
    if (typeof message !== 'string') bad(`${where}.message`, 'a string', message);
    const keys = path as unknown[];
    for (let j = 0; j < keys.length; j++) {
      const p: unknown = keys[j];
      if (typeof p !== 'string' && typeof p !== 'number' && typeof p !== 'symbol') bad(`${where}.path[${j}]`, 'a string, number or symbol', p);
    }
    const issue = i as z.core.$ZodIssue;
    parts.push(value.length > 0 ? errorFromZodIssue(issue, value[0]).message : `${zodFieldPath('', issue.path) || '(root)'}: ${message as string}`);
  }
  const more = list.length > max ? `; and ${list.length - max} more` : '';
  return parts.join('; ') + more;
}

/**
 * Asks a model for a JSON answer and returns it validated by a zod schema.
 *
 * Each attempt: `model.complete(messages)` -> {@link extractJson} -> `schema`
 * -> `opts.check`. An answer failing any step is *malformed*: it is reported
 * to `onRejected` and the question is asked again (by default with the
 * rejected answer and the reason appended, so the model can correct itself),
 * up to `retries` more times. A malformed answer is never repaired, coerced
 * or guessed, and never returned.
 *
 * Transport failures are the model's business: a {@link ChatModel} retries
 * them itself and rejects with `MODEL_UNAVAILABLE`, which propagates unchanged.
 *
 * @param model - the chat model
 * @param messages - the conversation (system prompt first), at least one message
 * @param schema - the zod schema of the answer
 * @returns the parsed answer (`z.output` of the schema)
 * @throws FrognanoError `MODEL_ANSWER_INVALID` when every attempt was malformed (the message
 *   gives the last reason); `MODEL_UNAVAILABLE` from the model; `INVALID_TYPE` / `EMPTY_INPUT` /
 *   `OUT_OF_RANGE` for bad arguments (naming `model`, `messages`, `opts.<field>`)
 * @example
 * const Verdict = z.object({ hack: z.boolean(), reason: z.string() });
 * const v = await askStructured(model, [{ role: 'user', content: 'Answer as JSON {"hack": bool, "reason": str}: ...' }], Verdict, { retries: 2 });
 */
export async function askStructured<S extends z.ZodType>(
  model: ChatModel,
  messages: readonly ChatMessage[],
  schema: S,
  opts?: AskStructuredOptions<z.output<S>>,
): Promise<z.output<S>> {
  const o = parseOptions('askStructured', AskStructuredOptionsSchema, opts);
  const fn = o.caller;
  if (!ChatModelSchema.safeParse(model).success) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `model must be a ChatModel (an object with complete(messages, opts)), got ${describeValue(model)}`, { fn, field: 'model' });
  }
  if (!Array.isArray(messages)) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `messages must be an array of chat messages, got ${describeValue(messages)}`, { fn, field: 'messages' });
  }
  if (messages.length === 0) throw new FrognanoError(ErrorCode.EMPTY_INPUT, 'messages must have at least 1 message, got 0', { fn, field: 'messages' });
  if (!(schema instanceof z.ZodType)) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `schema must be a zod schema, got ${describeValue(schema)}`, { fn, field: 'schema' });
  }
  const check = o.check as AskStructuredOptions<z.output<S>>['check'];
  const onRejected = o.onRejected as AskStructuredOptions<z.output<S>>['onRejected'];
  let convo: ChatMessage[] = [...messages];
  let last = '';
  for (let attempt = 0; attempt <= o.retries; attempt++) {
    const raw = await model.complete(convo, o.complete);
    let reason: string;
    const ex = extractJson(raw);
    if (!ex.found) reason = ex.reason;
    else {
      const parsed = schema.safeParse(ex.value);
      if (!parsed.success) reason = `the JSON does not match the required schema: ${describeZodError(parsed.error, 3, ex.value)}`;
      else {
        const why = check ? check(parsed.data as z.output<S>) : undefined;
        if (why === null || why === undefined) return parsed.data as z.output<S>;
        reason = why;
      }
    }
    last = reason;
    onRejected?.({ attempt, reason, raw });
    if (o.feedback) {
      convo = [
        ...messages,
        { role: 'assistant', content: raw },
        { role: 'user', content: `Your answer was rejected: ${reason}\nAnswer again with exactly one JSON object in the required format and nothing else.` },
      ];
    }
  }
  throw new FrognanoError(ErrorCode.MODEL_ANSWER_INVALID, `${model.name ?? 'the model'} gave no valid answer in ${o.retries + 1} attempt(s); last: ${last}`, { fn });
}
