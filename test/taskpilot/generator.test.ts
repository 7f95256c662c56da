/**
 * The TaskPilot generator source (SPEC §15) against the scripted generator over HTTP
 * (the real OpenAI-compatible client), the repository view, refinement along the
 * statement ladders, and the scripted policy's specificity-driven success rate.
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { INVALID_PROPOSAL_TEXT, refineLadder, type ScriptedProposal, type ScriptedProposalSet, startScriptedGenerator } from '../../examples/taskpilot/scriptedGenerator.js';
import type { ScriptedServer } from '../../examples/taskpilot/scriptedHttp.js';
import { episodeSeed, patchEdits, SUCCESS_BY_HINTS, scriptedPolicyP, scriptedPolicySucceeds, specificityHints, startScriptedPolicy } from '../../examples/taskpilot/scriptedPolicy.js';
import { FrognanoError } from '../../src/errors/FrognanoError.js';
import { openAiChatModel } from '../../src/llm/openAiChatModel.js';
import type { PilotCandidate } from '../../src/taskpilot/candidate.js';
import { checkProposeAnswer, generatorCandidates, statementLeak, patchPaths, pilotCandidateId, PROPOSE_HEADER, proposeCandidate } from '../../src/taskpilot/generator/propose.js';
import { refineMessages, refineStatement } from '../../src/taskpilot/generator/refine.js';
import { renderRepoView, repoView } from '../../src/taskpilot/generator/repoView.js';
import { expectFrognanoErrorAsync } from '../helpers/expectError.js';
import { scratchDir } from '../helpers/leafTask.js';

const HERE = join(import.meta.dirname, '../../examples/taskpilot');
const REPO = join(HERE, 'repo');
const SETS = JSON.parse(readFileSync(join(HERE, 'proposals.json'), 'utf8')) as Record<'python' | 'js', ScriptedProposalSet>;
const PY = SETS.python;
const ALL: ScriptedProposal[] = [...SETS.python.proposals, ...SETS.js.proposals];

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
const modelOf = (s: ScriptedServer) => openAiChatModel({ baseUrl: s.baseUrl, model: s.model, env: {}, retryBaseMs: 1, maxRetries: 0 });
const userText = (body: any): string => body.messages.filter((m: any) => m.role === 'user').map((m: any) => m.content).join('\n');

describe('repoView', () => {
  it('lists the bundled repo sorted, .gitignore-aware, shows small source files first within the budget, deterministically', async () => {
    const v = await repoView(REPO);
    expect(v.files).toEqual([...v.files].sort());
    expect(v.files).toContain('textkit/slug.py');
    expect(v.files).toContain('tests/test_textkit.py');
    expect(v.files).toContain('js/test/range.test.js');
    expect(v.files.some((f) => f.includes('__pycache__') || f.includes('.pytest_cache'))).toBe(false);
    expect(v.contents.map((c) => c.path)).toContain('tests/test_textkit.py');
    expect(v.contents.find((c) => c.path === 'textkit/slug.py')!.content).toBe(readFileSync(join(REPO, 'textkit/slug.py'), 'utf8'));
    expect(await repoView(REPO)).toEqual(v);
    expect(renderRepoView(v)).toBe(renderRepoView(await repoView(REPO)));
  });

  it('is bounded: maxListed, maxBytes, maxFileBytes; skips .git, node_modules, ignored files, binaries and links', async () => {
    const d = await scratchDir();
    await mkdir(join(d, '.git'));
    await mkdir(join(d, 'node_modules/x'), { recursive: true });
    await mkdir(join(d, 'src'));
    await writeFile(join(d, '.git/HEAD'), 'ref\n');
    await writeFile(join(d, 'node_modules/x/i.js'), 'x\n');
    await writeFile(join(d, '.gitignore'), 'build/\n*.log\n');
    await mkdir(join(d, 'build'));
    await writeFile(join(d, 'build/out.js'), 'x\n');
    await writeFile(join(d, 'debug.log'), 'x\n');
    await writeFile(join(d, 'src/a.py'), 'a = 1\n'); // 6 bytes
    await writeFile(join(d, 'src/b.py'), 'b = 22\n'); // 7 bytes
    await writeFile(join(d, 'src/big.py'), `${'x = 1\n'.repeat(100)}`); // 600 bytes
    await writeFile(join(d, 'README.md'), 'hi\n'); // 3 bytes, not source: after the source files
    await writeFile(join(d, 'blob.bin'), Buffer.from([1, 0, 2]));
    await symlink('src/a.py', join(d, 'link.py'));
    const all = await repoView(d);
    expect(all.files).toEqual(['.gitignore', 'README.md', 'blob.bin', 'src/a.py', 'src/b.py', 'src/big.py']);
    expect(all.contents.map((c) => c.path)).toEqual(['.gitignore', 'README.md', 'src/a.py', 'src/b.py', 'src/big.py']);
    const small = await repoView(d, { maxBytes: 13 });
    expect(small.contents.map((c) => c.path)).toEqual(['src/a.py', 'src/b.py']); // source first: 6 + 7 bytes
    expect(small.bytes).toBe(13);
    expect(small.omitted).toBe(4);
    expect((await repoView(d, { maxBytes: 10 })).contents.map((c) => c.path)).toEqual(['README.md', 'src/a.py']); // b does not fit, README (3) does
    expect((await repoView(d, { maxFileBytes: 100 })).contents.map((c) => c.path)).not.toContain('src/big.py');
    const listed = await repoView(d, { maxListed: 2 });
    expect(listed.files).toEqual(['.gitignore', 'README.md']);
    expect(listed.unlisted).toBe(4);
    expect(renderRepoView(listed)).toContain('... and 4 more file(s)');
    expect((await repoView(d, { gitignore: false })).files).toContain('debug.log');
  });

  it('rejects a repoDir that is not a folder', () => expectFrognanoErrorAsync(() => repoView(join(REPO, 'conftest.py')), 'INVALID_TYPE', 'folder'));
});

describe('proposeCandidate / generatorCandidates against the scripted generator', () => {
  const tests = PY.tests;
  it('a valid proposal becomes a generator candidate: snapshot repoDir, hidden files, contract id, no F2P/P2P yet', async () => {
    server = await startScriptedGenerator({ proposals: PY.proposals });
    const view = await repoView(REPO);
    const c = await proposeCandidate(modelOf(server), view, { category: 'bug-fix', seed: 5, tests, repoDir: REPO });
    const p = PY.proposals[0]!;
    const hex = createHash('sha256').update(p.goldPatch + JSON.stringify(p.tests.files)).digest('hex').slice(0, 12);
    expect(c).toEqual({
      id: `generator-${hex}`,
      source: 'generator',
      category: p.category,
      statement: p.statements[p.start ?? 0]!,
      repoDir: REPO,
      goldPatch: p.goldPatch,
      tests: { command: tests.command, log: 'pytest', files: p.tests.files },
      meta: { requestedCategory: 'bug-fix', seed: 5 },
    } satisfies PilotCandidate);
    expect(c.id).toBe(pilotCandidateId('generator', p.goldPatch, p.tests.files));
    const body = server.requests[0]!.body;
    expect(body.seed).toBe(5);
    expect(userText(body).startsWith(PROPOSE_HEADER)).toBe(true);
    expect(userText(body)).toContain('--- textkit/slug.py');
    expect(userText(body)).toContain(tests.command);
  });

  it('collects count distinct candidates; a repeat is a duplicate; categories cycle by seed; no request carries another candidate', async () => {
    const [a, b, c] = PY.proposals;
    server = await startScriptedGenerator({ proposals: [a!, { repeat: 0 }, b!, c!] });
    const r = await generatorCandidates({ model: modelOf(server), repoDir: REPO, tests, count: 3, seed: 1, categories: ['bug-fix', 'feature'] });
    expect(r.candidates.map((x) => x.statement)).toEqual([a, b, c].map((p) => p!.statements[p!.start ?? 0]));
    expect(r.discarded).toHaveLength(1);
    expect(r.discarded[0]).toMatchObject({ reason: 'duplicate', duplicateOf: r.candidates[0]!.id });
    expect(server.requests.map((q) => /^Category: (.*)$/m.exec(userText(q.body))![1])).toEqual(['feature', 'bug-fix', 'feature', 'bug-fix']);
    expect(server.requests.map((q) => q.body.seed)).toEqual([1, 2, 3, 4]);
    for (const q of server.requests) for (const p of PY.proposals) for (const s of p.statements) expect(userText(q.body)).not.toContain(s);
  });

  it('the same hidden tests with another patch are a duplicate too', async () => {
    const a = PY.proposals[0]!;
    const other: ScriptedProposal = { ...PY.proposals[1]!, tests: a.tests };
    server = await startScriptedGenerator({ proposals: [a, other] });
    const r = await generatorCandidates({ model: modelOf(server), repoDir: REPO, tests, count: 2, seed: 0, maxAttempts: 2 });
    expect(r.candidates).toHaveLength(1);
    expect(r.discarded.map((d) => d.reason)).toEqual(['duplicate']);
  });

  it('non-JSON answers are retried, then MODEL_ANSWER_INVALID; generatorCandidates reports invalid-answer and goes on', async () => {
    server = await startScriptedGenerator({ proposals: [], mode: 'invalid' });
    const view = await repoView(REPO);
    await expectFrognanoErrorAsync(() => proposeCandidate(modelOf(server!), view, { category: 'feature', seed: 0, tests, repoDir: REPO, retries: 2 }), 'MODEL_ANSWER_INVALID', '3 attempt(s)');
    expect(server.requests).toHaveLength(3);
    expect(server.requests[1]!.body.messages.at(-2).content).toBe(INVALID_PROPOSAL_TEXT);
    await server.close();
    server = await startScriptedGenerator({ proposals: ['invalid', 'invalid', PY.proposals[0]!, 'invalid', 'invalid', 'invalid', PY.proposals[1]!] });
    const r = await generatorCandidates({ model: modelOf(server), repoDir: REPO, tests, count: 2, seed: 0, retries: 2 });
    expect(r.candidates).toHaveLength(2);
    expect(r.discarded).toEqual([{ reason: 'invalid-answer', error: expect.stringContaining('no JSON object'), category: 'feature', seed: 1 }]); // PILOT_CATEGORIES[1]
  });

  it('repeat mode runs out of attempts with one candidate and the rest duplicates', async () => {
    server = await startScriptedGenerator({ proposals: PY.proposals, mode: 'repeat' });
    const r = await generatorCandidates({ model: modelOf(server), repoDir: REPO, tests, count: 2, seed: 0, maxAttempts: 4 });
    expect(r.candidates).toHaveLength(1);
    expect(r.discarded.map((d) => d.reason)).toEqual(['duplicate', 'duplicate', 'duplicate']);
  });

  it('an answer whose patch is not a diff, or that edits its own hidden tests, is rejected and retried', async () => {
    const p = PY.proposals[0]!;
    const bad1 = JSON.stringify({ statement: 's', goldPatch: 'just replace the function', tests: p.tests, category: 'bug-fix' });
    const path = Object.keys(p.tests.files)[0]!;
    const bad2 = JSON.stringify({ statement: 's', goldPatch: `--- a/${path}\n+++ b/${path}\n@@ -1 +1 @@\n-a\n+b\n`, tests: p.tests, category: 'bug-fix' });
    const { startChatServer } = await import('../helpers/chatServer.js');
    const chat = await startChatServer([bad1, bad2, JSON.stringify({ statement: 'ok', goldPatch: p.goldPatch, tests: p.tests, category: 'nope' })]);
    try {
      const m = openAiChatModel({ baseUrl: chat.baseUrl, model: 'm', env: {}, maxRetries: 0 });
      const err = await proposeCandidate(m, await repoView(REPO), { category: 'bug-fix', seed: 0, tests, repoDir: REPO }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(FrognanoError);
      expect((err as FrognanoError).code).toBe('MODEL_ANSWER_INVALID');
      const feedback = chat.requests.map((q) => String(q.body.messages!.at(-1)!.content));
      expect(feedback[1]).toContain('unified diff');
      expect(feedback[2]).toContain('must not change the hidden test files');
    } finally {
      await chat.close();
    }
  });

  it('refuses hostile answers (review): config or .git hidden files, a hidden file over a source file, a ./ path to a hidden test, a statement quoting the fix', () => {
    const good = PY.proposals[0]!;
    const answer = (over: Partial<{ statement: string; goldPatch: string; files: Record<string, string> }>) => ({ statement: over.statement ?? good.statements[1]!, goldPatch: over.goldPatch ?? good.goldPatch, tests: { files: over.files ?? good.tests.files }, category: 'bug-fix' as const });
    const exists = (p: string): boolean => ['textkit/slug.py', 'tests/test_textkit.py'].includes(p);
    expect(checkProposeAnswer(answer({}), exists)).toBeNull();
    expect(checkProposeAnswer(answer({ files: { 'conftest.py': 'collect_ignore = ["tests"]\n' } }), exists)).toMatch(/test-configuration file/);
    expect(checkProposeAnswer(answer({ files: { '.git/hooks/pre-commit': 'exit 0\n' } }), exists)).toMatch(/repository or test-configuration/);
    expect(checkProposeAnswer(answer({ files: { 'textkit/slug.py': 'def slugify(s): return s\n' } }), exists)).toMatch(/would replace the snapshot's textkit\/slug\.py/);
    const hidden = Object.keys(good.tests.files)[0]!;
    const viaDot = `diff --git a/./${hidden} b/./${hidden}\n--- a/./${hidden}\n+++ b/./${hidden}\n@@ -1 +1 @@\n-x\n+y\n`;
    expect(checkProposeAnswer(answer({ goldPatch: `${good.goldPatch}${viaDot}` }), exists)).toMatch(/must not change the hidden test files/);
    const added = good.goldPatch.split('\n').find((l) => l.startsWith('+') && !l.startsWith('+++') && l.trim().length > 17)!.slice(1).trim();
    expect(checkProposeAnswer(answer({ statement: `Fix it: ${added}` }), exists)).toMatch(/quotes the gold patch or the hidden tests/);
  });

  it('patchPaths', () => expect(patchPaths(PY.proposals[0]!.goldPatch)).toEqual(['textkit/slug.py']));
});

describe('refineStatement along the scripted ladders', () => {
  const cand = (p: ScriptedProposal, level: number): PilotCandidate => ({
    id: pilotCandidateId('generator', p.goldPatch, p.tests.files),
    source: 'generator',
    category: p.category,
    statement: p.statements[level]!,
    repoDir: REPO,
    goldPatch: p.goldPatch,
    tests: { command: 'x', files: p.tests.files },
  });
  it('easier answers the next more specific statement, harder the next less specific, clamped at the ends', async () => {
    server = await startScriptedGenerator({ proposals: ALL });
    const model = modelOf(server);
    for (const p of ALL) {
      const n = p.statements.length;
      for (let i = 0; i < n; i++) {
        expect(await refineStatement(model, cand(p, i), 'easier')).toBe(p.statements[Math.min(n - 1, i + 1)]);
        expect(await refineStatement(model, cand(p, i), 'harder')).toBe(p.statements[Math.max(0, i - 1)]);
      }
    }
    const text = userText(server.requests[0]!.body);
    expect(text).toMatch(/^Direction: easier$/m);
    expect(text).toContain(ALL[0]!.goldPatch.trimEnd());
    expect(text).toContain(Object.values(ALL[0]!.tests.files)[0]!.trimEnd());
    expect(text).toContain('MORE specific');
    expect(userText({ messages: refineMessages(cand(ALL[0]!, 1), 'harder') })).toContain('LESS specific');
    expect(refineLadder([['a', 'b']], 'unknown', 'easier')).toBe('unknown');
  });

  it('an invalid refine answer -> MODEL_ANSWER_INVALID after the retries', async () => {
    const { startChatServer } = await import('../helpers/chatServer.js');
    const chat = await startChatServer(['no', '{"statement": ""}']);
    try {
      const m = openAiChatModel({ baseUrl: chat.baseUrl, model: 'm', env: {}, maxRetries: 0 });
      await expectFrognanoErrorAsync(() => refineStatement(m, cand(ALL[0]!, 0), 'easier', { retries: 1 }), 'MODEL_ANSWER_INVALID', 'refineStatement');
      expect(chat.requests).toHaveLength(2);
    } finally {
      await chat.close();
    }
  });

  it('statementLeak is the check of refined statements too: a rewrite quoting the fix is retried, then MODEL_ANSWER_INVALID', async () => {
    const good = PY.proposals[0]!;
    const added = good.goldPatch.split('\n').find((l) => l.startsWith('+') && !l.startsWith('+++') && l.trim().length > 17)!.slice(1).trim();
    expect(statementLeak(`Make it ${added}`, good.goldPatch, good.tests.files)).toMatch(/quotes the gold patch/);
    expect(statementLeak(good.statements[1]!, good.goldPatch, good.tests.files)).toBeNull();
    const leaky = { name: 'leaky', complete: async () => JSON.stringify({ statement: `Write ${added}` }) };
    await expectFrognanoErrorAsync(() => refineStatement(leaky, cand(good, 1), 'easier', { retries: 1 }), 'MODEL_ANSWER_INVALID', 'quotes the gold patch');
  });

  it('rejects a bad direction', () => expectFrognanoErrorAsync(() => refineStatement({ name: 'x', complete: async () => '' }, cand(ALL[0]!, 0), 'sideways' as never), 'INVALID_TYPE', 'direction'));
});

describe('the scripted policy', () => {
  it('every bundled ladder counts 0, 1, 2, 3 hints (p 0, 0.25, 0.5, 1)', () => {
    for (const p of ALL) {
      expect(p.statements.map((s) => specificityHints(s, p.goldPatch).count)).toEqual([0, 1, 2, 3]);
      expect(p.statements.map((s) => scriptedPolicyP(s, p.goldPatch))).toEqual([...SUCCESS_BY_HINTS]);
    }
  });

  it('the success rate over seeds 0..999 matches p (exact counts for fixed seeds)', () => {
    const counts = ALL.map((p) => p.statements.map((s) => Array.from({ length: 1000 }, (_, k) => scriptedPolicySucceeds(s, k, scriptedPolicyP(s, p.goldPatch))).filter(Boolean).length));
    expect(counts).toEqual([
      [0, 261, 493, 1000],
      [0, 252, 478, 1000],
      [0, 236, 472, 1000],
      [0, 270, 487, 1000],
      [0, 248, 523, 1000],
      [0, 219, 480, 1000],
      [0, 229, 518, 1000],
    ]);
    for (const row of counts) row.forEach((n, h) => expect(Math.abs(n / 1000 - SUCCESS_BY_HINTS[h]!)).toBeLessThan(0.05));
    // property: for any statement, monotone in p at a fixed seed
    for (let k = 0; k < 200; k++) {
      const s = `statement ${k}`;
      const ok = [0, 0.25, 0.5, 1].map((p) => scriptedPolicySucceeds(s, k, p));
      expect(ok[0]).toBe(false);
      expect(ok[3]).toBe(true);
      if (ok[1]) expect(ok[2]).toBe(true);
    }
  });

  it('the episode seed is the request seed, else a hash of the first two messages', () => {
    expect(episodeSeed({ seed: 4, messages: [] })).toBe(4);
    const m = [{ role: 'system', content: 'a' }, { role: 'user', content: 'b' }];
    expect(episodeSeed({ messages: m })).toBe(episodeSeed({ messages: [...m, { role: 'assistant', content: 'c' }] }));
  });

  it('over HTTP: reads, then the gold patch as edits (success) or a wrong edit (failure), then a final message', async () => {
    const p = PY.proposals[0]!; // slugify
    server = await startScriptedPolicy({ fixes: ALL });
    const tools = [{ type: 'function', function: { name: 'read', parameters: {} } }];
    const ask = async (statement: string, seed: number, history: unknown[]) => {
      const r = await fetch(`${server!.baseUrl}/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'm', seed, tools, messages: [{ role: 'system', content: 'sys' }, { role: 'user', content: statement }, ...history] }) });
      return ((await r.json()) as any).choices[0].message;
    };
    const fake = (n: number) => Array.from({ length: n }, (_, i) => ({ role: 'assistant', content: '', tool_calls: [{ id: `call_${i}_0`, type: 'function', function: { name: 'read', arguments: '{}' } }] }));
    const easy = p.statements[3]!;
    const m0 = await ask(easy, 1, []);
    expect(m0.tool_calls.map((c: any) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([['read', { file_path: 'textkit/slug.py' }]]);
    const m1 = await ask(easy, 1, fake(1));
    const edits = m1.tool_calls.map((c: any) => JSON.parse(c.function.arguments));
    // applying the edits to the snapshot file gives the gold patch's result
    let text = readFileSync(join(REPO, 'textkit/slug.py'), 'utf8');
    for (const e of edits) {
      expect(text.split(e.old_string)).toHaveLength(2);
      text = text.replace(e.old_string, e.new_string);
    }
    expect(text).toContain('re.findall');
    const m2 = await ask(easy, 1, fake(2));
    expect(m2.tool_calls).toBeUndefined();
    const wrong = await ask(p.statements[0]!, 1, fake(1)); // p = 0
    expect(JSON.parse(wrong.tool_calls[0].function.arguments).new_string).toContain('# TODO: investigate');
    expect((await ask('an unknown task', 1, [])).content).toBe('I cannot help with this task.');
    expect(patchEdits(p.goldPatch)).toHaveLength(1);
  });
});
