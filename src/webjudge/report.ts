import { writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { diffLines } from 'diff';
import { RUBRIC_DIMENSIONS } from '../judges/index.js';
import { describeAction } from './actions.js';
import { WEB_JUDGE_WEIGHTS, type WebRubric } from './rubric.js';
import type { WebRun } from './runActions.js';
import type { WebVerdict } from './judgeInteraction.js';

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** One line of a snapshot diff. */
interface DiffLine {
  op: ' ' | '+' | '-';
  text: string;
}

/** The line diff of two ARIA snapshots. @internal */
export function snapshotDiff(prev: string, cur: string): DiffLine[] {
  const out: DiffLine[] = [];
  for (const part of diffLines(prev, cur)) {
    const lines = part.value.replace(/\n$/, '').split('\n');
    const op = part.added ? '+' : part.removed ? '-' : ' ';
    for (const text of lines) out.push({ op, text });
  }
  return out;
}

/** Changed lines with `context` unchanged lines around them; longer unchanged runs fold into one note. */
function renderDiff(lines: DiffLine[], context = 2): string {
  const keep = lines.map(() => false);
  lines.forEach((l, i) => {
    if (l.op === ' ') return;
    for (let j = Math.max(0, i - context); j <= Math.min(lines.length - 1, i + context); j++) keep[j] = true;
  });
  const out: string[] = [];
  let folded = 0;
  const flush = (): void => {
    if (folded > 0) out.push(`<span class="fold">… ${folded} unchanged line${folded === 1 ? '' : 's'}</span>`);
    folded = 0;
  };
  lines.forEach((l, i) => {
    if (!keep[i]) return void folded++;
    flush();
    const cls = l.op === '+' ? 'add' : l.op === '-' ? 'del' : 'ctx';
    // the +/− marker sits in its own gutter: the snapshot's own "- " list dashes stay readable
    out.push(`<span class="${cls}"><b class="gut">${l.op === '+' ? '+' : l.op === '-' ? '−' : ''}</b>${esc(l.text)}</span>`);
  });
  flush();
  return out.join('');
}

/**
 * The link from the report to a screenshot: its path relative to the report's folder,
 * each segment percent-encoded (`encodeURIComponent`) and joined with `/`, so that a
 * folder or file name with `#`, `%`, `?` or a space stays part of the path instead of
 * starting a fragment or a query or breaking an escape. Still to be HTML-escaped.
 * @internal
 */
export function screenshotHref(reportDir: string, screenshot: string): string {
  const rel = relative(reportDir, screenshot) || basename(screenshot);
  return rel.split(sep).map(encodeURIComponent).join('/');
}

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;

/** What the report shows. */
export interface WebJudgeReportInput {
  /** The recorded run. */
  run: WebRun;
  /** The rubric. */
  rubric: WebRubric;
  /** The verdict, or null when the judge's answer was refused (then `refused` says why). */
  verdict: WebVerdict | null;
  /** Why there is no verdict. */
  refused?: string;
}

/**
 * The web judge's HTML report: the score and the verdict (each item linked to the
 * step it cites), then every step with its action and outcome, screenshot, the
 * ARIA snapshot's diff from the previous step, console output and blocked
 * requests. Screenshot paths are written relative to `reportPath`'s folder, so
 * the report and its PNGs can be moved together, and percent-encoded per path
 * segment (a folder named `a #1` links as `a%20%231/step-000.png`).
 */
export function renderWebJudgeReport(input: WebJudgeReportInput, reportPath: string): string {
  const { run, rubric, verdict } = input;
  const here = dirname(reportPath);
  const cites = new Map<number, string[]>();
  for (const it of verdict?.items ?? []) cites.set(it.step, [...(cites.get(it.step) ?? []), it.id]);
  const passedById = new Map((verdict?.items ?? []).map((it) => [it.id, it.passed]));
  const failedSteps = run.steps.filter((s) => !s.ok).length;

  const scoreBox = verdict
    ? `<div class="score"><span class="big">${verdict.score.toFixed(3)}</span><span class="sub">score (${pct(verdict.score)}) · ${verdict.items.filter((i) => i.passed).length}/${verdict.items.length} items passed · each dimension's pass rate, weighted</span></div>`
    : `<div class="score refused"><span class="big">no score</span><span class="sub">the judge's answer was refused: ${esc(input.refused ?? 'no valid answer')}</span></div>`;

  const dims = RUBRIC_DIMENSIONS.filter((d) => rubric.items.some((it) => it.dimension === d))
    .map((d) => {
      const items = rubric.items.filter((it) => it.dimension === d);
      const passed = items.filter((it) => passedById.get(it.id) === true).length;
      return `<span class="dim">${d} <b>${verdict ? `${passed}/${items.length}` : `${items.length} items`}</b> <i>weight ${WEB_JUDGE_WEIGHTS[d]}</i></span>`;
    })
    .join('');

  const verdictRows = rubric.items
    .map((it) => {
      const v = verdict?.items.find((x) => x.id === it.id);
      const result = v ? (v.passed ? '<span class="pass">✓ passed</span>' : '<span class="fail">✗ failed</span>') : '<span class="none">—</span>';
      const evidence = v ? `<a href="#step-${v.step}">step ${v.step}</a> ${esc(v.observation)}` : '';
      return `<tr><td class="id">${esc(it.id)}</td><td>${esc(it.dimension)}</td><td>${esc(it.text)}</td><td>${result}</td><td>${evidence}</td></tr>`;
    })
    .join('\n');

  const nav = run.steps
    .map((s) => `<a class="chip ${s.ok ? 'ok' : 'bad'}${cites.has(s.index) ? ' cited' : ''}" href="#step-${s.index}" title="${esc(describeAction(s.action))}">${s.index}</a>`)
    .join('');

  const steps = run.steps
    .map((s, i) => {
      const prev = i > 0 ? run.steps[i - 1]! : null;
      let snap: string;
      if (prev === null) snap = `<div class="label">ARIA snapshot (page as loaded)</div><pre class="snap">${esc(s.snapshot)}</pre>`;
      else if (prev.url !== s.url && prev.snapshot !== s.snapshot) snap = `<div class="label">ARIA snapshot (a new page: the URL changed at this step)</div><pre class="snap">${esc(s.snapshot)}</pre>`;
      else if (prev.snapshot === s.snapshot) snap = `<div class="label">ARIA snapshot</div><p class="same">No change from step ${prev.index}.</p>`;
      else snap = `<div class="label">ARIA snapshot: changes from step ${prev.index} <span class="legend"><span class="add">+ added</span> <span class="del">− removed</span></span></div><pre class="snap">${renderDiff(snapshotDiff(prev.snapshot, s.snapshot))}</pre>`;
      const cons = s.console.length ? `<div class="label">Console</div><pre class="console">${s.console.map((c) => `<span class="${/^\[(error|pageerror)/.test(c) ? 'err' : /^\[warning/.test(c) ? 'warn' : 'log'}">${esc(c)}</span>`).join('\n')}</pre>` : '<div class="label">Console</div><p class="same">No output.</p>';
      const blocked = s.blocked.length ? `<div class="label">Blocked requests (other origins)</div><pre class="console">${s.blocked.map((b) => `<span class="warn">${esc(b)}</span>`).join('\n')}</pre>` : '';
      const href = s.screenshot ? esc(screenshotHref(here, s.screenshot)) : '';
      const shot = s.screenshot
        ? `<a href="${href}"><img src="${href}" alt="Screenshot after step ${s.index}" loading="lazy"></a><div class="cap">Screenshot after step ${s.index} · click to open at full size</div>`
        : '<p class="same">No screenshot (the page could not be captured).</p>';
      const cited = cites.get(s.index);
      const citedBy = cited ? `<span class="citedby">evidence for ${cited.map((id) => `<b class="${passedById.get(id) ? 'pass' : 'fail'}">${esc(id)}</b>`).join(' ')}</span>` : '';
      const status = s.ok ? '<span class="badge ok">✓ ok</span>' : '<span class="badge bad">✗ failed</span>';
      return `<section class="step${s.ok ? '' : ' failed'}" id="step-${s.index}">
<h3><span class="n">Step ${s.index}</span> ${esc(describeAction(s.action))} ${status} ${citedBy}</h3>
${s.error ? `<p class="error">${esc(s.error)}</p>` : ''}
<p class="url">${esc(s.url)}${s.title ? ` · <i>${esc(s.title)}</i>` : ''} · ${(s.durationMs / 1000).toFixed(2)} s</p>
<div class="cols"><div class="shot">${shot}</div><div class="info">${snap}${cons}${blocked}</div></div>
</section>`;
    })
    .join('\n');

  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Web judge: ${esc(rubric.task.slice(0, 80))}</title>
<style>
  :root { --fg: #1d232b; --mute: #5d6875; --line: #dde2e8; --pass: #137a3b; --fail: #b42318; --bg2: #f5f7f9; }
  * { box-sizing: border-box; }
  body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); margin: 0; padding: 24px 32px 64px; max-width: 1400px; }
  h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 18px; margin: 32px 0 10px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
  .meta { color: var(--mute); font-size: 13px; margin: 0 0 14px; } .meta code { font-size: 12px; }
  .task { background: var(--bg2); border-left: 4px solid #8aa4c2; padding: 8px 12px; margin: 10px 0 16px; white-space: pre-wrap; }
  .top { display: flex; gap: 28px; align-items: center; flex-wrap: wrap; }
  .score { display: flex; flex-direction: column; } .score .big { font-size: 40px; font-weight: 700; line-height: 1; }
  .score .sub { color: var(--mute); font-size: 13px; margin-top: 4px; } .score.refused .big { color: var(--fail); font-size: 28px; }
  .dims { display: flex; gap: 8px; flex-wrap: wrap; } .dim { background: var(--bg2); border: 1px solid var(--line); border-radius: 6px; padding: 3px 8px; font-size: 13px; } .dim i { color: var(--mute); font-style: normal; font-size: 11px; }
  table { border-collapse: collapse; width: 100%; font-size: 14px; } th, td { text-align: left; vertical-align: top; padding: 6px 8px; border-bottom: 1px solid var(--line); }
  th { background: var(--bg2); font-weight: 600; } td.id { font-weight: 600; white-space: nowrap; }
  .pass { color: var(--pass); font-weight: 600; } .fail { color: var(--fail); font-weight: 600; } .none { color: var(--mute); }
  .nav { display: flex; gap: 4px; flex-wrap: wrap; margin: 6px 0 0; } .chip { display: inline-block; min-width: 28px; text-align: center; padding: 2px 6px; border-radius: 12px; font-size: 12px; text-decoration: none; border: 1px solid var(--line); color: var(--fg); }
  .chip.bad { background: #fde8e7; border-color: #f3b8b3; } .chip.cited { font-weight: 700; border-color: #6b8fbf; }
  .step { border: 1px solid var(--line); border-radius: 8px; padding: 10px 14px 14px; margin: 14px 0; scroll-margin-top: 12px; } .step.failed { border-color: #f3b8b3; }
  .step:target { box-shadow: 0 0 0 3px #9cc3f5; }
  .step h3 { font-size: 15px; margin: 0 0 4px; font-weight: 600; } .step h3 .n { background: var(--fg); color: #fff; border-radius: 4px; padding: 1px 7px; margin-right: 6px; font-size: 13px; }
  .citedby { font-weight: 400; font-size: 13px; color: var(--mute); margin-left: 8px; }
  .error { color: var(--fail); margin: 2px 0 6px; font-size: 14px; } .url { color: var(--mute); font-size: 12px; margin: 0 0 8px; word-break: break-all; }
  .cols { display: grid; grid-template-columns: minmax(0, 1.1fr) minmax(0, 1fr); gap: 16px; }
  .shot img { width: 100%; border: 1px solid var(--line); border-radius: 4px; display: block; }
  .label { font-size: 12px; font-weight: 600; text-transform: uppercase; letter-spacing: .04em; color: var(--mute); margin: 0 0 3px; } .label .legend { text-transform: none; letter-spacing: 0; font-weight: 400; margin-left: 6px; }
  pre { margin: 0 0 10px; padding: 8px 10px; background: var(--bg2); border-radius: 4px; font: 12px/1.4 ui-monospace, "DejaVu Sans Mono", monospace; white-space: pre-wrap; word-break: break-word; max-height: 340px; overflow: auto; }
  pre span { display: block; } .add { color: var(--pass); background: #e6f4ea; } .del { color: var(--fail); background: #fde8e7; } .ctx { color: var(--fg); } .fold { color: var(--mute); font-style: italic; }
  .gut { display: inline-block; width: 1.4em; font-weight: 700; } .fold { padding-left: 1.4em; }
  .legend .add, .legend .del { display: inline; padding: 0 4px; border-radius: 3px; }
  .badge { font-size: 12px; font-weight: 600; border-radius: 10px; padding: 1px 8px; margin-left: 6px; vertical-align: 1px; } .badge.ok { background: #e6f4ea; color: var(--pass); } .badge.bad { background: #fde8e7; color: var(--fail); }
  .cap { color: var(--mute); font-size: 12px; margin-top: 3px; } .legend-line { color: var(--mute); font-size: 13px; margin: 6px 0 0; }
  .err { color: var(--fail); } .warn { color: #8a5a00; } .log { color: var(--fg); } .same { color: var(--mute); font-size: 13px; margin: 0 0 10px; }
  @media (max-width: 900px) { .cols { grid-template-columns: 1fr; } body { padding: 16px; } }
</style></head>
<body>
<h1>Web judge report</h1>
<p class="meta">App <code>${esc(run.app.dir)}</code>${run.app.start ? ` started with <code>${esc(run.app.start)}</code>` : ' served statically'} at <code>${esc(run.origin)}</code> · Chromium ${esc(run.browserVersion)} · ${run.steps.length} steps, ${failedSteps} failed action${failedSteps === 1 ? '' : 's'}, ${run.blocked.length} blocked request${run.blocked.length === 1 ? '' : 's'}${run.truncated ? ' · <b class="fail">the run hit its time limit: later actions were not run</b>' : ''}</p>
<div class="task">${esc(rubric.task)}</div>
<div class="top">${scoreBox}<div class="dims">${dims}</div></div>
<h2>Verdict</h2>
<table><thead><tr><th>Item</th><th>Dimension</th><th>Requirement</th><th>Result</th><th>Evidence</th></tr></thead><tbody>
${verdictRows}
</tbody></table>
<h2>Steps</h2>
<div class="nav">${nav}</div>
<p class="legend-line">Red: the action failed. Bold outline: cited as evidence by the verdict. Each step shows the page after its action.</p>
${steps}
</body></html>
`;
}

/** Writes the report to `outDir/report.html` and returns its path. */
export async function writeWebJudgeReport(input: WebJudgeReportInput, outDir: string): Promise<string> {
  const path = join(resolve(outDir), 'report.html');
  await writeFile(path, renderWebJudgeReport(input, path));
  return path;
}
