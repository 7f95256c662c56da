import type { RuleFinding } from '../judges/ruleFunnel.js';
import type { CompactionRecord } from './leafTrajectory.js';
import { escapeHtml as esc, fixed, lineCount, num, plural, signed } from './reportFormat.js';
import { findingBadges, findingNotes, type Ids, renderMessage } from './reportMessage.js';
import type { RolloutRecord } from './rolloutTasks.js';

// One episode on the Leaf report page: the summary line, the conversation, compactions, final diff and grading.

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

function renderCompaction(c: CompactionRecord): string {
  return `<div class="compaction"><div class="role"><b>context compacted</b> before #${c.atMessage}: ${num(c.historyTokens, 0)} &rarr; ${num(c.tokensAfter, 0)} tokens <span class="dim">(history budget ${num(c.budget, 0)}, ${plural(c.droppedGroups, 'turn group')} dropped, summary ${plural(c.summaryTokens, 'token')})</span></div><details class="fold"><summary>summary</summary><pre class="text">${esc(c.summary)}</pre></details></div>`;
}

/** The final diff, lines colored by kind; lines (and file headers) that a finding quotes are outlined. */
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

/** One episode, collapsed to its summary line, anchored `ep-<task>-<episode>`. @internal */
export function renderEpisode(r: RolloutRecord, taskSlug: string): string {
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
      `<div class="section"><details class="fold"><summary><b>grading</b> ${verdict} <span class="dim">exit ${g.exitCode ?? 'killed'}${g.timedOut ? ', timed out' : ''}, ${num(g.seconds, 2)} s, ${plural(lineCount(g.output), 'line')}</span></summary>${gradingNotes(r)}<pre class="out">${esc(g.output)}</pre></details></div>`,
    );
  }
  const cls = r.termination === 'error' ? ' e-err' : r.outcome?.success ? ' e-ok' : ' e-fail';
  return `<details class="episode${cls}" id="${ep}"><summary>${sum.join(' <span class="sep">&middot;</span> ')}</summary><div class="conv">${body.join('\n')}</div></details>`;
}

/** One mark per episode (solved, not solved, error), each linking to it. @internal */
export function episodeMarks(rs: readonly RolloutRecord[], taskSlug: string): string {
  return rs
    .map((r) => {
      const [ch, cls, what] = r.termination === 'error' ? ['!', 'bad', 'error'] : r.outcome?.success ? ['&#10003;', 'ok', 'solved'] : ['&#10007;', 'bad', 'not solved'];
      const t = `episode ${r.episode}: ${what}, ${r.termination}${r.hacking.length ? `, ${r.hacking.map((f) => f.code).join(', ')}` : ''}`;
      return `<a class="mark ${cls}${r.hacking.length ? ' mflag' : ''}" href="#ep-${taskSlug}-${r.episode}" title="${esc(t)}">${ch}</a>`;
    })
    .join('');
}

/**
 * What grading decided besides the log: per-test statuses (SPEC §14), the reason,
 * a grading error, the diff's cut or error, the files the repo's .gitignore
 * ignores (`ignoredChanges`) and what the grader dropped. Empty for a plain exit-code grading. @internal
 */
export function gradingNotes(r: RolloutRecord): string {
  const g = r.grading!;
  const out: string[] = [];
  const perTest = (r.tests ?? []).filter((t) => typeof (t as { status?: unknown }).status === 'string');
  if (perTest.length > 0) {
    const rows = perTest.map((t) => `<tr><td class="${t.passed ? 'ok' : 'bad'}">${t.passed ? '&#10003;' : '&#10007;'}</td><td>${esc(String((t as { status?: unknown }).status))}</td><td><code>${esc(t.name)}</code></td></tr>`);
    out.push(`<table class="tests"><tr><th></th><th>status</th><th>test</th></tr>${rows.join('')}</table>`);
  }
  const line = (label: string, text: string): void => void out.push(`<p class="dim"><b>${label}</b> ${esc(text)}</p>`);
  if (g.reason !== undefined) line('why', g.reason);
  if (g.error !== undefined) line('grading error', g.error);
  if (g.diffError !== undefined) line('diff unavailable', g.diffError);
  if (g.diffCut !== undefined) line('diff cut', `${g.diffCut.reason}: ${g.diffCut.shownFiles} files shown, ${g.diffCut.omittedFiles} omitted`);
  if (g.dropped !== undefined && g.dropped.length > 0) line('dropped before the tests ran', g.dropped.join(', '));
  const ignored = r.ignoredChanges ?? [];
  if (ignored.length > 0) line(`ignored by the repo's .gitignore (${ignored.length})`, ignored.slice(0, 50).map((c) => `${c.path} (${c.bytes} B)`).join(', ') + (ignored.length > 50 ? ', ...' : ''));
  return out.join('');
}
