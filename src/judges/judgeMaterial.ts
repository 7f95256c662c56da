import { z } from 'zod';
import { stripReasoning } from '../llm/askStructured.js';
import type { Message, Trajectory } from '../schema/trajectory.js';
import { SHELL_TOOLS } from './ruleFindings.js';
import { isTestRunCommand } from './testRuns.js';

/**
 * Rendering of SPEC §9 trajectories into the compact text LLM judges read, and
 * the verbatim-quote check that keeps evidence-free judgments out of the
 * numbers. Shared by the GAGAR judge, the reward-hacking adjudicator and the
 * HIRS annotator.
 * @internal
 */

/** Limits of {@link condenseTrajectory}. @internal */
export interface CondenseLimits {
  /** Total characters of the condensed trajectory; the middle is cut beyond it. */
  maxChars: number;
  /** Characters kept of each tool output. */
  maxToolOutputChars: number;
  /** Characters kept of each user / assistant text and of each tool-call argument. */
  maxContentChars: number;
}

/** Cuts `text` to about `max` characters, keeping its head and tail and saying how much was cut. @internal */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.max(0, Math.ceil(max * 0.6));
  const tail = Math.max(0, max - head);
  return `${text.slice(0, head)} ... [${text.length - head - tail} chars cut] ... ${tail > 0 ? text.slice(text.length - tail) : ''}`;
}

/**
 * Each whitespace run holding a line break becomes ` ⏎ `: what the former
 * `s.replace(/\s*\n\s*` + `/g, ' \u23ce ')` gave (from a run's first character,
 * greedy `\s*` takes the whole run and backs up to its last line break), in
 * linear time; that regex is quadratic on a long run of spaces without a line
 * break (tool output is model-controlled). @internal
 */
export const oneLine = (s: string): string => s.replace(/\s+/g, (w) => (w.includes('\n') ? ' \u23ce ' : w));

/** One tool call as a line: the Leaf tools get a readable form, others their JSON arguments. @internal */
export function renderToolCall(name: string, args: Record<string, unknown>, max: number): string {
  const str = (k: string): string => (typeof args[k] === 'string' ? (args[k] as string) : '');
  switch (name) {
    case 'bash':
      return `bash: ${clip(oneLine(str('command')), max)}`;
    case 'read':
      return `read ${str('file_path')}${args.offset !== undefined ? ` offset=${String(args.offset)}` : ''}${args.limit !== undefined ? ` limit=${String(args.limit)}` : ''}`;
    case 'write':
      return `write ${str('file_path')} (${str('content').length} chars): ${clip(oneLine(str('content')), max)}`;
    case 'edit':
      return `edit ${str('file_path')}: "${clip(oneLine(str('old_string')), max)}" -> "${clip(oneLine(str('new_string')), max)}"`;
    case 'glob':
      return `glob ${str('pattern')}${args.path !== undefined ? ` in ${str('path')}` : ''}`;
    default:
      return `${name} ${clip(JSON.stringify(args), max)}`;
  }
}

/** The condensed lines of one message (`[i] role: text`, `[i] -> call`), without the system prompt. @internal */
export function messageLines(m: Message, i: number, lim: Omit<CondenseLimits, 'maxChars'>): string[] {
  const out: string[] = [];
  if (m.role === 'system') return out;
  if (m.role === 'tool') {
    out.push(`[${i}] tool output: ${clip(oneLine(m.content), lim.maxToolOutputChars)}`);
    return out;
  }
  const text = m.role === 'assistant' ? stripReasoning(m.content).trim() : m.content;
  if (text !== '') out.push(`[${i}] ${m.role}: ${clip(oneLine(text), lim.maxContentChars)}`);
  for (const c of m.toolCalls ?? []) out.push(`[${i}] -> ${renderToolCall(c.name, c.arguments, lim.maxContentChars)}`);
  return out;
}

/**
 * The trajectory as numbered lines (`[messageIndex] ...`): user and assistant
 * texts (reasoning removed), one line per tool call, tool outputs cut to
 * `maxToolOutputChars`; the system prompt is left out. Beyond `maxChars` the
 * middle lines are dropped (the start and the end of an episode say most). @internal
 */
export function condenseTrajectory(t: Trajectory, lim: CondenseLimits): string {
  const lines = t.messages.flatMap((m, i) => messageLines(m, i, lim));
  const total = lines.reduce((s, l) => s + l.length + 1, 0);
  if (total <= lim.maxChars) return lines.join('\n');
  const headBudget = Math.floor(lim.maxChars * 0.5);
  const tailBudget = lim.maxChars - headBudget;
  const head: string[] = [];
  let used = 0;
  for (const l of lines) {
    if (used + l.length + 1 > headBudget) break;
    head.push(l);
    used += l.length + 1;
  }
  const tail: string[] = [];
  used = 0;
  for (let k = lines.length - 1; k >= head.length; k--) {
    const l = lines[k]!;
    if (used + l.length + 1 > tailBudget) break;
    tail.unshift(l);
    used += l.length + 1;
  }
  const omitted = lines.length - head.length - tail.length;
  if (head.length === 0 && tail.length === 0) return clip(lines.join('\n'), lim.maxChars);
  return [...head, `... [${omitted} lines omitted] ...`, ...tail].join('\n');
}

/** The output of the last test command the agent ran (shell calls that {@link isTestRunCommand} recognises), or undefined. @internal */
export function lastTestRunOutput(t: Trajectory): string | undefined {
  let found: string | undefined;
  t.messages.forEach((m, i) => {
    for (const c of m.toolCalls ?? []) {
      const cmd = c.arguments.command;
      if (!SHELL_TOOLS.has(c.name.toLowerCase()) || typeof cmd !== 'string' || !isTestRunCommand(cmd)) continue;
      const answer = t.messages.find((x, j) => j > i && x.role === 'tool' && x.toolCallId === c.id) ?? t.messages.slice(i + 1).find((x) => x.role === 'tool');
      if (answer) found = `$ ${cmd}\n${answer.content}`;
    }
  });
  return found;
}

/** The grading results (`PASS name` / `FAIL name`) and the agent's last test run, cut to `maxChars`. @internal */
export function renderTestSection(t: Trajectory, maxChars: number): string {
  const parts: string[] = [];
  if (t.tests && t.tests.length > 0) parts.push(`Grading tests:\n${t.tests.map((x) => `${x.passed ? 'PASS' : 'FAIL'} ${x.name}`).join('\n')}`);
  const run = lastTestRunOutput(t);
  if (run !== undefined) parts.push(`Last test run by the agent:\n${run}`);
  return parts.length ? clip(parts.join('\n\n'), maxChars) : '(no test output recorded)';
}

/** Where a judge's evidence comes from: the candidate's diff, its condensed trajectory, or its test output. */
export type EvidenceSource = 'code' | 'trajectory' | 'test';

/** The texts a trajectory judge is shown, by evidence source: the quotes it cites are checked against them. @internal */
export type TrajectoryMaterial = Record<EvidenceSource, string>;

/** Limits of {@link trajectoryMaterial}. @internal */
export interface MaterialLimits extends CondenseLimits {
  /** Characters of the diff shown (head and tail kept). */
  maxDiffChars: number;
  /** Characters of the test section. */
  maxTestOutputChars: number;
}

/** The condensed trajectory, the clipped final diff and the test section of `t`. @internal */
export function trajectoryMaterial(t: Trajectory, lim: MaterialLimits): TrajectoryMaterial {
  return {
    trajectory: condenseTrajectory(t, lim),
    code: t.diff !== undefined && t.diff !== '' ? clip(t.diff, lim.maxDiffChars) : '(no diff recorded)',
    test: renderTestSection(t, lim.maxTestOutputChars),
  };
}

/** zod: one cited quote of a judge's answer (unknown extra keys ignored). @internal */
export const CitationSchema = z.looseObject({ source: z.enum(['code', 'trajectory', 'test']), quote: z.string().min(1) });

/** The citations whose quote occurs in the cited material ({@link quoteOccurs}), as `{ source, quote }`. @internal */
export function verifiedQuotes(
  cits: readonly z.infer<typeof CitationSchema>[] | undefined,
  material: TrajectoryMaterial,
  minChars: number,
): { source: EvidenceSource; quote: string }[] {
  return (cits ?? []).filter((q) => quoteOccurs(q.quote, material[q.source], minChars)).map((q) => ({ source: q.source, quote: q.quote }));
}

/** Collapses whitespace runs (and the `⏎` line marks of condensed text) to one space and trims. @internal */
export function normalizeWhitespace(s: string): string {
  return s.replace(/[\s\u23ce]+/g, ' ').trim();
}

/**
 * Whether `quote` occurs in `material` after collapsing whitespace on both
 * sides (case and punctuation must match), and has at least `minChars`
 * characters. This is how "cites evidence" is checked mechanically: the judge
 * must copy text it was shown. @internal
 */
export function quoteOccurs(quote: string, material: string, minChars: number): boolean {
  const q = normalizeWhitespace(quote);
  return q.length >= minChars && normalizeWhitespace(material).includes(q);
}
