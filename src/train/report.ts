import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { functionSchema, parseWith } from '../errors/validate.js';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import type { TaskPilotResult } from '../curriculum/taskPilot.js';
import { solveRateGainCI } from '../metrics/solveRateGainCI.js';
import type { UpdateRecord } from './trainerCheckpoint.js';

/** What {@link renderTrainingReport} draws. */
export interface TrainingReportInput<T> {
  /** Page title. Default `'FrogNano training run'`. */
  title?: string;
  /** The run's update records (`RunResult.records` or the JSONL log). */
  records: readonly UpdateRecord[];
  /** The run's TaskPilot results (`RunResult.pilots`). */
  pilots: readonly TaskPilotResult<T>[];
  /** Held-out solve rate before and after training, each in [0, 1]. */
  heldOut?: { before: number; after: number; label?: string };
  /** Free lines shown under the title (configuration, timings). */
  notes?: readonly string[];
  /** Renders a task for the candidate-history table. */
  describe?: (task: T) => string;
  /** Candidate histories listed per iteration. Default 6. */
  historiesPerIteration?: number;
}

/** The most bins of a report histogram (1001: rates in steps of 1/1000). */
export const REPORT_MAX_HISTOGRAM_BINS = 1001;

const num = () => z.number();
/** What {@link renderTrainingReport} reads of an update record. */
const ReportRecordSchema = z.looseObject({
  iteration: num(),
  step: num(),
  solveRate: z.number().min(0).max(1),
  meanReward: num(),
  meanAssistantTokens: num(),
  entropy: num(),
  keptTokenFraction: num(),
  groups: num(),
  zeroVarianceGroups: num(),
  policyLag: num(),
  lengthPenalty: z.boolean(),
});
/** What {@link renderTrainingReport} reads of a TaskPilot result. */
const ReportPilotSchema = z.looseObject({
  iteration: num(),
  band: z.looseObject({ low: num(), high: num(), lowInclusive: z.boolean(), highInclusive: z.boolean() }),
  accepted: z.array(z.unknown()),
  candidates: z.array(
    z.looseObject({
      id: z.string(),
      status: z.string(),
      steps: z.array(
        z.looseObject({
          task: z.unknown(),
          passed: z.number().int().min(0),
          rollouts: z.number().int().min(0),
          rate: z.number().min(0).max(1),
          action: z.string(),
          reason: z.string().optional(),
        }),
      ),
    }),
  ),
  rounds: z.array(z.looseObject({ round: num(), evaluated: num(), accepted: num() })),
  rolloutsUsed: num(),
});
type ReportRecord = z.output<typeof ReportRecordSchema>;
/** The input of {@link renderTrainingReport}, as checked. */
const ReportInputSchema = z.looseObject({
  title: z.string().optional(),
  records: z.array(ReportRecordSchema),
  pilots: z.array(ReportPilotSchema),
  heldOut: z.looseObject({ before: z.number().min(0).max(1), after: z.number().min(0).max(1), label: z.string().optional() }).optional(),
  notes: z.array(z.string()).optional(),
  describe: functionSchema<(task: unknown) => string>('(task) => string').optional(),
  historiesPerIteration: z.number().int().min(0).optional(),
});

const COLORS = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2'];

/**
 * An HTML page (self-contained, inline SVG charts, no scripts) of a training
 * run: held-out solve rate before/after, the training solve rate per update
 * with iteration boundaries (FrogNano Fig. 10) and each climb's gain over its
 * first quartile with a block-bootstrap interval (`solveRateGainCI`), the `p̂`
 * histogram of each iteration's first TaskPilot evaluation (and of the
 * accepted tasks), mean assistant tokens per trajectory (Fig. 9), entropy,
 * DPPO kept-token fraction and policy lag, and a few candidates' refinement
 * histories (Fig. 4 / 5).
 *
 * The input is checked first (only the fields drawn are read; other fields of the
 * records and pilots are ignored). A histogram has at most {@link REPORT_MAX_HISTOGRAM_BINS}
 * bins, however many calibration rollouts a pilot declares.
 *
 * @throws FrognanoError `INVALID_TYPE` / `NON_FINITE` / `OUT_OF_RANGE` naming the field
 *   (`input.records[3].solveRate`, `input.pilots[0].candidates[2].steps[0].rate`, ...), e.g. for
 *   records that are not an array of update records; `INVALID_TYPE` naming `input.describe` when it
 *   returns something other than a string
 * @example writeFileSync('report.html', renderTrainingReport({ records, pilots, heldOut: { before: 0.2, after: 0.5 } }));
 */
export function renderTrainingReport<T>(input: TrainingReportInput<T>): string {
  const fn = 'renderTrainingReport';
  const parsed = parseWith(fn, 'input', ReportInputSchema, input);
  const describeTask = parsed.describe as ((task: T) => string) | undefined;
  const title = parsed.title ?? 'FrogNano training run';
  const recs = parsed.records;
  const bounds = iterationBounds(recs);
  const parts: string[] = [];
  parts.push(`<h1>${esc(title)}</h1>`);
  for (const n of parsed.notes ?? []) parts.push(`<p class="note">${esc(n)}</p>`);
  if (parsed.heldOut) {
    const { before, after, label } = parsed.heldOut;
    parts.push(
      `<h2>Held-out solve rate${label ? ` (${esc(label)})` : ''}</h2><p class="big">${pct(before)} &rarr; <b>${pct(after)}</b> (${after >= before ? '+' : ''}${((after - before) * 100).toFixed(1)} points)</p>`,
    );
  }
  if (recs.length > 0) {
    parts.push('<h2>Training solve rate per update</h2>');
    parts.push(
      lineChart(
        [
          { name: 'solve rate', values: recs.map((r) => r.solveRate) },
          { name: 'mean shaped reward', values: recs.map((r) => r.meanReward) },
        ],
        { yMin: 0, yMax: 1, markers: bounds },
      ),
    );
    const rows = gainRows(recs);
    if (rows.length > 0) {
      parts.push(
        `<table><tr><th>iteration</th><th>updates</th><th>first-quartile mean</th><th>last-quartile mean</th><th>gain</th><th>95% block-bootstrap interval</th></tr>${rows.join('')}</table>`,
      );
    }
    parts.push('<h2>Assistant tokens per trajectory</h2>');
    const penaltyFrom = recs.find((r) => r.lengthPenalty);
    if (penaltyFrom) parts.push(`<p class="note">log-length penalty on from update ${penaltyFrom.step} (iteration ${penaltyFrom.iteration}).</p>`);
    parts.push(lineChart([{ name: 'mean assistant tokens', values: recs.map((r) => r.meanAssistantTokens) }], { yMin: 0, markers: bounds }));
    parts.push('<h2>Entropy, DPPO kept-token fraction, policy lag</h2>');
    parts.push(
      lineChart(
        [
          { name: 'entropy (nats)', values: recs.map((r) => r.entropy) },
          { name: 'kept-token fraction', values: recs.map((r) => r.keptTokenFraction) },
          { name: 'zero-variance groups / groups', values: recs.map((r) => (r.groups === 0 ? 0 : r.zeroVarianceGroups / r.groups)) },
        ],
        { yMin: 0, markers: bounds },
      ),
    );
    parts.push(lineChart([{ name: 'mean policy lag', values: recs.map((r) => r.policyLag) }], { yMin: 0, markers: bounds, height: 120 }));
  }
  if (parsed.pilots.length > 0) {
    parts.push('<h2>TaskPilot: p&#770; of the candidates (first evaluation) and of the accepted tasks</h2><div class="row">');
    for (const p of parsed.pilots) {
      const first: number[] = [];
      for (const c of p.candidates) if (c.steps.length > 0) first.push(c.steps[0]!.rate); // as initialRates(p)
      const acceptedRates = p.candidates.filter((c) => c.status === 'accepted' && c.steps.length > 0).map((c) => c.steps[c.steps.length - 1]!.rate);
      let n = 1;
      for (const c of p.candidates) for (const st of c.steps) n = Math.max(n, st.rollouts);
      n = Math.min(n, REPORT_MAX_HISTOGRAM_BINS - 1);
      parts.push(
        `<div><h3>iteration ${p.iteration}: ${p.accepted.length} / ${p.candidates.length} accepted</h3>${histogram(
          [
            { name: 'candidates', values: first },
            { name: 'accepted', values: acceptedRates },
          ],
          n,
        )}<p class="note">band ${bandText(p.band)}; rounds ${p.rounds.map((r) => `${r.round}: ${r.evaluated} evaluated, ${r.accepted} accepted`).join('; ')}; ${p.rolloutsUsed} rollouts</p></div>`,
      );
    }
    parts.push('</div>');
    if (describeTask) {
      const describe = (task: unknown): string => {
        const d: unknown = describeTask(task as T);
        if (typeof d !== 'string') {
          throw new FrognanoError(ErrorCode.INVALID_TYPE, `input.describe must return a string, got ${typeof d}`, { fn, field: 'input.describe' });
        }
        return d;
      };
      parts.push('<h2>Candidate histories (generate, evaluate, refine, re-evaluate)</h2>');
      for (const p of parsed.pilots) {
        const refinedThenAccepted = p.candidates.filter((c) => c.status === 'accepted' && c.steps.length > 1);
        const shown = [...refinedThenAccepted, ...p.candidates.filter((c) => c.status !== 'accepted')].slice(0, parsed.historiesPerIteration ?? 6);
        const rows = shown
          .map(
            (c) =>
              `<tr><td>${esc(c.id)}</td><td>${c.steps
                .map((s) => `${esc(describe(s.task))} &nbsp; p&#770;=${s.passed}/${s.rollouts} &rarr; ${esc(s.action)}${s.reason ? ` (${esc(s.reason)})` : ''}`)
                .join('<br>')}</td><td>${esc(c.status)}</td></tr>`,
          )
          .join('');
        parts.push(`<h3>iteration ${p.iteration}</h3><table><tr><th>candidate</th><th>versions</th><th>status</th></tr>${rows}</table>`);
      }
    }
  }
  return `<!doctype html><html><head><meta charset="utf-8"><title>${esc(title)}</title><style>
body{font-family:system-ui,sans-serif;margin:2em;max-width:1000px;color:#111}
h2{margin-top:1.6em;font-size:1.15em}h3{font-size:.95em;margin:.4em 0}
.note{color:#555;font-size:.9em;margin:.2em 0}.big{font-size:1.6em}
table{border-collapse:collapse;font-size:.85em}td,th{border:1px solid #ddd;padding:3px 6px;vertical-align:top}
.row{display:flex;flex-wrap:wrap;gap:1.5em}svg{background:#fafafa}
</style></head><body>${parts.join('\n')}</body></html>`;
}

/**
 * Writes {@link renderTrainingReport}'s page to `path` (creating its folder). Node only.
 *
 * @example writeTrainingReport('run/report.html', { records: result.records, pilots: result.pilots });
 */
export function writeTrainingReport<T>(path: string, input: TrainingReportInput<T>): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, renderTrainingReport(input));
}

function iterationBounds(recs: readonly ReportRecord[]): { at: number; label: string }[] {
  const out: { at: number; label: string }[] = [];
  recs.forEach((r, i) => {
    if (i === 0 || recs[i - 1]!.iteration !== r.iteration) out.push({ at: i, label: `it ${r.iteration}` });
  });
  return out;
}

function gainRows(recs: readonly ReportRecord[]): string[] {
  const byIt = new Map<number, number[]>();
  for (const r of recs) {
    const a = byIt.get(r.iteration) ?? [];
    a.push(r.solveRate);
    byIt.set(r.iteration, a);
  }
  const rows: string[] = [];
  for (const [it, xs] of byIt) {
    if (xs.length < 4) continue;
    const g = solveRateGainCI(xs, { seed: it });
    rows.push(
      `<tr><td>${it}</td><td>${xs.length}</td><td>${pct(g.firstQuartileMean)}</td><td>${pct(g.lastQuartileMean)}</td><td>${signed(g.estimate)}</td><td>[${signed(g.low)}, ${signed(g.high)}]</td></tr>`,
    );
  }
  return rows;
}

interface Series {
  name: string;
  values: readonly number[];
}

/** The opening tag of a `W` x `H` px SVG chart. */
function svgOpen(W: number, H: number): string {
  return `<svg width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" xmlns="http://www.w3.org/2000/svg">`;
}

function lineChart(series: Series[], opts: { yMin?: number; yMax?: number; markers?: { at: number; label: string }[]; height?: number }): string {
  // Size and margins (left, right, top, bottom) in px.
  const { W, H, L, R, T, B } = { W: 900, H: opts.height ?? 260, L: 44, R: 10, T: 10, B: 24 };
  let n = 1;
  let lo = 0;
  let hi = -Infinity;
  for (const s of series) {
    n = Math.max(n, s.values.length);
    for (const v of s.values) {
      if (!Number.isFinite(v)) continue;
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
  }
  const yMin = opts.yMin ?? lo;
  let yMax = opts.yMax ?? Math.max(hi, yMin + 1e-9);
  if (yMax <= yMin) yMax = yMin + 1;
  const x = (i: number): number => L + (n <= 1 ? 0 : (i / (n - 1)) * (W - L - R));
  const y = (v: number): number => T + (1 - (v - yMin) / (yMax - yMin)) * (H - T - B);
  const out: string[] = [svgOpen(W, H)];
  for (let k = 0; k <= 4; k++) {
    const v = yMin + ((yMax - yMin) * k) / 4;
    out.push(`<line x1="${L}" x2="${W - R}" y1="${y(v)}" y2="${y(v)}" stroke="#e5e5e5"/><text x="${L - 4}" y="${y(v) + 4}" font-size="10" text-anchor="end">${fmt(v)}</text>`);
  }
  for (const m of opts.markers ?? []) {
    out.push(`<line x1="${x(m.at)}" x2="${x(m.at)}" y1="${T}" y2="${H - B}" stroke="#999" stroke-dasharray="3,3"/><text x="${x(m.at) + 3}" y="${H - 8}" font-size="10">${esc(m.label)}</text>`);
  }
  series.forEach((s, k) => {
    const pts = s.values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
    out.push(`<polyline fill="none" stroke="${COLORS[k % COLORS.length]}" stroke-width="1.5" points="${pts}"/>`);
    out.push(`<text x="${L + 8 + k * 200}" y="${T + 12}" font-size="11" fill="${COLORS[k % COLORS.length]}">${esc(s.name)}</text>`);
  });
  out.push(`<text x="${W - R}" y="${H - 8}" font-size="10" text-anchor="end">update</text></svg>`);
  return out.join('');
}

function histogram(series: Series[], n: number): string {
  // Size and margins (left, bottom, top) in px.
  const { W, H, L, B, T } = { W: 300, H: 170, L: 30, B: 24, T: 18 };
  const bins = n + 1;
  const counts = series.map((s) => {
    const c = new Array<number>(bins).fill(0);
    for (const v of s.values) c[Math.min(bins - 1, Math.max(0, Math.round(v * n)))]!++;
    return c;
  });
  let max = 1;
  for (const c of counts) for (const v of c) max = Math.max(max, v);
  const bw = (W - L - 6) / bins;
  const out: string[] = [svgOpen(W, H)];
  counts.forEach((c, k) => {
    const sub = bw / counts.length;
    c.forEach((v, b) => {
      const h = (v / max) * (H - T - B);
      out.push(`<rect x="${(L + b * bw + k * sub).toFixed(1)}" y="${(H - B - h).toFixed(1)}" width="${(sub - 1).toFixed(1)}" height="${h.toFixed(1)}" fill="${COLORS[k % COLORS.length]}"><title>${esc(series[k]!.name)} p=${b}/${n}: ${v}</title></rect>`);
    });
    out.push(`<text x="${L + k * 90}" y="12" font-size="10" fill="${COLORS[k % COLORS.length]}">${esc(series[k]!.name)}</text>`);
  });
  for (let b = 0; b < bins; b += Math.max(1, Math.floor(bins / 5))) {
    out.push(`<text x="${(L + (b + 0.5) * bw).toFixed(1)}" y="${H - 8}" font-size="9" text-anchor="middle">${fmt(b / n)}</text>`);
  }
  out.push(`<text x="${L - 4}" y="${T + 8}" font-size="9" text-anchor="end">${max}</text></svg>`);
  return out.join('');
}

function bandText(b: { low: number; high: number; lowInclusive: boolean; highInclusive: boolean }): string {
  if (b.low === b.high) return `p̂ = ${b.low}`;
  return `${b.lowInclusive ? '[' : '('}${b.low}, ${b.high}${b.highInclusive ? ']' : ')'}`;
}

function pct(v: number): string {
  return `${(v * 100).toFixed(1)}%`;
}

function signed(v: number): string {
  return `${v >= 0 ? '+' : ''}${(v * 100).toFixed(1)}`;
}

function fmt(v: number): string {
  return Math.abs(v) >= 10 ? v.toFixed(0) : v.toFixed(2);
}

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
