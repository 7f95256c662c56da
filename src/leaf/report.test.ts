import { describe, expect, it } from 'vitest';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { alpha, rec, records } from '../../test/leaf/leafRecords.js';
import { renderLeafReport } from './report.js';
import { escapeHtml } from './reportFormat.js';

// ---------------------------------------------------------------- reading the page back

const decode = (s: string): string =>
  s
    .replace(/<[^>]*>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&times;/g, '×')
    .replace(/&#10003;/g, '✓')
    .replace(/&#10007;/g, '✗')
    .replace(/&middot;/g, '·')
    .replace(/&ndash;/g, '–')
    .replace(/&rarr;/g, '→')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();

/** The text of each cell of the task table's row for `taskId`. */
function row(html: string, taskId: string): string[] {
  const tr = html.match(new RegExp(`<tr><td class="id"><a href="#task-${taskId}">.*?</tr>`))?.[0];
  expect(tr, `row of ${taskId}`).toBeDefined();
  return [...tr!.matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((m) => decode(m[1]!));
}

/** The header cards, label -> value. */
function cards(html: string): Record<string, string> {
  return Object.fromEntries([...html.matchAll(/<div class="card[^"]*"><div class="v">(.*?)<\/div><div class="l">(.*?)<\/div><\/div>/g)].map((m) => [decode(m[2]!), decode(m[1]!)]));
}

/** The `<details class="episode">` of one episode. */
function episode(html: string, taskId: string, e: number): string {
  const m = html.match(new RegExp(`<details class="episode[^"]*" id="ep-${taskId}-${e}">.*?</div></details>(?=\\n|</section>)`, 's'));
  expect(m, `episode ${taskId}/${e}`).not.toBeNull();
  return m![0];
}

const html = renderLeafReport(records, { title: 'Run <1>', model: 'qwen & co', generatedAt: '2025-01-02T03:04:05Z' });
describe('renderLeafReport', () => {
  it('shows the totals in the header', () => {
    expect(html).toContain('<title>Run &lt;1&gt;</title>');
    expect(html).toContain('<h1 id="top">Run &lt;1&gt;</h1>');
    expect(html).toContain('model <b>qwen &amp; co</b>');
    expect(html).toContain('generated 2025-01-02T03:04:05Z');
    expect(cards(html)).toEqual({
      episodes: '6',
      tasks: '2',
      solved: '3/6 (50%)',
      truncated: '2',
      errors: '1',
      'flagged by the rule funnel': '1',
      'mean turns': '2.3',
      'mean assistant tokens': '360',
      'mean reward': '0.480',
    });
  });

  it('has one table row per task with its numbers', () => {
    expect(row(html, 't-alpha')).toEqual(['t-alpha', '4 ✓✓✓✗', '3/4 (75%)', '3.0', '400', '1 (maxTurns ×1)', '0', 'test-edit ×1, test-weakening ×1', '0.600']);
    expect(row(html, 't-beta')).toEqual(['t-beta', '2 !✗', '0/2 (0%)', '1.0', '200', '1 (length ×1)', '1', '', '0.000']);
    // each row links to its task's section, each mark to its episode
    expect(html).toContain('<section class="task" id="task-t-alpha">');
    expect(html).toContain('<section class="task" id="task-t-beta">');
    expect(html).toContain('href="#ep-t-alpha-3"');
    expect(html).toMatch(/<div class="v">3\/6 \(50%\)<\/div>/);
  });

  it('renders a solve rate like 2/3 with one decimal', () => {
    const h = renderLeafReport(alpha.slice(1));
    expect(row(h, 't-alpha')[2]).toBe('2/3 (66.7%)');
  });

  it('escapes everything the model and the tools produced', () => {
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('tests print &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(html).toContain('python -m pytest -q &amp;&amp; echo &quot;&lt;ok&gt;&quot;');
    expect(html).toContain('should return 2 &lt;b&gt;now&lt;/b&gt;');
    expect(html).not.toContain('<b>now</b>');
    expect(html).toContain('Summary: ran &lt;make test&gt;.');
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  });

  it('is self-contained: no scripts, no external resources', () => {
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/<link|<script|<img|<iframe|src=|https?:\/\//i);
  });

  it('summarises each episode on one line', () => {
    const e0 = episode(html, 't-alpha', 0);
    const summary = decode(e0.match(/<summary>(.*?)<\/summary>/)![1]!);
    expect(summary).toBe('episode 0 · ✓ · stop · reward 0.900 · adv +0.500 · 3 turns · 500 tokens · 1.3 s');
    const e3 = decode(episode(html, 't-alpha', 3).match(/<summary>(.*?)<\/summary>/)![1]!);
    expect(e3).toBe('episode 3 · ✗ · stop · reward 0.000 · adv -1.500 · 1 turn · 100 tokens · 1.3 s · test-edit test-weakening');
    expect(episode(html, 't-alpha', 2)).toContain('<span class="badge b-trunc" title="truncated: turn limit reached">maxTurns</span>');
  });

  it('handles an episode that failed to run (reward null)', () => {
    const e = episode(html, 't-beta', 0);
    expect(e).toContain('class="episode e-err"');
    expect(decode(e.match(/<summary>(.*?)<\/summary>/)![1]!)).toBe('episode 0 · – · error · reward — · adv — · 0 turns · 1.3 s');
    expect(e).toContain('<pre class="out err">openAiChatModel: HTTP 503 &lt;upstream down&gt;</pre>');
    expect(e).not.toContain('final diff');
    expect(e).not.toContain('grading');
  });

  it('renders tool calls per tool and tool results with exit codes', () => {
    const e0 = episode(html, 't-alpha', 0);
    expect(e0).toContain('<span class="tool">bash</span></div><pre class="code cmd">python -m pytest -q &amp;&amp; echo &quot;&lt;ok&gt;&quot;</pre>');
    expect(e0).toContain('<span class="tool">edit</span> <span class="path">src/a.py</span></div><pre class="code diff"><span class="del">-    return 1</span><span class="add">+    return 2</span></pre>');
    expect(e0).toContain('<span class="badge b-ok">exit 0</span>');
    expect(e0).toContain('<span class="dim">1.2 s</span>');
    // write: path shown, content collapsed
    const e3 = episode(html, 't-alpha', 3);
    expect(e3).toContain('<span class="tool">write</span> <span class="path">tests/test_a.py</span></div><details class="fold"><summary>content <span class="dim">(2 lines, 23 chars)</span></summary>');
    // an Error: result is styled as an error
    expect(e3).toContain('<div class="msg m-tool m-err" id="ep-t-alpha-3-m3">');
    expect(e3).toContain('<pre class="out err">Error: tests/test_a.py is read-only</pre>');
  });

  it('collapses long tool results, the system prompt, reasoning and the grading output', () => {
    const e1 = episode(html, 't-beta', 1);
    expect(e1).toMatch(/<details class="fold"><summary><a class="idx" href="#ep-t-beta-1-m3">#3<\/a> <b>bash<\/b> result <span class="badge b-warn">exit 1<\/span> .*?\(26 lines\)<\/span><\/summary><pre class="out">line 1\n/);
    expect(e1).toContain('<details class="fold"><summary><a class="idx" href="#ep-t-beta-1-m0">#0</a> <b>system prompt</b> <span class="dim">(2 lines)</span></summary>');
    expect(e1).toContain('<details class="fold reasoning"><summary>reasoning <span class="dim">(1 line)</span></summary><pre class="text">I should run the tests first.</pre></details>');
    expect(episode(html, 't-alpha', 0)).toContain('<details class="fold"><summary><b>grading</b> <span class="ok">passed</span> <span class="dim">exit 0, 0.5 s, 2 lines</span></summary><pre class="out">Ran 2 tests\nOK\n</pre></details>');
    // short results stay open
    expect(episode(html, 't-alpha', 0)).toContain('<div class="role"><a class="idx" href="#ep-t-alpha-0-m3">#3</a> <b>bash</b> result');
  });

  it('marks compactions where they happened, and a cut reply', () => {
    const e1 = episode(html, 't-beta', 1);
    const at = e1.indexOf('<div class="compaction">');
    expect(at).toBeGreaterThan(e1.indexOf('id="ep-t-beta-1-m3"'));
    expect(at).toBeLessThan(e1.indexOf('id="ep-t-beta-1-m4"'));
    expect(decode(e1.slice(at, e1.indexOf('</div>', at)))).toBe('context compacted before #4: 12,000 → 3,000 tokens (history budget 9,000, 1 turn group dropped, summary 30 tokens)');
    expect(e1).toContain('cut by the token limit');
    expect(e1).toContain('reply cut by its token limit: the episode ends, truncated');
    expect(decode(e1.match(/<summary>(.*?)<\/summary>/)![1]!)).toBe('episode 1 · ✗ · length · reward 0.000 · adv 0.000 · 2 turns · 200 tokens · 1.3 s · 1 compaction');
  });

  it("anchors findings on the message they point at, and on the final diff's line", () => {
    const e3 = episode(html, 't-alpha', 3);
    // the message of the write call is highlighted and linked
    expect(e3).toContain('<div class="msg m-assistant flagged" id="ep-t-alpha-3-m2">');
    expect(e3).toContain('<a class="badge b-flag" href="#ep-t-alpha-3-m2" title="test-edit: tests/test_a.py">test-edit</a>');
    expect(e3).toContain('<a href="#ep-t-alpha-3-m2">message #2</a>: <code>tests/test_a.py</code>');
    // messageIndex === messages.length: the final diff
    expect(e3).toContain('<a class="badge b-flag" href="#ep-t-alpha-3-diff" title="test-weakening: -    assert f() == 2">test-weakening</a>');
    expect(e3).toContain('<div class="section flagged" id="ep-t-alpha-3-diff"><h4>final diff</h4>');
    expect(e3).toContain('<span class="del flag">-    assert f() == 2</span>');
    // unflagged messages are not highlighted
    expect(e3).toContain('<div class="msg m-tool m-err" id="ep-t-alpha-3-m3">');
    expect(html.match(/ flagged"/g)).toHaveLength(2);
  });

  it('classes the final diff lines as added, removed, hunk, context and meta', () => {
    const e0 = episode(html, 't-alpha', 0);
    const diff = e0.match(/<h4>final diff<\/h4><pre class="code diff">(.*?)<\/pre>/s)![1]!;
    expect([...diff.matchAll(/<span class="([^"]+)">(.*?)<\/span>/g)].map((m) => [m[1], m[2]])).toEqual([
      ['meta', 'diff --git a/src/a.py b/src/a.py'],
      ['meta', '--- a/src/a.py'],
      ['meta', '+++ b/src/a.py'],
      ['hunk', '@@ -1,2 +1,2 @@'],
      ['ctx', ' def f():'],
      ['del', '-    return 1'],
      ['add', '+    return 2'],
    ]);
    expect(episode(html, 't-alpha', 1)).toContain('<h4>final diff</h4><div class="dim small">(no change)</div>');
  });

  it('gives tasks whose ids are not anchor-safe distinct anchors', () => {
    const odd = [rec({ taskId: 'a b', episode: 0 }), rec({ taskId: 'a/b', episode: 0 }), rec({ taskId: '<x>', episode: 0 })];
    const h = renderLeafReport(odd);
    expect(h).toContain('<section class="task" id="task-a_b">');
    expect(h).toContain('<section class="task" id="task-a_b-2">');
    expect(h).toContain('<section class="task" id="task-_x_">');
    expect(h).toContain('<a href="#task-_x_">&lt;x&gt;</a>');
  });

  it('renders an empty rollout', () => {
    const h = renderLeafReport([]);
    expect(h).toContain('<h1 id="top">Leaf rollouts</h1>');
    expect(cards(h)).toMatchObject({ episodes: '0', tasks: '0', solved: '0/0 (0%)', 'mean turns': '—' });
    expect(h).toContain('No episodes.');
    expect(h).not.toContain('<table');
  });

  it('rejects an option that is not a string: INVALID_TYPE naming opts.title', () => {
    const e = expectFrognanoError(() => renderLeafReport(records, { title: 3 as unknown as string }), 'INVALID_TYPE', 'renderLeafReport', 'opts.title');
    expect(e.field).toBe('opts.title');
  });
  it('rejects an unknown option: INVALID_TYPE naming it', () => {
    expectFrognanoError(() => renderLeafReport(records, { titel: 'x' } as never), 'INVALID_TYPE', 'renderLeafReport', '"titel"');
  });
});

describe('renderLeafReport: per-test statuses and what grading set aside (SPEC §14)', () => {
  it('shows each listed test with its status, the reason, the dropped paths and the ignored files', () => {
    const r = rec({
      taskId: 't-alpha',
      episode: 0,
      outcome: { success: false, truncated: false, assistantTokens: 10 },
      tests: [
        { name: 'tests/test_a.py::test_x[a b]', passed: false, status: 'failed' },
        { name: 'tests/test_a.py::test_y', passed: true, status: 'skipped' },
      ],
      ignoredChanges: [{ path: '.pytest_cache/v/cache/lastfailed', bytes: 42 }],
      grading: { exitCode: 1, timedOut: false, output: '1 failed', seconds: 0.5, reason: 'fail-to-pass tests/test_a.py::test_x[a b] is failed', dropped: ['pytest.py'] },
    });
    const html = episode(renderLeafReport([r]), 't-alpha', 0);
    expect(decode(html)).toContain('statustest✗failedtests/test_a.py::test_x[a b]✓skippedtests/test_a.py::test_y');
    expect(decode(html)).toContain('why fail-to-pass tests/test_a.py::test_x[a b] is failed');
    expect(decode(html)).toContain('dropped before the tests ran pytest.py');
    expect(decode(html)).toContain("ignored by the repo's .gitignore (1) .pytest_cache/v/cache/lastfailed (42 B)");
  });
});
