import type { LeafTrajectory } from './leafTrajectory.js';

/**
 * The most characters one rollout line may take: the default `--max-line` of
 * frognano's JSONL readers (64 MiB), so every line `rollout` writes can be read
 * back by `leaf-report`, the record subcommands and the service.
 */
export const MAX_RECORD_CHARS = 64 * 1024 * 1024;

/** Characters of a tool message kept when a record has to shrink. */
const KEPT_TOOL_CHARS = 2000;

/** The JSON length of a value, or null when it cannot be serialised at all (a string past V8's limit). */
function jsonLength(v: unknown): number | null {
  try {
    return JSON.stringify(v).length;
  } catch {
    return null;
  }
}

/**
 * One episode's record, made to fit in one line (SPEC §12: "one episode's
 * failure is that episode's record, never the run's"; issue 20 #3). A record
 * that serialises within {@link MAX_RECORD_CHARS} is returned as it is. Otherwise
 * its tool outputs are cut to their first 2,000 characters and, if it still does
 * not fit, its messages are reduced to the system prompt and the statement; the
 * grading output and the diff go too when needed. A graded episode that had to
 * shrink fails (`success: false`, reward 0 downstream) with `grading.error`
 * saying why: the record of what it did could not be written whole, so it
 * cannot be trusted as a success.
 */
export function fitRecord(t: LeafTrajectory, limit = MAX_RECORD_CHARS): LeafTrajectory {
  const n = jsonLength(t);
  if (n !== null && n <= limit) return t;
  const why = `the episode's record was too large to write (${n === null ? 'beyond what JSON.stringify can make' : `${n} characters`}, limit ${limit}); it was shrunk and the episode counts as failed`;
  const cutTools: LeafTrajectory = {
    ...t,
    messages: t.messages.map((m) => (m.role === 'tool' && m.content.length > KEPT_TOOL_CHARS ? { ...m, content: `${m.content.slice(0, KEPT_TOOL_CHARS)}\n[cut: the record was too large]` } : m)),
  };
  const candidates: LeafTrajectory[] = [cutTools, { ...cutTools, messages: t.messages.slice(0, 2) }, { ...cutTools, messages: t.messages.slice(0, 2), diff: '' }];
  for (const c of candidates) {
    const shrunk = fail(c, why);
    const m = jsonLength(shrunk);
    if (m !== null && m <= limit) return shrunk;
  }
  return fail({ ...cutTools, messages: [], diff: '', compactions: [], task: { id: t.task.id, statement: t.task.statement.slice(0, KEPT_TOOL_CHARS) } }, why);
}

/** The record marked failed by its own size: success false, the reason in `grading.error` (or `error` when it was never graded). */
function fail(t: LeafTrajectory, why: string): LeafTrajectory {
  if (!t.outcome) return { ...t, error: t.error ?? why };
  return {
    ...t,
    outcome: { ...t.outcome, success: false },
    tests: [{ name: 'tests', passed: false }],
    grading: { ...(t.grading ?? { exitCode: null, timedOut: false, seconds: 0 }), output: (t.grading?.output ?? '').slice(0, KEPT_TOOL_CHARS), error: why },
  };
}
