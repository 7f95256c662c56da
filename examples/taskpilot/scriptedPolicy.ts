/**
 * A scripted Leaf policy for TaskPilot (SPEC §15): an OpenAI-compatible
 * chat-completions server playing a coding agent on the Leaf tools, whose success
 * depends on how specific the statement is, so that p-hat estimates and statement
 * refinement can be exercised without a model.
 *
 * - The candidate of a request: the longest known statement (of the `fixes`
 *   entries' `statements`) that occurs in the first user message; that statement is
 *   the current one, and the entry's `goldPatch` is the fix. `fixes` may instead be a
 *   function of the first user message. Unknown -> "I cannot help with this task.".
 * - Specificity hints ({@link specificityHints}), 0..3:
 *   1. file: the statement names a file the gold patch changes (its path, or its
 *      basename with the extension);
 *   2. symbol: it names, as a whole word, a function or class the gold patch defines
 *      or changes (`def NAME`, `class NAME`, `function NAME`, `const NAME =` on the
 *      patch's lines or in its `@@` headers);
 *   3. example: an expected value: `returns`, `should return`, `should be`,
 *      `expected`, `gives`, `->`, `=>` or `==` followed within 4 words by a
 *      backticked value.
 * - Success probability `p = [0, 0.25, 0.5, 1][hints]` ({@link SUCCESS_BY_HINTS}).
 *   The episode succeeds iff `hash32(statement + '\0' + seed) / 2^32 < p`
 *   ({@link scriptedPolicySucceeds}), `seed` the request's `seed` (the Leaf episode's
 *   seed, the same on every turn) or, when the request has none, `hash32` of the
 *   JSON of the episode's first two messages (system prompt and task), so that an
 *   episode without a seed is still consistent across its turns (and every such
 *   episode of one statement has the same outcome: give seeds to get a rate).
 * - Turns (step = the assistant turns with tool calls so far; the server keeps no state):
 *   0: `read` the files the patch modifies; 1: success: the gold patch as `edit`
 *   calls (one per hunk, old text -> new text; `write` for added files, bash `rm`
 *   for deleted ones); failure: a wrong edit (a `TODO: investigate` comment line
 *   inserted above the first hunk); 2: a final message without tool calls.
 *   A request without tools is a compaction request: a summary is answered.
 *
 * ```sh
 * npx tsx --conditions=@frognano/source examples/taskpilot/scriptedPolicy.ts --proposals examples/taskpilot/proposals.json [--port 8001]
 * ```
 */
import { readFileSync } from 'node:fs';
import { posix, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { hash32, type ScriptedReply, type ScriptedServer, startScriptedServer, textOf } from './scriptedHttp.js';

/** A known candidate: its gold patch and every statement it may be asked with (a ScriptedProposal fits). */
export interface ScriptedFix {
  goldPatch: string;
  statements: string[];
}

/** What a `fixes` function returns for a task prompt. */
export interface ScriptedFixMatch {
  goldPatch: string;
  /** The statement of the request (its hints decide p). */
  statement: string;
}

/** Options of {@link startScriptedPolicy}. */
export interface ScriptedPolicyOptions {
  fixes: readonly ScriptedFix[] | ((firstUserMessage: string) => ScriptedFixMatch | undefined);
  model?: string;
  port?: number;
  host?: string;
}

/** p by hint count (0, 1, 2, 3 or more). */
export const SUCCESS_BY_HINTS: readonly number[] = Object.freeze([0, 0.25, 0.5, 1]);

/** The specificity hints of a statement for a gold patch (see the module comment). */
export function specificityHints(statement: string, goldPatch: string): { file: boolean; symbol: boolean; example: boolean; count: number } {
  const files = new Set<string>();
  for (const m of goldPatch.matchAll(/^(?:---|\+\+\+) (?:[ab]\/)?(\S+)/gm)) if (m[1] !== '/dev/null' && m[1] !== 'dev/null') files.add(m[1]!);
  const file = [...files].some((f) => statement.includes(f) || new RegExp(`(^|[^\\w./-])${escapeRe(posix.basename(f))}(?![\\w])`).test(statement));
  const symbols = new Set<string>();
  const defRe = /\b(?:def|class|function|const|let|var)\s+([A-Za-z_$][\w$]*)/g;
  for (const line of goldPatch.split('\n')) {
    if (/^(---|\+\+\+|diff |index )/.test(line)) continue;
    for (const m of line.matchAll(defRe)) symbols.add(m[1]!);
  }
  const symbol = [...symbols].some((s) => new RegExp(`(^|[^\\w$])${escapeRe(s)}(?![\\w$])`).test(statement));
  const example = /(?:->|=>|==|\breturns?\b|\bshould (?:return|be)\b|\bexpected\b|\bgives?\b)\s+(?:[^\s`]+\s+){0,4}`[^`\n]+`/i.test(statement);
  return { file, symbol, example, count: Number(file) + Number(symbol) + Number(example) };
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether the episode `(statement, seed)` succeeds under success probability `p`. */
export function scriptedPolicySucceeds(statement: string, seed: number, p: number): boolean {
  return hash32(`${statement}\u0000${seed}`) / 2 ** 32 < p;
}

/** p of a statement for a gold patch: {@link SUCCESS_BY_HINTS} at its hint count. */
export function scriptedPolicyP(statement: string, goldPatch: string): number {
  return SUCCESS_BY_HINTS[Math.min(3, specificityHints(statement, goldPatch).count)]!;
}

interface FileEdit {
  path: string;
  status: 'modified' | 'added' | 'deleted';
  hunks: { oldText: string; newText: string }[];
}

/** Splits a unified diff into per-file hunks as old text -> new text. */
export function patchEdits(patch: string): FileEdit[] {
  const out: FileEdit[] = [];
  const lines = patch.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  let cur: FileEdit | null = null;
  let hunk: { oldText: string; newText: string } | null = null;
  let oldPath = '';
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.startsWith('--- ') && lines[i + 1]?.startsWith('+++ ')) {
      oldPath = l.slice(4).trim();
      const newPath = lines[i + 1]!.slice(4).trim();
      i++;
      const strip = (p: string) => p.replace(/^[ab]\//, '');
      const status = oldPath === '/dev/null' ? 'added' : newPath === '/dev/null' ? 'deleted' : 'modified';
      cur = { path: strip(status === 'deleted' ? oldPath : newPath), status, hunks: [] };
      out.push(cur);
      hunk = null;
      continue;
    }
    if (!cur) continue;
    if (l.startsWith('@@')) {
      hunk = { oldText: '', newText: '' };
      cur.hunks.push(hunk);
      continue;
    }
    if (!hunk) continue;
    const noEol = lines[i + 1]?.startsWith('\\') === true;
    const text = l.slice(1) + (noEol ? '' : '\n');
    if (l.startsWith(' ') || l === '') {
      hunk.oldText += l === '' ? '\n' : text;
      hunk.newText += l === '' ? '\n' : text;
    } else if (l.startsWith('-')) hunk.oldText += text;
    else if (l.startsWith('+')) hunk.newText += text;
    else if (l.startsWith('\\')) continue;
    else if (l.startsWith('diff ') || l.startsWith('index ')) hunk = null;
  }
  return out;
}

const j = (x: unknown): string => JSON.stringify(x);
const commentPrefix = (p: string): string => (/\.(py|sh|rb|ya?ml|toml|cfg|ini)$/i.test(p) ? '#' : '//');

/** The tool calls of step 1: the fix (success) or a wrong edit. */
function fixCalls(goldPatch: string, success: boolean): { name: string; arguments: string }[] {
  const edits = patchEdits(goldPatch);
  if (!success) {
    const first = edits.find((e) => e.status === 'modified' && e.hunks.length > 0);
    if (!first) return [{ name: 'bash', arguments: j({ command: 'true' }) }];
    const old = first.hunks[0]!.oldText;
    const indent = /^[ \t]*/.exec(old)![0];
    return [{ name: 'edit', arguments: j({ file_path: first.path, old_string: old, new_string: `${indent}${commentPrefix(first.path)} TODO: investigate\n${old}` }) }];
  }
  const calls: { name: string; arguments: string }[] = [];
  for (const e of edits) {
    if (e.status === 'deleted') calls.push({ name: 'bash', arguments: j({ command: `rm -f -- '${e.path.replace(/'/g, `'\\''`)}'` }) });
    else if (e.status === 'added') calls.push({ name: 'write', arguments: j({ file_path: e.path, content: e.hunks.map((h) => h.newText).join('') }) });
    else for (const h of e.hunks) calls.push({ name: 'edit', arguments: j({ file_path: e.path, old_string: h.oldText, new_string: h.newText }) });
  }
  return calls;
}

/** The episode's seed: the request's `seed`, else a hash of its first two messages. */
export function episodeSeed(body: { seed?: unknown; messages: unknown[] }): number {
  return typeof body.seed === 'number' && Number.isInteger(body.seed) ? body.seed : hash32(JSON.stringify(body.messages.slice(0, 2)));
}

/** Starts the scripted policy (see the module comment). */
export async function startScriptedPolicy(opts: ScriptedPolicyOptions): Promise<ScriptedServer> {
  const find = (prompt: string): ScriptedFixMatch | undefined => {
    if (typeof opts.fixes === 'function') return opts.fixes(prompt);
    let best: ScriptedFixMatch | undefined;
    for (const f of opts.fixes) for (const s of f.statements) if (s !== '' && prompt.includes(s) && (!best || s.length > best.statement.length)) best = { goldPatch: f.goldPatch, statement: s };
    return best;
  };
  return startScriptedServer({
    model: opts.model ?? 'scripted-taskpilot-policy',
    port: opts.port,
    host: opts.host,
    reply: (body): ScriptedReply => {
      const messages = body.messages as any[];
      const match = find(textOf(messages.find((m) => m?.role === 'user')?.content));
      const step = messages.filter((m) => m?.role === 'assistant' && Array.isArray(m.tool_calls) && m.tool_calls.length > 0).length;
      if (!Array.isArray(body.tools) || body.tools.length === 0 || body.tool_choice === 'none') return { content: `Summary so far: ${step} tool-calling step(s) taken on ${match ? 'the task' : 'an unknown task'}.` };
      if (!match) return { content: 'I cannot help with this task.' };
      const success = scriptedPolicySucceeds(match.statement, episodeSeed(body), scriptedPolicyP(match.statement, match.goldPatch));
      const ids = (calls: { name: string; arguments: string }[]) => calls.map((c, i) => ({ id: `call_${step}_${i}`, ...c }));
      if (step === 0) {
        const reads = patchEdits(match.goldPatch).filter((e) => e.status === 'modified').map((e) => ({ name: 'read', arguments: j({ file_path: e.path }) }));
        return { content: 'Let me read the code the issue is about.', toolCalls: ids(reads.length ? reads : [{ name: 'glob', arguments: j({ pattern: '**/*' }) }]) };
      }
      if (step === 1) return { content: success ? 'I see the problem; let me fix it.' : 'I think the problem is here; let me change it.', toolCalls: ids(fixCalls(match.goldPatch, success)) };
      return { content: success ? 'Fixed the issue.' : 'I changed the code; it should work now.' };
    },
  });
}

async function main(argv: string[]): Promise<void> {
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i += 2) flags.set(argv[i]!.replace(/^--/, ''), argv[i + 1] ?? '');
  const file = flags.get('proposals');
  if (!file) throw new Error('usage: scriptedPolicy.ts --proposals FILE [--port N]');
  const sets = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { proposals: ScriptedFix[] }>;
  const fixes = Object.values(sets).flatMap((s) => s.proposals);
  const server = await startScriptedPolicy({ fixes, port: flags.has('port') ? Number(flags.get('port')) : undefined });
  console.log(`scripted TaskPilot policy knowing ${fixes.length} candidate(s) at ${server.baseUrl}`);
  process.once('SIGINT', () => void server.close().then(() => process.exit(0)));
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(2);
  });
}
