import { z } from 'zod';

/**
 * The atomic web-action library of the interactive judge (Verification Horizon
 * §3.2: "click, scroll, navigate, fill form, hover, press key"; SPEC §13): the
 * planner's whole vocabulary. A plan is malformed (retried, then
 * `MODEL_ANSWER_INVALID`) only when it is not this shape, as SPEC §13 says: an
 * unknown action, a missing field, a field of the wrong type, a `wait` outside
 * 0..{@link MAX_WAIT_MS} ms, or `actions` that is not an array. Everything else
 * is a well-formed action:
 * - a field that is not listed (models often add `"description"`) is dropped,
 *   not an error (zod's default for objects: unknown keys are stripped);
 * - `ms` may have a fraction (`250.5`): the runner waits `Math.round(ms)` ms;
 * - an empty `selector`, `key` or `url` is well formed and fails when run: a
 *   recorded step with `ok: false`, like any selector that matches nothing.
 * Selectors are Playwright selectors (CSS, `text=...`, `role=button[name="Add"]`,
 * ...); the runner acts on the first element a selector matches.
 */

/** The longest `wait` (SPEC §13). */
export const MAX_WAIT_MS = 5000;
/** Page scroll of a `scroll` action without `dy`, in CSS pixels. */
export const DEFAULT_SCROLL_DY = 600;

const selector = z.string();

/** `{"action": "click", "selector"}`: clicks the first element `selector` matches. */
export const ClickActionSchema = z.object({ action: z.literal('click'), selector });
/** `{"action": "fill", "selector", "text"}`: replaces the value of an input, textarea or contenteditable with `text` (may be empty). */
export const FillActionSchema = z.object({ action: z.literal('fill'), selector, text: z.string() });
/** `{"action": "hover", "selector"}`: moves the mouse over the element (reveals hover-only content). */
export const HoverActionSchema = z.object({ action: z.literal('hover'), selector });
/** `{"action": "press", "key", "selector"?}`: presses a key (`Enter`, `Escape`, `ArrowDown`, `Control+a`) on the element, or on the page when no selector. */
export const PressActionSchema = z.object({ action: z.literal('press'), key: z.string(), selector: selector.optional() });
/**
 * `{"action": "scroll", "selector"?, "dy"?}`: without a selector, scrolls the page by
 * `dy` pixels (default {@link DEFAULT_SCROLL_DY}; negative scrolls up); with a
 * selector, scrolls the element into view, then scrolls inside it by `dy` when given.
 */
export const ScrollActionSchema = z.object({ action: z.literal('scroll'), selector: selector.optional(), dy: z.number().optional() });
/** `{"action": "navigate", "url"}`: loads a URL of the app's own origin (absolute or relative to the current page); another origin is never followed (a step with `ok: false`). */
export const NavigateActionSchema = z.object({ action: z.literal('navigate'), url: z.string() });
/** `{"action": "wait", "ms"}`: waits `ms` milliseconds, 0..{@link MAX_WAIT_MS} (timers, animations); a fraction is allowed and rounded to whole ms when run. */
export const WaitActionSchema = z.object({ action: z.literal('wait'), ms: z.number().min(0).max(MAX_WAIT_MS) });

/** zod: one action of the library (SPEC §13). */
export const WebActionSchema = z.discriminatedUnion('action', [
  ClickActionSchema,
  FillActionSchema,
  HoverActionSchema,
  PressActionSchema,
  ScrollActionSchema,
  NavigateActionSchema,
  WaitActionSchema,
]);
/** One action of the library. */
export type WebAction = z.infer<typeof WebActionSchema>;
/** The action names, in the order the planner prompt lists them. */
export const WEB_ACTION_NAMES = ['click', 'fill', 'hover', 'press', 'scroll', 'navigate', 'wait'] as const;

/** zod: a plan, the list of actions (SPEC §13); each action's unlisted fields are dropped. */
export const WebPlanSchema = z.array(WebActionSchema);

/** zod: the planner's answer `{"actions": [...]}` (SPEC §13). Extra top-level keys are tolerated, as are extra fields of an action (dropped). */
export const PlanAnswerSchema = z.looseObject({ actions: WebPlanSchema });

/** One line describing an action, for prompts and the report, e.g. `click role=button[name="Add"]`. */
export function describeAction(a: WebAction | null): string {
  if (a === null) return 'page loaded';
  switch (a.action) {
    case 'click':
    case 'hover':
      return `${a.action} ${a.selector}`;
    case 'fill':
      return `fill ${a.selector} with ${JSON.stringify(a.text)}`;
    case 'press':
      return `press ${a.key}${a.selector ? ` on ${a.selector}` : ''}`;
    case 'scroll':
      return `scroll${a.selector ? ` ${a.selector}` : ' page'}${a.dy !== undefined ? ` by ${a.dy}px` : a.selector ? ' into view' : ` by ${DEFAULT_SCROLL_DY}px`}`;
    case 'navigate':
      return `navigate to ${a.url}`;
    case 'wait':
      return `wait ${a.ms} ms`;
  }
}
