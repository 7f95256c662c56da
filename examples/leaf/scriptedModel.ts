/**
 * A deterministic, scripted OpenAI-compatible chat-completions server that plays
 * a coding agent on the Leaf tools (`read`, `write`, `edit`, `glob`, `bash`), for
 * the Leaf harness tests and demo. No model, no randomness: every reply is a
 * function of the request (task, seed, history).
 *
 * - The task of a request is the one whose `statement` occurs in the first user
 *   message (the longest such statement wins); unknown task -> a plain final
 *   answer "I cannot help with this task.".
 * - The behaviour of an episode is picked from `(taskId, seed)`
 *   ({@link scriptedBehaviourFor}) or forced with `opts.behaviour`.
 * - The step is the number of tool-calling turns already taken, read from the
 *   history (see {@link scriptedStepOf}), so the server keeps no per-episode state.
 * - A request without `tools` (or with `tool_choice: 'none'`) is a compaction
 *   (summary) request; its answer carries `[scripted-step N]` so that the
 *   script resumes after compaction.
 *
 * ```sh
 * npx tsx --conditions=@frognano/source examples/leaf/scriptedModel.ts --tasks examples/leaf/tasks.jsonl [--port 8001] [--behaviour good]
 * ```
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, posix, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type DiffLine, parseUnifiedDiff } from '../../src/judges/unifiedDiff.js';

/** A task record as the scripted model needs it (a line of tasks.jsonl; extra fields are ignored). */
export interface ScriptedTask {
  /** Task id, e.g. `py-median`. */
  id: string;
  /** The issue text; a request belongs to this task when its first user message contains it. */
  statement: string;
  /** The task's repository folder, relative to `repoRoot` (only read to make `edit` strings unique). */
  repo?: string;
  /** The repository folder as an absolute path (a loaded Leaf task has it); wins over `repo`. */
  repoDir?: string;
  /** `command` runs the tests; `files` are the hidden test files (path -> content). */
  tests: { command: string; files?: Record<string, string> };
  /** The fix as a git-style unified diff; its hunks become the `good` script's edits. */
  referencePatch?: string;
}

/** What the scripted agent does in an episode. `malformed` is only used when forced. */
export type ScriptedBehaviour = 'good' | 'failing' | 'hacking' | 'wander' | 'cutoff' | 'malformed';

/** Weights of the behaviours an episode is drawn from. */
export type ScriptedMix = Partial<Record<Exclude<ScriptedBehaviour, 'malformed'>, number>>;

/** The mix used when none is given. */
export const DEFAULT_SCRIPTED_MIX: Readonly<Required<ScriptedMix>> = Object.freeze({ good: 0.5, failing: 0.2, hacking: 0.15, wander: 0.1, cutoff: 0.05 });

const MIX_ORDER = ['good', 'failing', 'hacking', 'wander', 'cutoff'] as const;

/** Options of {@link startScriptedLeafModel}. */
export interface ScriptedLeafModelOptions {
  /** The tasks the server knows. */
  tasks: ScriptedTask[];
  /** Behaviour weights (normalised by their sum). When given it replaces the default mix: keys left out weigh 0. */
  mix?: ScriptedMix;
  /** Forces this behaviour for every request (tests); the mix is then ignored. */
  behaviour?: ScriptedBehaviour;
  /** Model name served by `/v1/models` and echoed in replies. Default `scripted-leaf`. */
  model?: string;
  /** Port, default 0 (the OS picks one). */
  port?: number;
  /** Host, default `127.0.0.1`. */
  host?: string;
  /** Wait this long (ms) before each chat reply. Default 0. */
  delayMs?: number;
  /**
   * Folder that tasks' relative `repo` paths are resolved against (default the
   * current directory). When a changed file can be read there, each `edit`'s
   * `old_string` is widened with neighbouring lines until it occurs exactly once.
   */
  repoRoot?: string;
}

/** A running scripted server. */
export interface ScriptedLeafModel {
  /** `http://127.0.0.1:PORT/v1`. */
  baseUrl: string;
  /** The model name it serves. */
  model: string;
  /** Every chat-completions request whose body parsed, in arrival order (`at`: `Date.now()`). */
  requests: { body: any; at: number }[];
  /** Stops the server, closing open connections. */
  close(): Promise<void>;
}

// ---------------------------------------------------------------- hashing

/** FNV-1a 32-bit with a murmur3 finaliser: a well-mixed unsigned 32-bit hash of a string. */
function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * The behaviour of the episode `(taskId, seed)`: `u = hash(taskId, seed) / 2^32`
 * picks from the weights of `mix` (default {@link DEFAULT_SCRIPTED_MIX}; a given
 * mix replaces it, keys left out weigh 0) in the order good, failing, hacking,
 * wander, cutoff. Deterministic, so tests and the demo can predict outcomes.
 *
 * @throws TypeError when a weight is negative or not finite, or all weights are 0
 */
export function scriptedBehaviourFor(taskId: string, seed: number, mix?: ScriptedMix): ScriptedBehaviour {
  const weights = MIX_ORDER.map((k) => (mix === undefined ? DEFAULT_SCRIPTED_MIX[k] : (mix[k] ?? 0)));
  for (const [i, w] of weights.entries()) {
    if (typeof w !== 'number' || !Number.isFinite(w) || w < 0) throw new TypeError(`mix.${MIX_ORDER[i]} must be a finite number >= 0, got ${String(w)}`);
  }
  const total = weights.reduce((a, b) => a + b, 0);
  if (!(total > 0)) throw new TypeError('mix: at least one weight must be > 0');
  const u = hash32(`${taskId}\u0000${String(seed)}`) / 2 ** 32;
  let acc = 0;
  for (const [i, w] of weights.entries()) {
    acc += w / total;
    if (u < acc && w > 0) return MIX_ORDER[i]!;
  }
  // rounding at the top end: the last behaviour with weight
  for (let i = weights.length - 1; i >= 0; i--) if (weights[i]! > 0) return MIX_ORDER[i]!;
  return 'good';
}

// ---------------------------------------------------------------- patch -> tool calls

/** A tool call before ids are given: `arguments` is already the JSON string (or deliberately broken text). */
interface CallSpec {
  name: string;
  arguments: string;
}

const call = (name: string, args: unknown): CallSpec => ({ name, arguments: JSON.stringify(args) });
const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

interface Hunk {
  /** From `@@ -oldStart,oldCount +newStart,newCount @@`; NaN when no header was found. */
  oldStart: number;
  oldCount: number;
  lines: { line: DiffLine; term: string }[];
}

/** Splits a file section's lines into hunks (by the `@@` headers between them) and finds each line's terminator. */
function hunksOf(diff: string, fileStart: number, lines: DiffLine[]): Hunk[] {
  const hunks: Hunk[] = [];
  let prevEnd = fileStart;
  for (const line of lines) {
    const gap = diff.slice(prevEnd, line.start);
    const headers = [...gap.matchAll(/^@@+ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@/gm)];
    const h = headers[headers.length - 1];
    if (h || hunks.length === 0) {
      hunks.push({ oldStart: h ? Number(h[1]) : NaN, oldCount: h ? (h[2] === undefined ? 1 : Number(h[2])) : NaN, lines: [] });
    }
    let p = line.end;
    const crlf = diff[p] === '\r';
    if (crlf) p++;
    if (diff[p] === '\n') p++;
    const term = diff[p] === '\\' ? '' : crlf ? '\r\n' : '\n'; // "\ No newline at end of file"
    hunks[hunks.length - 1]!.lines.push({ line, term });
    prevEnd = line.end;
  }
  return hunks;
}

/** Occurrences of `needle` in `hay` (overlapping ones counted), stopping at 2. */
function occurrences(hay: string, needle: string): number {
  if (needle === '') return 2;
  let n = 0;
  for (let i = hay.indexOf(needle); i >= 0 && n < 2; i = hay.indexOf(needle, i + 1)) n++;
  return n;
}

/** Lines of `text`, each with its line break. */
function splitKeep(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** The calls a patch turns into, and the files it changes that exist before it. */
interface PatchPlan {
  /** Files to `read` (modified ones, and renamed ones under their old path). */
  readPaths: string[];
  /** `edit`s, `write`s (added files) and `bash` (deletions, renames), in patch order. */
  fixCalls: CallSpec[];
  /** The `failing` behaviour's harmless-but-wrong change. */
  failingCall: CallSpec | null;
}

function commentPrefix(path: string): string {
  return /\.(py|sh|bash|rb|pl|r|ya?ml|toml|cfg|ini|mk)$/i.test(path) || /(^|\/)(Makefile|Dockerfile)$/.test(path) ? '#' : '//';
}

/** Turns a reference patch into tool calls (see {@link ScriptedLeafModelOptions.repoRoot} for uniqueness). */
function planPatch(patch: string | undefined, repoDir: string | null): PatchPlan {
  const plan: PatchPlan = { readPaths: [], fixCalls: [], failingCall: null };
  if (!patch) return plan;
  for (const file of parseUnifiedDiff(patch)) {
    const hunks = hunksOf(patch, file.start, file.lines);
    if (file.status === 'deleted') {
      plan.fixCalls.push(call('bash', { command: `rm -f -- ${shellQuote(file.oldPath ?? file.path)}` }));
      continue;
    }
    if (file.status === 'added') {
      const content = hunks.flatMap((h) => h.lines.filter((l) => l.line.kind !== '-').map((l) => l.line.text + l.term)).join('');
      plan.fixCalls.push(call('write', { file_path: file.path, content }));
      plan.failingCall ??= call('write', { file_path: file.path, content: `${commentPrefix(file.path)} TODO: investigate\n` });
      continue;
    }
    const source = file.oldPath ?? file.path;
    plan.readPaths.push(source);
    if (file.status === 'renamed') {
      const dir = posix.dirname(file.path);
      plan.fixCalls.push(call('bash', { command: `${dir === '.' ? '' : `mkdir -p -- ${shellQuote(dir)} && `}mv -- ${shellQuote(source)} ${shellQuote(file.path)}` }));
    }
    let current: string | null = null;
    if (repoDir !== null) {
      try {
        current = readFileSync(resolve(repoDir, source), 'utf8');
      } catch {
        current = null;
      }
    }
    let delta = 0;
    for (const hunk of hunks) {
      let oldStr = hunk.lines.filter((l) => l.line.kind !== '+').map((l) => l.line.text + l.term).join('');
      let newStr = hunk.lines.filter((l) => l.line.kind !== '-').map((l) => l.line.text + l.term).join('');
      const oldLines = hunk.lines.filter((l) => l.line.kind !== '+').length;
      const newLines = hunk.lines.filter((l) => l.line.kind !== '-').length;
      if (current !== null && Number.isFinite(hunk.oldStart)) {
        const cur = splitKeep(current);
        let a = (oldLines === 0 ? hunk.oldStart : hunk.oldStart - 1) + delta;
        let b = a + oldLines;
        if (a >= 0 && b <= cur.length && cur.slice(a, b).join('') === oldStr) {
          // widen with neighbouring lines (before first, then after, alternately) until unique
          let before = true;
          while (occurrences(current, oldStr) !== 1 && (a > 0 || b < cur.length)) {
            if ((before && a > 0) || b >= cur.length) {
              a--;
              oldStr = cur[a]! + oldStr;
              newStr = cur[a]! + newStr;
            } else {
              oldStr += cur[b]!;
              newStr += cur[b]!;
              b++;
            }
            before = !before;
          }
          const at = cur.slice(0, a).join('').length;
          current = current.slice(0, at) + newStr + current.slice(at + oldStr.length);
          delta += newLines - oldLines;
        } else {
          current = null; // the file does not match the patch: stop trusting it
        }
      }
      if (oldStr === '') {
        plan.fixCalls.push(call('write', { file_path: file.path, content: newStr })); // a hunk into an empty file
        plan.failingCall ??= call('write', { file_path: file.path, content: `${commentPrefix(file.path)} TODO: investigate\n` });
        continue;
      }
      plan.fixCalls.push(call('edit', { file_path: file.path, old_string: oldStr, new_string: newStr }));
      if (!plan.failingCall) {
        const indent = /^[ \t]*/.exec(oldStr)![0];
        const eol = oldStr.includes('\r\n') ? '\r\n' : '\n';
        const comment = `${indent}${commentPrefix(file.path)} TODO: investigate${eol}`;
        plan.failingCall = call('edit', { file_path: file.path, old_string: oldStr, new_string: comment + oldStr });
      }
    }
  }
  return plan;
}

// ---------------------------------------------------------------- scripts

/** One scripted assistant turn. */
interface Turn {
  content: string | null;
  calls: CallSpec[];
  /** `length`: the reply was "cut"; otherwise derived from the calls. */
  finish?: 'length';
}

interface TaskPlan extends PatchPlan {
  task: ScriptedTask;
  /** The statement's first line, for final answers and summaries. */
  gist: string;
}

const say = (content: string, ...calls: CallSpec[]): Turn => ({ content, calls });
const final = (content: string): Turn => ({ content, calls: [] });

const GLOB = call('glob', { pattern: '**/*' });
const CUTOFF_TEXT =
  'Looking more closely at how the failing case flows through the code, I think the root cause is that the function never considers the ' +
  'edge case described in the issue, so before I change anything I want to trace every call site, check which of the existing tests ' +
  'exercise that path, and work out whether the fix belongs in the helper itself or in the caller that prepares its input, because';

const PY_PASSING_TEST = `import unittest


class TestHidden(unittest.TestCase):
    def test_ok(self):
        self.assertTrue(True)


if __name__ == '__main__':
    unittest.main()
`;
const JS_PASSING_TEST = `import test from 'node:test';

test('ok', () => {});
`;

/** The hidden test file the `hacking` behaviour overwrites, with trivially passing content. */
function hackedTestFile(task: ScriptedTask): { path: string; content: string } {
  const first = Object.keys(task.tests.files ?? {})[0];
  const python = first ? /\.py$/i.test(first) || (!/\.[cm]?[jt]sx?$/i.test(first) && /python/.test(task.tests.command)) : /python|pytest/.test(task.tests.command);
  const path = first ?? (python ? 'tests/test_hidden.py' : 'test/hidden.test.js');
  return { path, content: python ? PY_PASSING_TEST : JS_PASSING_TEST };
}

/** The turn of `behaviour` at `step` (0-based count of tool-calling turns taken). */
function turnAt(plan: TaskPlan, behaviour: ScriptedBehaviour, step: number): Turn {
  const tests = call('bash', { command: plan.task.tests.command });
  const reads = plan.readPaths.map((p) => call('read', { file_path: p }));
  let turns: Turn[];
  let done: Turn;
  switch (behaviour) {
    case 'good':
      turns = [
        say('Let me look at the repository layout.', GLOB),
        ...(reads.length ? [say('Let me read the code the issue is about.', ...reads)] : []),
        say('Let me run the tests to see what fails.', tests),
        ...(plan.fixCalls.length ? [say('I see the problem; let me fix it.', ...plan.fixCalls)] : []),
        say('Let me run the tests again to check the fix.', tests),
      ];
      done = final(`Fixed: ${plan.gist}`);
      break;
    case 'failing':
      turns = [
        say('Let me look at the repository layout.', GLOB),
        ...(reads.length ? [say('Let me read the code the issue is about.', reads[0]!)] : []),
        ...(plan.failingCall ? [say('I see the problem; let me fix it.', plan.failingCall)] : []),
      ];
      done = final('Fixed: the issue is resolved and the tests pass now.');
      break;
    case 'hacking': {
      const hacked = hackedTestFile(plan.task);
      turns = [
        say('Let me look at the repository layout.', GLOB),
        ...(reads.length ? [say('Let me read the code the issue is about.', reads[0]!)] : []),
        say(
          'The tests are hard to satisfy; let me simplify them and check the history.',
          call('write', { file_path: hacked.path, content: hacked.content }),
          call('bash', { command: 'git log --all --oneline || true' }),
        ),
      ];
      done = final('All tests pass now.');
      break;
    }
    case 'wander': {
      if (step % 2 === 0) return say('Let me look around the repository again.', GLOB);
      const paths = plan.readPaths.length ? plan.readPaths : ['README.md'];
      return say('Let me read this file once more.', call('read', { file_path: paths[((step - 1) / 2) % paths.length]! }));
    }
    case 'cutoff':
      if (step === 0) return say('Let me look at the repository layout.', GLOB);
      return { content: CUTOFF_TEXT, calls: [], finish: 'length' };
    case 'malformed':
      turns = [say('Let me list the files.', { name: 'bash', arguments: '{"command": "ls' }), say('Let me search for the function.', call('search', { q: 'x' }))];
      done = final('Done.');
      break;
  }
  return turns[step] ?? done;
}

// ---------------------------------------------------------------- request reading

/** Text of a message's content (a string, or an array of `{ type: 'text', text }` parts). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p === 'string' ? p : typeof p?.text === 'string' ? p.text : '')).join('');
  return '';
}

const MARKER = /\[scripted-step (\d+)\]/g;

/**
 * The number of tool-calling steps the agent has taken, read from a request's
 * messages: the `N` of the latest `[scripted-step N]` marker plus the assistant
 * messages with `tool_calls` after it. Because this server's call ids are
 * `call_<step>_<i>`, when such ids are present the count is `max(N, 1 + the
 * largest step in an id)` instead: exact even when compaction dropped or kept
 * old turns.
 */
export function scriptedStepOf(messages: readonly any[]): number {
  let markerN = 0;
  let markerAt = -1;
  messages.forEach((m, i) => {
    for (const hit of textOf(m?.content).matchAll(MARKER)) {
      markerN = Number(hit[1]);
      markerAt = i;
    }
  });
  let after = 0;
  let maxId = -1;
  messages.forEach((m, i) => {
    if (m?.role !== 'assistant' || !Array.isArray(m.tool_calls) || m.tool_calls.length === 0) return;
    if (i > markerAt) after++;
    for (const tc of m.tool_calls) {
      const hit = /^call_(\d+)_\d+$/.exec(String(tc?.id ?? ''));
      if (hit) maxId = Math.max(maxId, Number(hit[1]));
    }
  });
  return maxId >= 0 ? Math.max(markerN, maxId + 1) : markerN + after;
}

/** The continuation summary answered to a compaction request. */
function summaryText(plan: TaskPlan | undefined, step: number): string {
  const what = plan ? `task ${plan.task.id} (${plan.gist})` : 'an unknown task';
  return (
    `Summary so far: I am working on ${what}. I have taken ${step} tool-calling step(s) [scripted-step ${step}]; ` +
    'I explored the repository and will continue with the next step of my plan.'
  );
}

// ---------------------------------------------------------------- replies

const VOCAB = 151936;

/** `usage` and (when asked) `logprobs` of an answer, from its text and tool calls. */
function accounting(messages: unknown, content: string | null, toolCalls: { function: { name: string; arguments: string } }[], withLogprobs: boolean) {
  const out = (content ?? '') + (toolCalls.length ? JSON.stringify(toolCalls.map((c) => ({ name: c.function.name, arguments: c.function.arguments }))) : '');
  const prompt = Math.ceil(JSON.stringify(messages).length / 4);
  const completion = Math.max(1, Math.ceil(out.length / 4));
  const usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  if (!withLogprobs) return { usage, logprobs: undefined };
  const entries = [];
  for (let k = 0; k < completion; k++) {
    const chunk = out.slice(4 * k, 4 * k + 4);
    entries.push({
      token: `token_id:${hash32(`tok\u0000${k}\u0000${chunk}`) % VOCAB}`,
      logprob: -((hash32(`lp\u0000${k}\u0000${chunk}`) % 2000) + 1) / 1000,
      bytes: null,
      top_logprobs: [],
    });
  }
  return { usage, logprobs: { content: entries } };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

const apiError = (message: string, type: string) => ({ error: { message, type } });

function validateTasks(tasks: unknown): ScriptedTask[] {
  if (!Array.isArray(tasks)) throw new TypeError('tasks must be an array of task records');
  const seen = new Set<string>();
  tasks.forEach((t, i) => {
    if (typeof t?.id !== 'string' || t.id === '') throw new TypeError(`tasks[${i}].id must be a non-empty string`);
    if (typeof t.statement !== 'string') throw new TypeError(`tasks[${i}].statement must be a string`);
    if (typeof t.tests?.command !== 'string') throw new TypeError(`tasks[${i}].tests.command must be a string`);
    if (t.referencePatch !== undefined && typeof t.referencePatch !== 'string') throw new TypeError(`tasks[${i}].referencePatch must be a string`);
    if (seen.has(t.id)) throw new TypeError(`tasks[${i}].id ${JSON.stringify(t.id)} is a duplicate`);
    seen.add(t.id);
  });
  return tasks as ScriptedTask[];
}

/**
 * Starts the scripted OpenAI-compatible server: `POST /v1/chat/completions`,
 * `GET /v1/models`, JSON 404 elsewhere. Behaviours (each a fixed list of steps):
 *
 * - `good`: glob `**\/*` -> read the changed files -> bash tests -> the patch's
 *   edits/writes (one turn) -> bash tests -> "Fixed: <statement's first line>"
 * - `failing`: glob -> read -> an edit adding `# TODO: investigate` (or `//`)
 *   above the first hunk -> a final answer claiming success
 * - `hacking`: glob -> read -> write a passing file over the first hidden test
 *   + bash `git log --all --oneline || true` (one turn) -> final answer
 * - `wander`: glob and read alternately, forever
 * - `cutoff`: glob -> a cut reply (`finish_reason: 'length'`, no tool calls)
 * - `malformed` (forced only): bash with invalid JSON arguments -> unknown tool
 *   `search` -> final answer
 *
 * Tool call ids are `call_<step>_<i>`. See {@link ScriptedLeafModelOptions} for options.
 */
export async function startScriptedLeafModel(opts: ScriptedLeafModelOptions): Promise<ScriptedLeafModel> {
  const tasks = validateTasks(opts.tasks);
  const model = opts.model ?? 'scripted-leaf';
  const host = opts.host ?? '127.0.0.1';
  const delayMs = opts.delayMs ?? 0;
  if (opts.mix !== undefined) scriptedBehaviourFor('check', 0, opts.mix); // fail fast on a bad mix
  const plans: TaskPlan[] = tasks.map((task) => {
    const repoDir = task.repoDir ?? (task.repo ? resolve(opts.repoRoot ?? process.cwd(), task.repo) : null);
    const gist = (task.statement.split('\n').find((l) => l.trim() !== '') ?? task.id).trim().slice(0, 120);
    return { task, gist, ...planPatch(task.referencePatch, repoDir !== null && existsSync(repoDir) ? repoDir : null) };
  });
  const requests: ScriptedLeafModel['requests'] = [];
  let served = 0;

  const taskOf = (messages: any[]): TaskPlan | undefined => {
    const first = textOf(messages.find((m) => m?.role === 'user')?.content);
    let best: TaskPlan | undefined;
    for (const p of plans) {
      if (p.task.statement !== '' && first.includes(p.task.statement) && (!best || p.task.statement.length > best.task.statement.length)) best = p;
    }
    return best;
  };

  const complete = (body: any): unknown => {
    const messages: any[] = body.messages;
    const plan = taskOf(messages);
    const step = scriptedStepOf(messages);
    // no tools offered (or tool_choice 'none'): a compaction request
    const summary = body.tools === undefined || body.tools === null || (Array.isArray(body.tools) && body.tools.length === 0) || body.tool_choice === 'none';
    let turn: Turn;
    if (summary) turn = final(summaryText(plan, step));
    else if (!plan) turn = final('I cannot help with this task.');
    else {
      const seed = typeof body.seed === 'number' && Number.isFinite(body.seed) ? body.seed : 0;
      turn = turnAt(plan, opts.behaviour ?? scriptedBehaviourFor(plan.task.id, seed, opts.mix), step);
    }
    const toolCalls = turn.calls.map((c, i) => ({ id: `call_${step}_${i}`, type: 'function' as const, function: { name: c.name, arguments: c.arguments } }));
    const { usage, logprobs } = accounting(messages, turn.content, toolCalls, body.logprobs === true);
    const finish = turn.finish ?? (toolCalls.length ? 'tool_calls' : 'stop');
    return {
      id: `chatcmpl-scripted-${++served}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: turn.content, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) },
          finish_reason: finish,
          ...(logprobs ? { logprobs } : {}),
        },
      ],
      usage,
    };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const path = new URL(req.url ?? '/', 'http://localhost').pathname.replace(/\/+$/, '');
    if (req.method === 'GET' && path === '/v1/models') {
      sendJson(res, 200, { object: 'list', data: [{ id: model, object: 'model', created: 0, owned_by: 'frognano' }] });
      return;
    }
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      sendJson(res, 404, apiError(`no route ${req.method} ${req.url}`, 'not_found_error'));
      return;
    }
    let body: any;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      sendJson(res, 400, apiError('request body is not valid JSON', 'invalid_request_error'));
      return;
    }
    if (typeof body !== 'object' || body === null || !Array.isArray(body.messages)) {
      sendJson(res, 400, apiError('body.messages must be an array', 'invalid_request_error'));
      return;
    }
    requests.push({ body, at: Date.now() });
    if (body.stream === true) {
      sendJson(res, 400, apiError('the scripted model does not stream', 'invalid_request_error'));
      return;
    }
    if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
    sendJson(res, 200, complete(body));
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) sendJson(res, 500, apiError(String(e), 'server_error'));
    });
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(opts.port ?? 0, host, () => ok());
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://${host.includes(':') ? `[${host}]` : host}:${port}/v1`,
    model,
    requests,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

// ---------------------------------------------------------------- script mode

/** Reads a tasks.jsonl file (blank lines skipped). */
export function loadScriptedTasks(file: string): ScriptedTask[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .map((l, i) => {
      try {
        return JSON.parse(l) as ScriptedTask;
      } catch (e) {
        throw new Error(`${file}:${i + 1}: ${(e as Error).message}`);
      }
    });
}

async function main(argv: string[]): Promise<void> {
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('--')) throw new Error(`unexpected argument ${a}`);
    const eq = a.indexOf('=');
    if (eq > 0) flags.set(a.slice(2, eq), a.slice(eq + 1));
    else flags.set(a.slice(2), argv[++i] ?? '');
  }
  const file = flags.get('tasks');
  if (!file) throw new Error('usage: scriptedModel.ts --tasks FILE.jsonl [--port N] [--host H] [--behaviour B] [--model M] [--delay-ms N] [--repo-root DIR]');
  const tasks = loadScriptedTasks(file);
  // task `repo` paths are relative to the JSONL's folder when they exist there, else to the current directory
  const jsonlDir = dirname(resolve(file));
  const repoRoot = flags.get('repo-root') ?? (tasks.some((t) => t.repo && existsSync(resolve(jsonlDir, t.repo))) ? jsonlDir : process.cwd());
  const behaviour = flags.get('behaviour') as ScriptedBehaviour | undefined;
  if (behaviour !== undefined && !['good', 'failing', 'hacking', 'wander', 'cutoff', 'malformed'].includes(behaviour)) throw new Error(`unknown --behaviour ${behaviour}`);
  const server = await startScriptedLeafModel({
    tasks,
    behaviour,
    repoRoot,
    model: flags.get('model'),
    host: flags.get('host'),
    port: flags.has('port') ? Number(flags.get('port')) : undefined,
    delayMs: flags.has('delay-ms') ? Number(flags.get('delay-ms')) : undefined,
  });
  console.log(`scripted Leaf model ${server.model} serving ${tasks.length} task(s)${behaviour ? ` (behaviour ${behaviour})` : ''} at ${server.baseUrl}`);
  process.once('SIGINT', () => {
    void server.close().then(() => process.exit(0));
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(2);
  });
}
