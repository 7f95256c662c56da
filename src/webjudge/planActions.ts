import { z } from 'zod';
import { parseOptions, parseWith } from '../errors/validate.js';
import { askStructured, AskStructuredOptionsSchema } from '../llm/askStructured.js';
import { type ChatMessage, ChatModelSchema } from '../llm/chatModel.js';
import { MAX_WAIT_MS, PlanAnswerSchema, DEFAULT_SCROLL_DY, type WebAction } from './actions.js';
import { parseWebRubric, type WebRubric } from './rubric.js';
import { clipText } from './text.js';

/** The planner's system prompt: the action library and the answer format (SPEC §13). */
export const WEB_PLANNER_SYSTEM_PROMPT = `You test a web app the way a careful human QA tester would, to decide a rubric (a checklist). You see the app's page as loaded: its URL, title and accessibility (ARIA) snapshot. Write the WHOLE list of user actions to perform, in order, at once: you will not see the page again before they all run. After every action a screenshot, the ARIA snapshot and the console output are recorded for a judge.

Actions (exactly these fields, nothing else):
{"action": "click", "selector": S}
{"action": "fill", "selector": S, "text": "..."}          replaces the field's value
{"action": "hover", "selector": S}                         reveals hover-only content
{"action": "press", "key": "Enter", "selector": S}         selector optional (then the key goes to the page)
{"action": "scroll", "selector": S, "dy": 400}             both optional: no selector scrolls the page by dy (default ${DEFAULT_SCROLL_DY}) pixels
{"action": "navigate", "url": "/about.html"}               same origin only
{"action": "wait", "ms": 500}                              at most ${MAX_WAIT_MS}
S is a Playwright selector: prefer role selectors built from the snapshot, e.g. role=button[name="Add"], role=textbox[name="Email"], role=link[name="Pricing"]; text=Sign up and CSS (#id, .class) also work. The first matching element is used.

Exercise every rubric item you can: use each feature, check that results appear, try invalid input where the app takes input (empty, malformed, out of range), hover over menus and controls, open other pages of the app, scroll long pages. Keep the list short and purposeful.

Answer with one JSON object and nothing else:
{"actions": [{"action": "fill", "selector": "role=textbox[name=\\"Email\\"]", "text": "not-an-email"}, {"action": "click", "selector": "role=button[name=\\"Sign up\\"]"}]}`;

/** Options of {@link planActions}. */
export const PlanActionsOptionsSchema = z
  .object({
    /** The planner model (text only is enough). */
    model: ChatModelSchema,
    /** Further calls after a malformed plan (integer >= 0). Default 2. */
    retries: AskStructuredOptionsSchema.shape.retries,
    /** The most actions run; a longer plan is cut to its first `maxActions` (the prompt asks for at most this many). Default 30. */
    maxActions: z.number().int().min(1).max(500).default(30),
    /** Characters of the ARIA snapshot shown (head and tail kept, with a note). Default 20000. */
    maxSnapshotChars: z.number().int().min(200).default(20_000),
    /** Completion options (temperature, seed, signal, ...). */
    complete: AskStructuredOptionsSchema.shape.complete,
    /** Replaces {@link WEB_PLANNER_SYSTEM_PROMPT} (keep the action library and the answer format). */
    systemPrompt: z.string().min(1).optional(),
  })
  .strict();
/** Options of {@link planActions} as the caller writes them. */
export type PlanActionsOptions = z.input<typeof PlanActionsOptionsSchema>;

/** zod: what the planner sees of the loaded page. */
export const PageObservationSchema = z.object({ url: z.string(), title: z.string(), snapshot: z.string() }).strict();

/**
 * The action planner of the interactive judge (Verification Horizon §3.2 stage 1,
 * SPEC §13): one model call that sees the loaded page (URL, title, ARIA snapshot)
 * and the rubric, and returns the whole action list at once, as the paper does
 * (no step-by-step agent loop: cheaper, and no compounding of sequential
 * decisions). Each action is validated against the action library
 * (`WebActionSchema`); an answer that is not `{"actions": [...]}` of library
 * actions (an unknown action, a missing or mistyped field) is retried with the
 * reason, then fails. A well-formed action that will fail when run (a selector
 * that matches nothing) is not the planner's error: the runner records it as a
 * failed step.
 *
 * @param page - `{ url, title, snapshot }` of the loaded page (what `observe` of a session returns)
 * @param rubric - the rubric (`{ task, items }`)
 * @param opts - `{ model, retries = 2, maxActions = 30, ... }`
 * @returns the actions, at most `maxActions`
 * @throws FrognanoError (as a rejected promise) `MODEL_ANSWER_INVALID` after the retries,
 *   `MODEL_UNAVAILABLE`, `INVALID_TYPE` naming `page.<field>`, `rubric.<field>`, `opts.<field>`
 * @example
 * const plan = await planActions({ url, title, snapshot }, rubric, { model });
 * // [{ action: 'fill', selector: 'role=textbox[name="Email"]', text: 'x' }, { action: 'click', ... }]
 */
export async function planActions(page: z.input<typeof PageObservationSchema>, rubric: WebRubric, opts: PlanActionsOptions): Promise<WebAction[]> {
  const fn = 'planActions';
  const o = parseOptions(fn, PlanActionsOptionsSchema, opts);
  const p = parseWith(fn, 'page', PageObservationSchema, page);
  const r = parseWebRubric(rubric, fn);
  const text = [
    `# Task the app was built for\n${r.task}`,
    `# Rubric\n${r.items.map((it) => `- ${it.id} [${it.dimension}] ${it.text}`).join('\n')}`,
    `# The page as loaded\nURL: ${p.url}\nTitle: ${p.title}\nARIA snapshot:\n${clipText(p.snapshot, o.maxSnapshotChars)}`,
    `Plan at most ${o.maxActions} actions.`,
  ].join('\n\n');
  const messages: ChatMessage[] = [
    { role: 'system', content: o.systemPrompt ?? WEB_PLANNER_SYSTEM_PROMPT },
    { role: 'user', content: text },
  ];
  const answer = await askStructured(o.model, messages, PlanAnswerSchema, { retries: o.retries, caller: fn, complete: o.complete });
  return answer.actions.slice(0, o.maxActions);
}
