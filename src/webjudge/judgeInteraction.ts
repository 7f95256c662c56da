import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { parseOptions, parseWith } from '../errors/validate.js';
import { askStructured, AskStructuredOptionsSchema } from '../llm/askStructured.js';
import { type ChatContentPart, type ChatMessage, ChatModelSchema } from '../llm/chatModel.js';
import { describeAction, WebActionSchema } from './actions.js';
import { readAppSources } from './appSources.js';
import { parseWebRubric, type WebJudgeScore, webJudgeScore, type WebRubric } from './rubric.js';
import type { WebRun } from './runActions.js';
import { clipText } from './text.js';

/** The judge's system prompt (SPEC §13 answer format). */
export const WEB_JUDGE_SYSTEM_PROMPT = `You judge a web app against a rubric from a recording of a real browser session. A tester performed a list of actions; after each action the page's screenshot, accessibility (ARIA) snapshot, URL and console output were recorded. Step 0 is the page as loaded, before any action. You also get the app's source files.

Decide every rubric item from the OBSERVED behaviour: what the recorded steps and screenshots show the app doing. A feature passes only when a step shows it working; code that looks right but did not work in the recording fails, and so does a feature the recording never reached. Use the source only to understand what you see. Failed actions (a selector that matched nothing, a request to another origin that was blocked) are facts about the session: judge the app, not the tester, but do not credit what was never shown.

For each item give: "passed" (true/false), "step" (the index of the recorded step that best shows your decision), and "observation" (what that step shows, concretely: texts, values, console lines).

Answer with one JSON object and nothing else, one entry per rubric item:
{"items": [{"id": "F1", "passed": false, "step": 2, "observation": "After clicking Add (step 2) the list still holds only 'Milk'."}]}`;

/** zod: the judge's answer (SPEC §13); extra keys are tolerated, the four fields are required. */
export const JudgeAnswerSchema = z.looseObject({
  items: z.array(z.looseObject({ id: z.string(), passed: z.boolean(), step: z.number().int(), observation: z.string() })),
});

/** Options of {@link judgeInteraction}. */
export const JudgeInteractionOptionsSchema = z
  .object({
    /** The judge model: it must accept images (OpenAI `image_url` parts) unless `maxScreenshots` is 0. */
    model: ChatModelSchema,
    /** Further calls after a malformed answer (integer >= 0). Default 2. */
    retries: AskStructuredOptionsSchema.shape.retries,
    /** Screenshots sent as images, sampled evenly over the steps with the first and last always in (0: none). Default 6. */
    maxScreenshots: z.number().int().min(0).max(50).default(6),
    /** Characters of one step's ARIA snapshot shown (head and tail, with a note). Default 6000. */
    maxSnapshotChars: z.number().int().min(200).default(6_000),
    /** Characters of all source files together. Default 40000. */
    maxSourceChars: z.number().int().min(0).default(40_000),
    /** Characters of one source file. Default 20000. */
    maxFileChars: z.number().int().min(200).default(20_000),
    /** The folder whose sources the judge reads. Default: the run's `app.dir`. */
    sourceDir: z.string().min(1).optional(),
    /** Completion options (temperature, seed, signal, ...). */
    complete: AskStructuredOptionsSchema.shape.complete,
    /** Replaces {@link WEB_JUDGE_SYSTEM_PROMPT} (keep the answer format). */
    systemPrompt: z.string().min(1).optional(),
  })
  .strict();
/** Options of {@link judgeInteraction} as the caller writes them. */
export type JudgeInteractionOptions = z.input<typeof JudgeInteractionOptionsSchema>;

/** One decided rubric item (SPEC §13 `verdict.items`). */
export interface WebVerdictItem {
  /** The rubric item's id. */
  id: string;
  /** Whether the recorded behaviour satisfies it. */
  passed: boolean;
  /** The recorded step that shows it (an index into `steps`). */
  step: number;
  /** What that step shows. */
  observation: string;
}

/** The judge's decision with its score. */
export interface WebVerdict extends WebJudgeScore {
  /** One decision per rubric item, in rubric order. */
  items: WebVerdictItem[];
  /** The steps whose screenshots the judge saw. */
  screenshotSteps: number[];
}

const StepInputSchema = z.looseObject({
  index: z.number().int().min(0),
  action: WebActionSchema.nullable(),
  ok: z.boolean(),
  error: z.string().optional(),
  url: z.string(),
  snapshot: z.string(),
  console: z.array(z.string()),
  blocked: z.array(z.string()).default([]),
  screenshot: z.string(),
});
const RunInputSchema = z.looseObject({
  app: z.looseObject({ dir: z.string().min(1) }),
  steps: z.array(StepInputSchema).min(1),
  truncated: z.boolean().default(false),
});

/**
 * The steps whose screenshots go to the judge: all when there are at most `k`,
 * else `k` evenly spaced ones, `round(j (n - 1) / (k - 1))` for `j = 0..k-1`, so
 * the page as loaded and the final state are always seen. @internal
 */
export function sampleScreenshotSteps(n: number, k: number): number[] {
  if (k <= 0 || n <= 0) return [];
  if (n <= k) return Array.from({ length: n }, (_, i) => i);
  if (k === 1) return [n - 1];
  return Array.from({ length: k }, (_, j) => Math.round((j * (n - 1)) / (k - 1)));
}

/** The recorded steps as text for the judge: a snapshot identical to the previous step's is not repeated. @internal */
export function describeSteps(steps: readonly z.output<typeof StepInputSchema>[], maxSnapshotChars: number): string {
  return steps
    .map((s, i) => {
      const lines = [`## Step ${s.index}: ${describeAction(s.action)} -> ${s.ok ? 'ok' : `FAILED: ${s.error ?? 'unknown error'}`}`, `URL: ${s.url}`];
      if (s.console.length) lines.push(`Console:\n${s.console.map((c) => `  ${c}`).join('\n')}`);
      if (s.blocked.length) lines.push(`Blocked requests to other origins:\n${s.blocked.map((b) => `  ${b}`).join('\n')}`);
      if (i > 0 && s.snapshot === steps[i - 1]!.snapshot) lines.push(`ARIA snapshot: unchanged from step ${steps[i - 1]!.index}`);
      else lines.push(`ARIA snapshot:\n${clipText(s.snapshot, maxSnapshotChars)}`);
      return lines.join('\n');
    })
    .join('\n\n');
}

/**
 * The judge of the interactive judge (Verification Horizon §3.2 stage 3, SPEC §13):
 * one call to a vision model with sampled screenshots (PNG data URLs as OpenAI
 * `image_url` parts, at most `maxScreenshots`, see {@link sampleScreenshotSteps}),
 * every step's action, outcome, URL, console output, blocked requests and ARIA
 * snapshot, the app's source files (capped, with a note when cut) and the rubric.
 * The model decides every item with the step that shows it. An answer that is not
 * `{"items": [{id, passed, step, observation}]}`, misses or repeats an item, names
 * an unknown item, cites a step that was not recorded, or gives an empty
 * observation is retried with the reason, then refused: `MODEL_ANSWER_INVALID`,
 * never a score. The score is {@link webJudgeScore} of the decisions.
 *
 * @param run - what `runActions` recorded (`app.dir` and `steps` are read; screenshots from their paths)
 * @param rubric - the rubric
 * @param opts - `{ model, retries = 2, maxScreenshots = 6, maxSourceChars = 40000, ... }`
 * @throws FrognanoError (as a rejected promise) `MODEL_ANSWER_INVALID` (refused), `MODEL_UNAVAILABLE`,
 *   `INVALID_TYPE` naming `run.<field>`, `rubric.<field>`, `opts.<field>`
 * @example
 * const verdict = await judgeInteraction(run, rubric, { model });
 * verdict.score; // in [0, 1]
 */
export async function judgeInteraction(run: WebRun, rubric: WebRubric, opts: JudgeInteractionOptions): Promise<WebVerdict> {
  const fn = 'judgeInteraction';
  const o = parseOptions(fn, JudgeInteractionOptionsSchema, opts);
  const r = parseWith(fn, 'run', RunInputSchema, run);
  const rb = parseWebRubric(rubric, fn);
  const sources = o.maxSourceChars > 0 ? await readAppSources(o.sourceDir ?? r.app.dir, o.maxSourceChars, o.maxFileChars) : null;
  const withShot = r.steps.filter((s) => s.screenshot !== '');
  const sampled = sampleScreenshotSteps(withShot.length, o.maxScreenshots).map((i) => withShot[i]!);
  const images: ChatContentPart[] = [];
  const shownSteps: number[] = [];
  for (const s of sampled) {
    let png: Buffer;
    try {
      png = await readFile(s.screenshot);
    } catch (e) {
      throw new FrognanoError(ErrorCode.INVALID_TYPE, `run.steps[${s.index}].screenshot cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)}): ${s.screenshot}`, {
        fn,
        field: `run.steps[${s.index}].screenshot`,
        cause: e,
      });
    }
    images.push({ type: 'text', text: `Screenshot of step ${s.index} (${describeAction(s.action)}):` });
    images.push({ type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } });
    shownSteps.push(s.index);
  }
  const text = [
    `# Task the app was built for\n${rb.task}`,
    `# Rubric\n${rb.items.map((it) => `- ${it.id} [${it.dimension}] ${it.text}`).join('\n')}`,
    `# Recorded steps (${r.steps.length}: indices ${r.steps[0]!.index}..${r.steps[r.steps.length - 1]!.index})${r.truncated ? '\nThe run hit its time limit: later planned actions were not run.' : ''}\n\n${describeSteps(r.steps, o.maxSnapshotChars)}`,
    sources ? `# Source files of the app\n${sources.text}` : '',
    shownSteps.length ? `# Screenshots\nScreenshots of steps ${shownSteps.join(', ')} follow.` : '',
  ]
    .filter(Boolean)
    .join('\n\n');
  const content: string | ChatContentPart[] = images.length ? [{ type: 'text', text }, ...images] : text;
  const messages: ChatMessage[] = [
    { role: 'system', content: o.systemPrompt ?? WEB_JUDGE_SYSTEM_PROMPT },
    { role: 'user', content },
  ];
  const ids = new Set(rb.items.map((it) => it.id));
  const stepIds = new Set(r.steps.map((s) => s.index));
  const check = (a: z.infer<typeof JudgeAnswerSchema>): string | null => {
    const seen = new Set<string>();
    for (const it of a.items) {
      if (!ids.has(it.id)) return `unknown rubric item id ${JSON.stringify(it.id)}`;
      if (seen.has(it.id)) return `rubric item ${it.id} is decided twice`;
      seen.add(it.id);
      if (!stepIds.has(it.step)) return `item ${it.id} cites step ${it.step}, which was not recorded (steps are ${[...stepIds].join(', ')})`;
      if (it.observation.trim() === '') return `item ${it.id} has no observation: say what step ${it.step} shows`;
    }
    const missing = [...ids].filter((k) => !seen.has(k));
    return missing.length ? `rubric item(s) ${missing.join(', ')} missing: decide every item` : null;
  };
  const answer = await askStructured(o.model, messages, JudgeAnswerSchema, { retries: o.retries, check, caller: fn, complete: o.complete });
  const byId = new Map(answer.items.map((a) => [a.id, a]));
  const items: WebVerdictItem[] = rb.items.map((it) => {
    const a = byId.get(it.id)!;
    return { id: it.id, passed: a.passed, step: a.step, observation: a.observation };
  });
  const score = webJudgeScore(rb.items.map((it, i) => ({ dimension: it.dimension, passed: items[i]!.passed })));
  return { items, ...score, screenshotSteps: shownSteps };
}
