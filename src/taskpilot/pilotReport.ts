/**
 * The pilot's HTML report (SPEC §15): p-hat histogram per round, outcome counts by
 * reason, FrogNano Fig. 6 statistics of the accepted batch. One self-contained page
 * (inline CSS bars, no external assets), in the Leaf report's style.
 * @module
 */
import { escapeHtml } from '../leaf/reportFormat.js';
import { REPORT_CSS } from '../leaf/reportStyle.js';
import type { PilotDiscardLine, PilotTaskLine } from './pilotOutputs.js';

/** Fig. 6 statistics of one task. */
export interface TaskStatistics {
  /** Whitespace-separated words of the statement. */
  statementWords: number;
  /** Test-patch churn: lines of the hidden test files (each file's line count, summed). */
  testLines: number;
  /** Changed lines of the gold patch: `+` and `-` lines, headers (`+++`, `---`) excluded. */
  goldLines: number;
  /** testLines / goldLines (null when the gold patch changes no line). */
  testGoldRatio: number | null;
  /**
   * Explicit requirements: the sentences of the statement (split at `.`, `!`, `?`, `;` or a
   * line break) that contain must, should, expected / expect, or return(s), plus the bullet
   * items (lines starting with `-`, `*`, `•` or `1.`), a bullet with such a word counted once.
   */
  requirements: number;
}

const REQUIREMENT = /\b(must|should|expected|expect|expects|returns?|required?)\b/i;
const BULLET = /^\s*(?:[-*•]|\d+[.)])\s+\S/;

/** The Fig. 6 statistics of a statement, its hidden test files and its gold patch. */
export function taskStatistics(statement: string, files: Readonly<Record<string, string>>, goldPatch: string): TaskStatistics {
  const statementWords = statement.split(/\s+/).filter((w) => w !== '').length;
  const testLines = Object.values(files).reduce((n, f) => n + (f === '' ? 0 : f.replace(/\n$/, '').split('\n').length), 0);
  const goldLines = goldPatch.split('\n').filter((l) => (l.startsWith('+') && !l.startsWith('+++')) || (l.startsWith('-') && !l.startsWith('---'))).length;
  let requirements = 0;
  for (const line of statement.split('\n')) {
    if (BULLET.test(line)) {
      requirements++;
      continue;
    }
    for (const s of line.split(/[.!?;]+/)) if (REQUIREMENT.test(s)) requirements++;
  }
  return { statementWords, testLines, goldLines, testGoldRatio: goldLines === 0 ? null : testLines / goldLines, requirements };
}

/** Options of {@link renderPilotReport}. */
export interface PilotReportOptions {
  title?: string;
  /** The band, as written (`(0, 1)`). */
  band?: string;
  /** N of the estimates. */
  rollouts?: number;
}

const BINS = 10;

function histogram(values: readonly number[]): string {
  const bins = new Array<number>(BINS + 1).fill(0);
  for (const v of values) bins[v >= 1 ? BINS : Math.floor(v * BINS)]!++;
  const max = Math.max(1, ...bins);
  const label = (i: number): string => (i === BINS ? '1' : `${(i / BINS).toFixed(1)}–${((i + 1) / BINS).toFixed(1)}`);
  const rows = bins.map((n, i) => `<tr><td class="n">${label(i)}</td><td><span class="hbar" style="width:${Math.round((n / max) * 240)}px"></span> ${n}</td></tr>`);
  return `<table class="hist"><tr><th>p-hat</th><th>candidates</th></tr>${rows.join('')}</table>`;
}

const mean = (xs: readonly number[]): number | null => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
const median = (xs: readonly number[]): number | null => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const f = (v: number | null, d = 1): string => (v === null ? '—' : v.toFixed(d));

/**
 * Renders the report of a pilot run from its two output files' lines (so a resumed run
 * reports everything): the p-hats of round r are `pHatHistory[r]` of every lineage
 * (accepted tasks' `pilot.pHatHistory`, discarded lines' `pHatHistory`); outcome counts are
 * `accepted` plus each discard reason; Fig. 6 statistics (mean and median of each
 * {@link TaskStatistics} field) over the accepted tasks, by source and in all.
 */
export function renderPilotReport(tasks: readonly PilotTaskLine[], discarded: readonly PilotDiscardLine[], opts: PilotReportOptions = {}): string {
  const title = opts.title ?? 'frognano taskpilot report';
  const histories = [...tasks.map((t) => t.pilot.pHatHistory ?? [t.pilot.pHat]), ...discarded.map((d) => d.pHatHistory ?? [])];
  const maxRound = Math.max(-1, ...histories.map((h) => h.length - 1));
  const rounds: string[] = [];
  for (let r = 0; r <= maxRound; r++) {
    const vs = histories.map((h) => h[r]).filter((v): v is number => typeof v === 'number');
    rounds.push(`<div class="round"><h3>Round ${r} <span class="dim">(${vs.length} estimated, mean ${f(mean(vs), 3)})</span></h3>${histogram(vs)}</div>`);
  }
  const counts = new Map<string, number>([['accepted', tasks.length]]);
  for (const d of discarded) counts.set(d.reason, (counts.get(d.reason) ?? 0) + 1);
  const countRows = [...counts].map(([k, v]) => `<tr><td>${escapeHtml(k)}</td><td class="n">${v}</td></tr>`).join('');
  const stats = tasks.map((t) => ({ t, s: taskStatistics(t.statement, t.tests.files ?? {}, t.referencePatch) }));
  const groups: [string, typeof stats][] = [['all accepted', stats], ...[...new Set(tasks.map((t) => t.pilot.source))].sort().map((src) => [src, stats.filter((x) => x.t.pilot.source === src)] as [string, typeof stats])];
  const fields: [keyof TaskStatistics, string, number][] = [['statementWords', 'statement words', 1], ['testLines', 'test-patch churn (lines)', 1], ['testGoldRatio', 'test / gold churn', 2], ['requirements', 'explicit requirements', 1]];
  const statRows = groups.filter(([, g]) => g.length > 0).map(([name, g]) => {
    const cells = fields.map(([k, , d]) => {
      const xs = g.map((x) => x.s[k]).filter((v): v is number => typeof v === 'number');
      return `<td class="n">${f(mean(xs), d)} / ${f(median(xs), d)}</td>`;
    });
    return `<tr><td>${escapeHtml(name)} <span class="dim">(${g.length})</span></td>${cells.join('')}</tr>`;
  }).join('');
  const taskRows = stats.map(({ t, s }) => `<tr><td class="id">${escapeHtml(t.id)}</td><td>${escapeHtml(t.pilot.source)}</td><td>${escapeHtml(t.pilot.category)}</td><td class="n">${(t.pilot.pHatHistory ?? [t.pilot.pHat]).map((v) => v.toFixed(3)).join(' → ')}</td><td class="n">${escapeHtml(String(t.pilot.round))}</td><td class="n">${s.statementWords}</td><td class="n">${s.testLines}</td><td class="n">${f(s.testGoldRatio, 2)}</td><td class="n">${s.requirements}</td><td>${escapeHtml(t.statement.slice(0, 160))}${t.statement.length > 160 ? '…' : ''}</td></tr>`).join('');
  const discardRows = discarded.map((d) => `<tr><td class="id">${escapeHtml(d.id ?? '—')}</td><td>${escapeHtml(d.reason)}</td><td class="n">${(d.pHatHistory ?? []).map((v) => Number(v).toFixed(3)).join(' → ') || '—'}</td><td>${escapeHtml((d.detail ?? '').slice(0, 200))}</td></tr>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>${REPORT_CSS}
.hbar{display:inline-block;height:10px;background:#2563eb;vertical-align:middle}.rounds{display:flex;flex-wrap:wrap;gap:1.5em}table.hist td{min-width:3em}</style></head>
<body>
<h1>${escapeHtml(title)}</h1>
<p class="note">Band ${escapeHtml(opts.band ?? '—')}, N = ${opts.rollouts ?? '—'} rollouts per estimate. ${tasks.length} accepted, ${discarded.length} discarded.</p>
<h2>p-hat per round</h2>
<div class="rounds">${rounds.join('') || '<p class="note">No candidate was estimated.</p>'}</div>
<h2>Outcomes</h2>
<table id="outcomes"><tr><th>outcome</th><th>candidates</th></tr>${countRows}</table>
<h2>Fig. 6 statistics of the accepted batch (mean / median)</h2>
<p class="note">Statement words: whitespace-separated; test-patch churn: lines of the hidden test files; test / gold churn: those lines over the gold patch's changed (+/-) lines; explicit requirements: sentences with must / should / expected / returns, plus bullet items.</p>
<table id="fig6"><tr><th>batch</th>${fields.map(([, l]) => `<th>${l}</th>`).join('')}</tr>${statRows}</table>
<h2>Accepted tasks</h2>
<table id="accepted"><tr><th>id</th><th>source</th><th>category</th><th>p-hat (each round → accepted)</th><th>round</th><th>words</th><th>test lines</th><th>test/gold</th><th>reqs</th><th>statement</th></tr>${taskRows}</table>
<h2>Discarded candidates</h2>
<table id="discarded"><tr><th>id</th><th>reason</th><th>p-hat history</th><th>detail</th></tr>${discardRows}</table>
</body></html>
`;
}
