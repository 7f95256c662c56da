import type { RuleFinding } from '../judges/ruleFunnel.js';
import type { Message, ToolCall } from '../schema/trajectory.js';
import { block, escapeHtml as esc, firstLine, lineCount, num, plural } from './reportFormat.js';

// One message of an episode on the Leaf report page: its role, tool calls rendered per tool, and findings.

/** The anchors of an episode's parts. @internal */
export interface Ids {
  /** Episode anchor. */
  ep: string;
  /** Anchor of message `i` (`i === messages.length`: the final diff). */
  msg: (i: number) => string;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Badges naming rule-funnel findings (linking to the message they point at when `link`). @internal */
export function findingBadges(fs: readonly RuleFinding[], ids: Ids, link: boolean): string {
  return fs
    .map((f) => {
      const text = `${esc(f.code)}`;
      const title = esc(`${f.code}: ${f.evidence}`);
      return link ? `<a class="badge b-flag" href="#${ids.msg(f.messageIndex)}" title="${title}">${text}</a>` : `<span class="badge b-flag" title="${title}">${text}</span>`;
    })
    .join(' ');
}

/** The findings shown under the message they point at. @internal */
export function findingNotes(fs: readonly RuleFinding[]): string {
  if (fs.length === 0) return '';
  return `<div class="finding">${fs.map((f) => `<div><span class="badge b-flag">${esc(f.code)}</span> <code>${esc(f.evidence)}</code></div>`).join('')}</div>`;
}

/** A tool call, rendered for its tool (bash command, edit as -/+ lines, write content collapsed, read range, glob pattern), or as JSON. */
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

/** One message with anchor `ids.msg(i)`; the task statement collapsed, long tool results folded. @internal */
export function renderMessage(m: Message, i: number, ids: Ids, statement: string, fs: readonly RuleFinding[]): string {
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
