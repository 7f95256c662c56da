import { z } from 'zod';
import { parseOptions } from '../errors/validate.js';
import { episodeMarks, renderEpisode } from './reportEpisode.js';
import { block, counts, escapeHtml as esc, firstLine, fixed, num, plural, rate, slug } from './reportFormat.js';
import { REPORT_CSS } from './reportStyle.js';
import type { RolloutRecord } from './rolloutTasks.js';
import { groupByTask, statsOf, summarizeLeafRecords } from './summarizeLeafRecords.js';

/** Options of {@link renderLeafReport}. */
export const LeafReportOptionsSchema = z
  .object({
    /** Page title. Default `'Leaf rollouts'`. */
    title: z.string().optional(),
    /** When the rollouts ran (any text, e.g. an ISO date), shown under the title. Default: not shown. */
    generatedAt: z.string().optional(),
    /** The policy's name, shown under the title. Default: not shown. */
    model: z.string().optional(),
  })
  .strict();
/** Options of {@link renderLeafReport} as the caller writes them. */
export type LeafReportOptions = z.input<typeof LeafReportOptionsSchema>;

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
  const o = parseOptions('renderLeafReport', LeafReportOptionsSchema, opts);
  const title = o.title ?? 'Leaf rollouts';
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
  const sub = [o.model !== undefined ? `model <b>${esc(o.model)}</b>` : '', o.generatedAt !== undefined ? `generated ${esc(o.generatedAt)}` : ''].filter(Boolean);
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
${REPORT_CSS}
</style></head><body>${parts.join('\n')}</body></html>`;
}
