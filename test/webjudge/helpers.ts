/**
 * Shared pieces of the web judge's tests: the toy apps, the Chromium gate (SPEC
 * conventions: skipped with one line where Chromium is missing, failing under
 * FROGNANO_REQUIRE_SYSTEM=1), one browser per test file, a PNG header reader,
 * and a scripted OpenAI-compatible model that plays planner and judge.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { findBwrap } from '../../src/leaf/index.js';
import { openAiChatModel } from '../../src/llm/openAiChatModel.js';
import { findChromium, launchWebBrowser, type WebBrowser } from '../../src/webjudge/browser.js';
import { WEB_JUDGE_SYSTEM_PROMPT } from '../../src/webjudge/judgeInteraction.js';
import { WEB_PLANNER_SYSTEM_PROMPT } from '../../src/webjudge/planActions.js';
import type { WebRubric } from '../../src/webjudge/rubric.js';
import { type ChatServer, type RecordedRequest, type ScriptedReply, startChatServer } from '../helpers/chatServer.js';
import { needsPackage } from '../helpers/system.js';

/** The bundled toy apps, each with a known bug (see the comments in their sources). */
export const APPS = resolve(import.meta.dirname, 'apps');
export const app = (name: string): string => join(APPS, name);

/** Chromium is installed (else the browser tests are skipped with one line, or fail under FROGNANO_REQUIRE_SYSTEM=1). */
export const hasChromium = (): boolean => needsPackage('chromium', findChromium() !== null, 'the web judge\'s browser tests');
/** bubblewrap is installed (the `--start` app runs in the Leaf sandbox). */
export const hasBwrapForStart = (): boolean => needsPackage('bubblewrap', findBwrap() !== null, 'the web judge\'s --start tests');

/** One browser for the whole test file (launched in beforeAll, closed in afterAll), and a fresh temp folder per call of `tmp()`. */
export function useBrowser(enabled: boolean): { readonly browser: WebBrowser; tmp(): string } {
  let b: WebBrowser | undefined;
  const dirs: string[] = [];
  beforeAll(async () => {
    if (enabled) b = await launchWebBrowser();
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  return {
    get browser(): WebBrowser {
      if (!b) throw new Error('no browser launched');
      return b;
    },
    tmp(): string {
      const d = mkdtempSync(join(tmpdir(), 'frognano-webjudge-test-'));
      dirs.push(d);
      return d;
    },
  };
}

/** The signature and IHDR size of a PNG file's bytes, or null when it is not a PNG. */
export function pngSize(bytes: Buffer): { width: number; height: number } | null {
  const sig = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  if (bytes.length < 24 || !bytes.subarray(0, 8).equals(sig) || bytes.toString('latin1', 12, 16) !== 'IHDR') return null;
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** Which stage a request to the scripted server comes from (by its system prompt). */
export function stageOf(req: RecordedRequest): 'planner' | 'judge' | 'other' {
  const sys = req.body.messages?.[0];
  if (sys?.role !== 'system') return 'other';
  if (sys.content === WEB_PLANNER_SYSTEM_PROMPT) return 'planner';
  if (sys.content === WEB_JUDGE_SYSTEM_PROMPT) return 'judge';
  return 'other';
}

/**
 * A scripted planner + judge server: planner requests get `planner` replies in
 * order, judge requests get `judge` replies in order (a request past the end of
 * its list gets HTTP 418).
 */
export async function scriptedModels(planner: ScriptedReply[], judge: ScriptedReply[]): Promise<{ server: ChatServer; model: ReturnType<typeof openAiChatModel> }> {
  let p = 0;
  let j = 0;
  const exhausted: ScriptedReply = { status: 418, body: '{"error":{"message":"script exhausted"}}' };
  const server = await startChatServer((req) => {
    const stage = stageOf(req);
    if (stage === 'planner') return planner[p++] ?? exhausted;
    if (stage === 'judge') return judge[j++] ?? exhausted;
    return exhausted;
  });
  return { server, model: openAiChatModel({ baseUrl: server.baseUrl, model: 'scripted', env: {}, maxRetries: 0, retryBaseMs: 1 }) };
}

/** A JSON answer as the model would write it (in a fenced block, with a sentence before). */
export const answer = (v: unknown): string => `Here is my answer.\n\`\`\`json\n${JSON.stringify(v)}\n\`\`\``;

/** The dead-button app's rubric. */
export const SHOPPING_RUBRIC: WebRubric = {
  task: 'A shopping list: type an item and press Add to append it; Clear list empties the list; a counter shows the number of items.',
  items: [
    { id: 'F1', dimension: 'functional', text: 'Clicking Add appends the typed item to the list' },
    { id: 'F2', dimension: 'functional', text: 'Clear list empties the list and the counter shows 0 items' },
    { id: 'C1', dimension: 'content', text: 'The page has a heading "Shopping list"' },
    { id: 'U1', dimension: 'ux', text: 'The item field has a visible label' },
  ],
};
