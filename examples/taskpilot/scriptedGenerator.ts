/**
 * A scripted TaskPilot generator: an OpenAI-compatible chat-completions server that
 * answers the requests of src/taskpilot/generator/ (SPEC §15) from a list of
 * proposals, for the tests and the demo. No model, no randomness.
 *
 * - A propose request (its user message starts with `PROPOSE_HEADER`) gets the next
 *   entry of `proposals` as JSON text in the message content:
 *   `{ statement: statements[start], goldPatch, tests: { files }, category }`.
 *   Past the end, the list starts over. An entry `'invalid'` answers plain text that
 *   holds no JSON; an entry `{ repeat: i }` answers proposal `i` again (a duplicate).
 *   `mode: 'invalid'` answers plain text to every propose request, `mode: 'repeat'`
 *   answers proposal 0 to every one.
 * - A refine request (`REFINE_HEADER`) is answered with a deterministic rewrite: the
 *   current statement (between the `<statement>` lines) is looked up in the ladders
 *   (each proposal's `statements`, least to most specific); `Direction: easier`
 *   answers the next more specific statement, `harder` the next less specific one,
 *   clamped at the ends (the same statement again). An unknown statement is answered
 *   unchanged.
 *
 * ```sh
 * npx tsx --conditions=@frognano/source examples/taskpilot/scriptedGenerator.ts --proposals examples/taskpilot/proposals.json --set python [--port 8002]
 * ```
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PilotCategory } from '../../src/taskpilot/candidate.js';
import { PROPOSE_HEADER } from '../../src/taskpilot/generator/propose.js';
import { REFINE_HEADER } from '../../src/taskpilot/generator/refine.js';
import { type ScriptedServer, startScriptedServer, textOf } from './scriptedHttp.js';

/** One scripted proposal with its statement ladder. */
export interface ScriptedProposal {
  /** A name for logs (not sent). */
  name?: string;
  category: PilotCategory;
  /** The statement ladder, least specific first (3-4 levels in proposals.json). */
  statements: string[];
  /** The index of the proposed statement in `statements` (default 0). */
  start?: number;
  goldPatch: string;
  tests: { files: Record<string, string> };
}

/** A set of proposals for one test command (a value of proposals.json). */
export interface ScriptedProposalSet {
  tests: { command: string; log?: 'pytest' | 'unittest' | 'tap' | 'junit-xml' };
  proposals: ScriptedProposal[];
}

/** An entry of the propose script. */
export type ScriptedProposeEntry = ScriptedProposal | 'invalid' | { repeat: number };

/** Options of {@link startScriptedGenerator}. */
export interface ScriptedGeneratorOptions {
  /** The propose script, in order (see the module comment). */
  proposals: ScriptedProposeEntry[];
  /** `invalid`: every propose answer is plain text; `repeat`: every one is proposal 0. */
  mode?: 'script' | 'invalid' | 'repeat';
  model?: string;
  port?: number;
  host?: string;
}

/** The text answered to an `'invalid'` entry: no JSON object in it. */
export const INVALID_PROPOSAL_TEXT = 'I have looked at the repository and I think a good task would be to improve the error handling.';

/** The JSON answer of a proposal. */
export function proposalAnswer(p: ScriptedProposal): string {
  const statement = p.statements[p.start ?? 0];
  if (statement === undefined) throw new TypeError(`proposal ${p.name ?? ''}: start ${p.start} is outside its ${p.statements.length} statement(s)`);
  return JSON.stringify({ statement, goldPatch: p.goldPatch, tests: { files: p.tests.files }, category: p.category });
}

/** The refine rewrite: the ladder step next to `current` in `direction` (see the module comment). */
export function refineLadder(ladders: readonly (readonly string[])[], current: string, direction: 'easier' | 'harder'): string {
  const cur = current.trim();
  for (const ladder of ladders) {
    const i = ladder.findIndex((s) => s.trim() === cur);
    if (i >= 0) return ladder[Math.max(0, Math.min(ladder.length - 1, i + (direction === 'easier' ? 1 : -1)))]!;
  }
  return cur;
}

/** Starts the scripted generator (see the module comment). */
export async function startScriptedGenerator(opts: ScriptedGeneratorOptions): Promise<ScriptedServer & { proposed: number }> {
  const script = opts.proposals;
  const real = script.filter((e): e is ScriptedProposal => typeof e === 'object' && 'statements' in e);
  const ladders = real.map((p) => p.statements);
  let next = 0;
  const state = { proposed: 0 };
  const proposeReply = (): string => {
    state.proposed++;
    if (opts.mode === 'invalid') return INVALID_PROPOSAL_TEXT;
    if (opts.mode === 'repeat') return proposalAnswer(real[0]!);
    if (script.length === 0) return INVALID_PROPOSAL_TEXT;
    const e = script[next++ % script.length]!;
    if (e === 'invalid') return INVALID_PROPOSAL_TEXT;
    if ('repeat' in e) {
      const p = real[e.repeat];
      if (!p) throw new TypeError(`repeat ${e.repeat}: there are ${real.length} proposal(s)`);
      return proposalAnswer(p);
    }
    return proposalAnswer(e);
  };
  const server = await startScriptedServer({
    model: opts.model ?? 'scripted-generator',
    port: opts.port,
    host: opts.host,
    reply: (body) => {
      const first = textOf((body.messages as any[]).find((m) => m?.role === 'user')?.content);
      if (first.startsWith(REFINE_HEADER)) {
        const direction = /^Direction: (easier|harder)$/m.exec(first)?.[1] as 'easier' | 'harder' | undefined;
        const current = /^<statement>\n([\s\S]*?)\n<\/statement>$/m.exec(first)?.[1] ?? '';
        return { content: JSON.stringify({ statement: direction ? refineLadder(ladders, current, direction) : current }) };
      }
      if (first.startsWith(PROPOSE_HEADER)) return { content: proposeReply() };
      return { content: 'I only answer TaskPilot propose and refine requests.' };
    },
  });
  return Object.defineProperty(server, 'proposed', { get: () => state.proposed, enumerable: true }) as ScriptedServer & { proposed: number };
}

/** Reads one set of proposals.json. */
export function loadProposalSet(file: string, set: string): ScriptedProposalSet {
  const all = JSON.parse(readFileSync(file, 'utf8')) as Record<string, ScriptedProposalSet>;
  const s = all[set];
  if (!s) throw new Error(`${file} has no set ${JSON.stringify(set)} (sets: ${Object.keys(all).join(', ')})`);
  return s;
}

async function main(argv: string[]): Promise<void> {
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i += 2) flags.set(argv[i]!.replace(/^--/, ''), argv[i + 1] ?? '');
  const file = flags.get('proposals');
  if (!file) throw new Error('usage: scriptedGenerator.ts --proposals FILE --set python|js [--port N] [--mode script|invalid|repeat]');
  const set = loadProposalSet(file, flags.get('set') ?? 'python');
  const server = await startScriptedGenerator({ proposals: set.proposals, mode: flags.get('mode') as ScriptedGeneratorOptions['mode'], port: flags.has('port') ? Number(flags.get('port')) : undefined });
  console.log(`scripted generator with ${set.proposals.length} proposal(s) at ${server.baseUrl} (tests: ${set.tests.command})`);
  process.once('SIGINT', () => void server.close().then(() => process.exit(0)));
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(2);
  });
}
