import type { RuleFinding } from '../judges/ruleFunnel.js';
import type { Message, ToolCall } from '../schema/trajectory.js';
import type { RolloutRecord } from './rolloutTasks.js';
import type { CompactionRecord } from './runEpisode.js';
import { groupByTask, type LeafRecordStats, statsOf, summarizeLeafRecords } from './summarizeLeafRecords.js';

/** Options of {@link renderLeafReport}. */
export interface LeafReportOptions {
  /** Page title. Default `'Leaf rollouts'`. */
  title?: string;
  /** When the rollouts ran (any text, e.g. an ISO date), shown under the title. Default: not shown. */
  generatedAt?: string;
  /** The policy's name, shown under the title. Default: not shown. */
  model?: string;
}

// ---------------------------------------------------------------- formatting

/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}
const esc = escapeHtml;

/** `75%`, `43.8%`. */
function pct(v: number): string {
  const p = v * 100;
  return Number.isInteger(Math.round(p * 10) / 10) ? `${Math.round(p)}%` : `${p.toFixed(1)}%`;
}
/** `3/4 (75%)`. */
const rate = (solved: number, n: number): string => `${solved}/${n} (${pct(n === 0 ? 0 : solved / n)})`;
/** A number with `minDigits` to `digits` decimals, thousands grouped; `—` for NaN. */
function num(v: number, digits = 1, minDigits = 0): string {
  if (!Number.isFinite(v)) return '—';
  return v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: minDigits });
}
const fixed = (v: number | null | undefined, digits: number): string => (v === null || v === undefined || !Number.isFinite(v) ? '—' : v.toFixed(digits));
const signed = (v: number | null | undefined, digits: number): string => (v === null || v === undefined || !Number.isFinite(v) ? '—' : `${v > 0 ? '+' : ''}${v.toFixed(digits)}`);
const lineCount = (s: string): number => (s === '' ? 0 : s.replace(/\n$/, '').split('\n').length);
const plural = (n: number, one: string, many = `${one}s`): string => `${num(n, 0)} ${n === 1 ? one : many}`;
const counts = (c: Record<string, number>): string =>
  Object.entries(c)
    .map(([k, n]) => `${esc(k)}&nbsp;&times;${n}`)
    .join(', ');

/** An id fragment safe in attributes and URLs. */
const slug = (s: string): string => s.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 80) || '_';

/** A `<pre>`, collapsed behind `summary` when longer than `maxLines` lines (or 4000 characters). */
function block(text: string, cls: string, summary: string, maxLines = 20): string {
  const pre = `<pre class="${cls}">${esc(text)}</pre>`;
  const n = lineCount(text);
  if (n <= maxLines && text.length <= 4000) return pre;
  return `<details class="fold"><summary>${summary} <span class="dim">(${plural(n, 'line')})</span></summary>${pre}</details>`;
}

/** First line of `s`, cut to `max` characters, escaped. */
function firstLine(s: string, max = 90): string {
  const l = s.split('\n').find((x) => x.trim() !== '') ?? '';
  return esc(l.length > max ? `${l.slice(0, max)}…` : l);
}

const TERMINATION_TITLE: Record<string, string> = {
  stop: 'the model answered without a tool call (the structural rule)',
  maxTurns: 'truncated: turn limit reached',
  maxContextTokens: 'truncated: context limit reached (compaction could not make room)',
  maxSeconds: 'truncated: time limit reached',
  length: 'truncated: a reply was cut by its token limit',
  error: 'failed to run: the model stayed unavailable',
  aborted: 'stopped',
};

function terminationBadge(t: string): string {
  const cls = t === 'stop' ? 'b-stop' : t === 'error' || t === 'aborted' ? 'b-err' : 'b-trunc';
  return `<span class="badge ${cls}" title="${esc(TERMINATION_TITLE[t] ?? t)}">${esc(t)}</span>`;
}

// ---------------------------------------------------------------- messages

interface Ids {
  /** Episode anchor. */
  ep: string;
  /** Anchor of message `i` (`i === messages.length`: the final diff). */
  msg: (i: number) => string;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function findingBadges(fs: readonly RuleFinding[], ids: Ids, link: boolean): string {
  return fs
    .map((f) => {
      const text = `${esc(f.code)}`;
      const title = esc(`${f.code}: ${f.evidence}`);
      return link ? `<a class="badge b-flag" href="#${ids.msg(f.messageIndex)}" title="${title}">${text}</a>` : `<span class="badge b-flag" title="${title}">${text}</span>`;
    })
    .join(' ');
}

function findingNotes(fs: readonly RuleFinding[]): string {
  if (fs.length === 0) return '';
  return `<div class="finding">${fs.map((f) => `<div><span class="badge b-flag">${esc(f.code)}</span> <code>${esc(f.evidence)}</code></div>`).join('')}</div>`;
}

function renderCall(c: ToolCall): string {
  const a = c.arguments;
  const raw = str(c.rawArguments);
  const head = (extra = ''): string => `<div class="call-head"><span class="tool">${esc(c.name || '(no name)')}</span>${extra}</div>`;
  if (raw !== undefined) return `<div class="call">${head(' <span class="badge b-err">malformed arguments</span>')}${block(raw, 'code', 'arguments')}</div>`;
  const path = str(a.file_path);
  const known = (keys: string[]): boolean => Object.keys(a).every((k) => keys.includes(k));
  if (c.name === 'bash' && typeof a.command === 'string' && known(['command'])) {
    return `<div class="call">${head()}${block(a.command, 'code cmd', 'command')}</div>`;
  }
  if (c.name === 'edit' && path !== undefined && typeof a.old_string === 'string' && typeof a.new_string === 'string' && known(['file_path', 'old_string', 'new_string'])) {
    const lines = [
      ...a.old_string.replace(/\n$/, '').split('\n').map((l) => `<span class="del">-${esc(l)}</span>`),
      ...a.new_string.replace(/\n$/, '').split('\n').map((l) => `<span class="add">+${esc(l)}</span>`),
    ];
    const pre = `<pre class="code diff">${lines.join('')}</pre>`;
    const body = lines.length > 30 ? `<details class="fold"><summary>change <span class="dim">(${plural(lines.length, 'line')})</span></summary>${pre}</details>` : pre;
    return `<div class="call">${head(` <span class="path">${esc(path)}</span>`)}${body}</div>`;
  }
  if (c.name === 'write' && path !== undefined && typeof a.content === 'string' && known(['file_path', 'content'])) {
    const n = lineCount(a.content);
    return `<div class="call">${head(` <span class="path">${esc(path)}</span>`)}<details class="fold"><summary>content <span class="dim">(${plural(n, 'line')}, ${plural(a.content.length, 'char')})</span></summary><pre class="code">${esc(a.content)}</pre></details></div>`;
  }
  if (c.name === 'read' && path !== undefined && known(['file_path', 'offset', 'limit'])) {
    const range = [a.offset !== undefined ? `offset ${esc(String(a.offset))}` : '', a.limit !== undefined ? `limit ${esc(String(a.limit))}` : ''].filter(Boolean).join(', ');
    return `<div class="call">${head(` <span class="path">${esc(path)}</span>${range ? ` <span class="dim">(${range})</span>` : ''}`)}</div>`;
  }
  if (c.name === 'glob' && typeof a.pattern === 'string' && known(['pattern', 'path'])) {
    return `<div class="call">${head(` <span class="path">${esc(a.pattern)}</span>${typeof a.path === 'string' ? ` <span class="dim">in ${esc(a.path)}</span>` : ''}`)}</div>`;
  }
  return `<div class="call">${head()}${block(JSON.stringify(a, null, 2), 'code', 'arguments')}</div>`;
}

function renderMessage(m: Message, i: number, ids: Ids, statement: string, fs: readonly RuleFinding[]): string {
  const flagged = fs.length > 0 ? ' flagged' : '';
  const anchor = `id="${ids.msg(i)}"`;
  const idx = `<a class="idx" href="#${ids.msg(i)}">#${i}</a>`;
  switch (m.role) {
    case 'system':
      return `<div class="msg m-system${flagged}" ${anchor}><details class="fold"><summary>${idx} <b>system prompt</b> <span class="dim">(${plural(lineCount(m.content), 'line')})</span></summary><pre class="text">${esc(m.content)}</pre></details>${findingNotes(fs)}</div>`;
    case 'user': {
      if (m.content === statement) {
        return `<div class="msg m-user${flagged}" ${anchor}><details class="fold"><summary>${idx} <b>user</b> <span class="dim">the task statement (shown above)</span></summary><pre class="text">${esc(m.content)}</pre></details>${findingNotes(fs)}</div>`;
      }
      return `<div class="msg m-user${flagged}" ${anchor}><div class="role">${idx} <b>user</b></div><pre class="text">${esc(m.content)}</pre>${findingNotes(fs)}</div>`;
    }
    case 'assistant': {
      const parts: string[] = [];
      const usage = m.usage as { completionTokens?: unknown } | undefined;
      const tokens = typeof usage?.completionTokens === 'number' ? ` <span class="dim">${plural(usage.completionTokens, 'token')}</span>` : '';
      const cut = m.finishReason === 'length' ? ' <span class="badge b-trunc" title="finish_reason: length">cut by the token limit</span>' : '';
      parts.push(`<div class="role">${idx} <b>assistant</b>${tokens}${cut}</div>`);
      const reasoning = str(m.reasoning);
      if (reasoning) parts.push(`<details class="fold reasoning"><summary>reasoning <span class="dim">(${plural(lineCount(reasoning), 'line')})</span></summary><pre class="text">${esc(reasoning)}</pre></details>`);
      if (m.content.trim() !== '') parts.push(block(m.content, 'text', firstLine(m.content)));
      for (const c of m.toolCalls ?? []) parts.push(renderCall(c));
      if (m.finishReason === 'length') parts.push('<div class="dim final">reply cut by its token limit: the episode ends, truncated</div>');
      else if ((m.toolCalls ?? []).length === 0) parts.push('<div class="dim final">final answer (no tool call): the episode ends</div>');
      return `<div class="msg m-assistant${flagged}" ${anchor}>${parts.join('')}${findingNotes(fs)}</div>`;
    }
    case 'tool': {
      const err = m.isError === true || m.content.startsWith('Error:');
      const meta: string[] = [];
      if (typeof m.exitCode === 'number') meta.push(`<span class="badge ${m.exitCode === 0 ? 'b-ok' : 'b-warn'}">exit ${m.exitCode}</span>`);
      else if (m.exitCode === null) meta.push('<span class="badge b-err">killed</span>');
      if (m.timedOut === true) meta.push('<span class="badge b-err">timed out</span>');
      if (err) meta.push('<span class="badge b-err">error</span>');
      if (typeof m.durationMs === 'number') meta.push(`<span class="dim">${num(m.durationMs / 1000, 2)} s</span>`);
      const name = str(m.name) ?? 'tool';
      const n = lineCount(m.content);
      const head = `${idx} <b>${esc(name)}</b> result ${meta.join(' ')}`;
      const pre = `<pre class="out${err ? ' err' : ''}">${esc(m.content)}</pre>`;
      const body = n > 20 || m.content.length > 4000 ? `<details class="fold"><summary>${head} <span class="dim">(${plural(n, 'line')})</span></summary>${pre}</details>` : `<div class="role">${head}</div>${pre}`;
      return `<div class="msg m-tool${err ? ' m-err' : ''}${flagged}" ${anchor}>${body}${findingNotes(fs)}</div>`;
    }
    default:
      return `<div class="msg${flagged}" ${anchor}><div class="role">${idx} <b>${esc(String(m.role))}</b></div><pre class="text">${esc(m.content)}</pre>${findingNotes(fs)}</div>`;
  }
}

function renderCompaction(c: CompactionRecord): string {
  return `<div class="compaction"><div class="role"><b>context compacted</b> before #${c.atMessage}: ${num(c.historyTokens, 0)} &rarr; ${num(c.tokensAfter, 0)} tokens <span class="dim">(history budget ${num(c.budget, 0)}, ${plural(c.droppedGroups, 'turn group')} dropped, summary ${plural(c.summaryTokens, 'token')})</span></div><details class="fold"><summary>summary</summary><pre class="text">${esc(c.summary)}</pre></details></div>`;
}

function renderDiff(diff: string, evidence: ReadonlySet<string>): string {
  if (diff.trim() === '') return '<div class="dim small">(no change)</div>';
  const lines = diff.replace(/\n$/, '').split('\n');
  const html = lines.map((l) => {
    const cls = /^(diff |index |--- |\+\+\+ |new file|deleted file|similarity|rename |old mode|new mode|Binary files)/.test(l)
      ? 'meta'
      : l.startsWith('@@')
        ? 'hunk'
        : l.startsWith('+')
          ? 'add'
          : l.startsWith('-')
            ? 'del'
            : 'ctx';
    const flag = evidence.has(l) || (cls === 'meta' && [...evidence].some((e) => l.endsWith(` b/${e}`) || l.endsWith(` a/${e}`))) ? ' flag' : '';
    return `<span class="${cls}${flag}">${esc(l) || ' '}</span>`;
  });
  // one block per line (so backgrounds span the width); the blocks need no newline between them
  const pre = `<pre class="code diff">${html.join('')}</pre>`;
  return lines.length > 60 ? `<details class="fold"><summary>diff <span class="dim">(${plural(lines.length, 'line')})</span></summary>${pre}</details>` : pre;
}

function renderEpisode(r: RolloutRecord, taskSlug: string): string {
  const ep = `ep-${taskSlug}-${r.episode}`;
  const ids: Ids = { ep, msg: (i) => (i >= r.messages.length ? `${ep}-diff` : `${ep}-m${i}`) };
  const findingsAt = new Map<number, RuleFinding[]>();
  for (const f of r.hacking) {
    const k = Math.min(f.messageIndex, r.messages.length);
    findingsAt.set(k, [...(findingsAt.get(k) ?? []), f]);
  }
  const success = r.outcome ? (r.outcome.success ? '<span class="ok" title="tests passed">&#10003;</span>' : '<span class="bad" title="tests failed">&#10007;</span>') : '<span class="bad" title="not graded">&ndash;</span>';
  const sum = [
    `<b>episode ${r.episode}</b>`,
    success,
    terminationBadge(r.termination),
    `reward <b>${fixed(r.reward, 3)}</b>`,
    `adv ${signed(r.advantage, 3)}`,
    plural(r.turns, 'turn'),
    r.outcome ? plural(r.outcome.assistantTokens, 'token') : '',
    `${num(r.seconds, 1, 1)} s`,
    r.compactions.length ? plural(r.compactions.length, 'compaction') : '',
    findingBadges(r.hacking, ids, false),
  ].filter(Boolean);

  const body: string[] = [];
  if (r.error !== undefined) body.push(`<div class="msg m-err"><b>error:</b> <pre class="out err">${esc(r.error)}</pre></div>`);
  if (r.hacking.length) {
    body.push(`<div class="finding top"><b>rule-funnel findings</b> (candidates for adjudication, not verdicts):${r.hacking.map((f) => `<div>${findingBadges([f], ids, true)} <a href="#${ids.msg(f.messageIndex)}">${f.messageIndex >= r.messages.length ? 'final diff' : `message #${f.messageIndex}`}</a>: <code>${esc(f.evidence)}</code></div>`).join('')}</div>`);
  }
  const compactionsAt = new Map<number, CompactionRecord[]>();
  for (const c of r.compactions) compactionsAt.set(c.atMessage, [...(compactionsAt.get(c.atMessage) ?? []), c]);
  r.messages.forEach((m, i) => {
    for (const c of compactionsAt.get(i) ?? []) body.push(renderCompaction(c));
    body.push(renderMessage(m, i, ids, r.task.statement, findingsAt.get(i) ?? []));
  });
  for (const [at, cs] of compactionsAt) if (at >= r.messages.length) for (const c of cs) body.push(renderCompaction(c));
  if (r.outcome || r.diff !== undefined) {
    const diffFindings = findingsAt.get(r.messages.length) ?? [];
    const evidence = new Set(diffFindings.map((f) => f.evidence));
    body.push(`<div class="section${diffFindings.length ? ' flagged' : ''}" id="${ids.msg(r.messages.length)}"><h4>final diff</h4>${renderDiff(r.diff ?? '', evidence)}${findingNotes(diffFindings)}</div>`);
  }
  if (r.grading) {
    const g = r.grading;
    const verdict = r.outcome?.success ? '<span class="ok">passed</span>' : '<span class="bad">failed</span>';
    body.push(
      `<div class="section"><details class="fold"><summary><b>grading</b> ${verdict} <span class="dim">exit ${g.exitCode ?? 'killed'}${g.timedOut ? ', timed out' : ''}, ${num(g.seconds, 2)} s, ${plural(lineCount(g.output), 'line')}</span></summary><pre class="out">${esc(g.output)}</pre></details></div>`,
    );
  }
  const cls = r.termination === 'error' ? ' e-err' : r.outcome?.success ? ' e-ok' : ' e-fail';
  return `<details class="episode${cls}" id="${ep}"><summary>${sum.join(' <span class="sep">&middot;</span> ')}</summary><div class="conv">${body.join('\n')}</div></details>`;
}

function episodeMarks(rs: readonly RolloutRecord[], taskSlug: string): string {
  return rs
    .map((r) => {
      const [ch, cls, what] = r.termination === 'error' ? ['!', 'bad', 'error'] : r.outcome?.success ? ['&#10003;', 'ok', 'solved'] : ['&#10007;', 'bad', 'not solved'];
      const t = `episode ${r.episode}: ${what}, ${r.termination}${r.hacking.length ? `, ${r.hacking.map((f) => f.code).join(', ')}` : ''}`;
      return `<a class="mark ${cls}${r.hacking.length ? ' mflag' : ''}" href="#ep-${taskSlug}-${r.episode}" title="${esc(t)}">${ch}</a>`;
    })
    .join('');
}

/**
 * One self-contained HTML page (inline CSS, no scripts, no external resources)
 * for reading a Leaf rollout (`rolloutTasks` records, or the lines of
 * `frognano rollout`'s JSONL):
 *
 * - the totals (episodes, tasks, solve rate, truncations, errors, episodes the
 *   rule funnel flagged, mean turns, mean assistant tokens);
 * - a table with one row per task (the numbers of {@link summarizeLeafRecords},
 *   one mark per episode linking to it);
 * - per task, its statement and every episode, collapsed to a summary line
 *   (termination, success, reward, advantage, turns, tokens, seconds, findings)
 *   that opens onto the conversation: tool calls rendered per tool (bash
 *   command, edit as -/+ lines, write content collapsed), tool results with
 *   exit codes (long ones collapsed, errors in red), compactions with their
 *   summaries, the final diff (added/removed lines colored) and the grading output.
 *
 * Rule-funnel findings mark the message they point at (anchor
 * `ep-<task>-<episode>-m<index>`, or `ep-<task>-<episode>-diff` for findings in
 * the final diff) and link to it from the episode. Everything the model or the
 * tools produced is HTML-escaped.
 *
 * @example writeFileSync('report.html', renderLeafReport(records, { model: 'qwen3-8b', generatedAt: new Date().toISOString() }));
 */
export function renderLeafReport(records: readonly RolloutRecord[], opts?: LeafReportOptions): string {
  const title = opts?.title ?? 'Leaf rollouts';
  const groups = groupByTask(records);
  const { totals } = summarizeLeafRecords(records);
  const slugs = new Map<string, string>();
  const used = new Set<string>();
  for (const [id] of groups) {
    let s = slug(id);
    for (let k = 2; used.has(s); k++) s = `${slug(id)}-${k}`;
    used.add(s);
    slugs.set(id, s);
  }

  const parts: string[] = [];
  parts.push(`<h1 id="top">${esc(title)}</h1>`);
  const sub = [opts?.model !== undefined ? `model <b>${esc(opts.model)}</b>` : '', opts?.generatedAt !== undefined ? `generated ${esc(opts.generatedAt)}` : ''].filter(Boolean);
  if (sub.length) parts.push(`<p class="note">${sub.join(' &middot; ')}</p>`);
  const card = (label: string, value: string, cls = ''): string => `<div class="card${cls}"><div class="v">${value}</div><div class="l">${label}</div></div>`;
  parts.push(
    `<div class="cards">${[
      card('episodes', num(totals.episodes, 0)),
      card('tasks', num(totals.tasks, 0)),
      card('solved', rate(totals.solved, totals.episodes)),
      card('truncated', num(totals.truncated, 0), totals.truncated ? ' c-trunc' : ''),
      card('errors', num(totals.errors, 0), totals.errors ? ' c-err' : ''),
      card('flagged by the rule funnel', num(totals.flagged, 0), totals.flagged ? ' c-flag' : ''),
      card('mean turns', num(totals.meanTurns, 1, 1)),
      card('mean assistant tokens', num(totals.meanAssistantTokens, 0)),
      card('mean reward', fixed(totals.meanReward, 3)),
    ].join('')}</div>`,
  );
  if (records.length === 0) parts.push('<p class="note">No episodes.</p>');

  if (groups.length) {
    const rows = groups.map(([id, rs]) => {
      const s = statsOf(rs);
      const sl = slugs.get(id)!;
      const trunc = s.truncated ? `${s.truncated} <span class="dim">(${counts(s.truncations)})</span>` : '0';
      const fnd = Object.keys(s.findings).length ? counts(s.findings) : '';
      return `<tr><td class="id"><a href="#task-${sl}">${esc(id)}</a></td><td class="n">${s.episodes} <span class="marks">${episodeMarks(rs, sl)}</span></td><td class="n"><span class="bar"><span style="width:${(s.solveRate * 100).toFixed(0)}%"></span></span>${rate(s.solved, s.episodes)}</td><td class="n">${num(s.meanTurns, 1, 1)}</td><td class="n">${num(s.meanAssistantTokens, 0)}</td><td class="tr">${trunc}</td><td class="n${s.errors ? ' bad' : ''}">${s.errors}</td><td class="fnd">${fnd}</td><td class="n">${fixed(s.meanReward, 3)}</td></tr>`;
    });
    parts.push(
      `<h2>Tasks</h2><table class="tasks"><tr><th>task</th><th>episodes</th><th>solved</th><th>mean turns</th><th>mean assistant tokens</th><th>truncated</th><th>errors</th><th>rule-funnel findings</th><th>mean reward</th></tr>${rows.join('')}</table>`,
    );
    parts.push(
      '<p class="note">Solve rate counts every episode (one that failed to run is not solved); mean assistant tokens are over graded episodes, mean reward over episodes with a reward. Findings are rule-funnel candidates for adjudication, not verdicts; the counts are findings, not episodes.</p>',
    );
  }

  for (const [id, rs] of groups) {
    const sl = slugs.get(id)!;
    const s = statsOf(rs);
    const statement = rs[0]!.task.statement;
    parts.push(
      `<section class="task" id="task-${sl}"><h2>${esc(id)} <a class="top" href="#top">&uarr; top</a></h2><p class="note">solved ${rate(s.solved, s.episodes)} &middot; mean turns ${num(s.meanTurns, 1, 1)} &middot; mean assistant tokens ${num(s.meanAssistantTokens, 0)} &middot; mean reward ${fixed(s.meanReward, 3)}${s.truncated ? ` &middot; ${s.truncated} truncated` : ''}${s.errors ? ` &middot; <span class="bad">${plural(s.errors, 'error')}</span>` : ''}</p>${block(statement, 'text statement', `statement: ${firstLine(statement)}`)}${rs.map((r) => renderEpisode(r, sl)).join('\n')}</section>`,
    );
  }

  return `<!doctype html><html><head><meta charset="utf-8"><title>${esc(title)}</title><style>
body{font-family:system-ui,sans-serif;margin:2em;max-width:1100px;color:#111}
h2{margin-top:1.6em;font-size:1.15em}h3{font-size:.95em;margin:.4em 0}h4{font-size:.85em;margin:.2em 0}
.note{color:#555;font-size:.9em;margin:.2em 0}.dim{color:#777;font-weight:normal}
table{border-collapse:collapse;font-size:.85em}td,th{border:1px solid #ddd;padding:3px 6px;vertical-align:top}th{background:#f5f5f5;text-align:left}
td.n,td.id,td.tr,td.fnd{white-space:nowrap}td.fnd{color:#9a3412}
a{color:#1d4ed8;text-decoration:none}a:hover{text-decoration:underline}
.cards{display:flex;flex-wrap:wrap;gap:.5em;margin:1em 0}.card{border:1px solid #ddd;border-radius:6px;padding:.35em .7em;background:#fafafa}
.card .v{font-size:1.15em;font-weight:600;white-space:nowrap}.card .l{font-size:.78em;color:#555}.c-trunc{border-color:#f59e0b}.c-err{border-color:#dc2626}.c-flag{border-color:#ea580c;background:#fff7ed}
.bar{display:inline-block;width:40px;height:8px;background:#fee2e2;margin-right:6px;vertical-align:middle}.bar span{display:block;height:100%;background:#16a34a}
.marks{margin-left:.4em;letter-spacing:1px}.mark{font-weight:bold}.mark.mflag{background:#ffedd5;border-radius:3px}
.ok{color:#15803d;font-weight:bold}.bad{color:#b91c1c;font-weight:bold}
.badge{display:inline-block;font-size:.75em;padding:0 .45em;border-radius:9px;border:1px solid #ccc;background:#f3f4f6;color:#333;font-weight:normal;white-space:nowrap}
.b-stop{background:#f3f4f6}.b-trunc{background:#fef3c7;border-color:#f59e0b;color:#92400e}.b-err{background:#fee2e2;border-color:#dc2626;color:#991b1b}
.b-ok{background:#dcfce7;border-color:#16a34a;color:#166534}.b-warn{background:#fef3c7;border-color:#d97706;color:#92400e}.b-flag{background:#ffedd5;border-color:#ea580c;color:#9a3412}
section.task{border-top:2px solid #e5e5e5;margin-top:1.5em}.top{font-size:.7em;font-weight:normal;margin-left:.6em}
pre,code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{margin:.25em 0;padding:.45em .6em;font-size:.82em;line-height:1.35;white-space:pre-wrap;overflow-wrap:anywhere;border-radius:4px}
pre.text{background:#fff;border:1px solid #eee}pre.statement{background:#f8fafc;border-color:#cbd5e1}
pre.code{background:#f6f8fa;border:1px solid #e5e7eb}pre.cmd::before{content:"$ ";color:#888}
pre.out{background:#fbfbfb;border:1px solid #eee;color:#333}pre.out.err{background:#fef2f2;border-color:#fca5a5;color:#991b1b}
.diff .add{background:#dcfce7;color:#14532d;display:block}.diff .del{background:#fee2e2;color:#7f1d1d;display:block}
.diff .hunk{color:#6d28d9;display:block}.diff .meta{color:#555;font-weight:600;display:block}.diff .ctx{display:block}.diff .flag{outline:2px solid #ea580c}
details.episode{border:1px solid #ddd;border-left:4px solid #bbb;border-radius:4px;margin:.35em 0;background:#fff}
details.episode.e-ok{border-left-color:#16a34a}details.episode.e-fail{border-left-color:#dc2626}details.episode.e-err{border-left-color:#7f1d1d;background:#fff8f8}
details.episode>summary{padding:.35em .6em;cursor:pointer;font-size:.88em}details.episode[open]>summary{background:#f5f5f5;border-bottom:1px solid #ddd}
.sep{color:#bbb}.conv{padding:.4em .7em}
.msg{margin:.35em 0;padding:.25em .5em;border-left:3px solid transparent;font-size:.9em}
.m-system,.m-user{border-left-color:#94a3b8}.m-assistant{border-left-color:#2563eb;background:#f8faff}.m-tool{border-left-color:#d1d5db}.m-err{border-left-color:#dc2626}
.msg.flagged,.section.flagged{border-left-color:#ea580c;background:#fff7ed;outline:1px dashed #ea580c}
.msg:target,.section:target{box-shadow:0 0 0 3px #fdba74}
.role{font-size:.85em;margin-bottom:.1em}.idx{color:#888;font-size:.85em;margin-right:.2em}
.call{margin:.3em 0 .3em .5em}.call-head{font-size:.85em}.tool{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-weight:bold;background:#e0e7ff;color:#3730a3;padding:0 .35em;border-radius:3px}
.path{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}
details.fold>summary{cursor:pointer;font-size:.85em;color:#333}details.fold{margin:.2em 0}
.final{font-size:.8em;font-style:italic}.small{font-size:.85em}
.compaction{margin:.5em 0;padding:.3em .5em;border:1px dashed #7c3aed;background:#f5f3ff;font-size:.88em}
.finding{margin:.3em 0;font-size:.85em;color:#9a3412}.finding code{background:#ffedd5;padding:0 .25em;white-space:pre-wrap;overflow-wrap:anywhere}.finding.top{padding:.3em .5em;border:1px solid #fdba74;background:#fff7ed}
.section{margin:.5em 0;padding:.25em .5em;border-left:3px solid #e5e7eb}
</style></head><body>${parts.join('\n')}</body></html>`;
}
