import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { TaskPilotResult } from '../curriculum/taskPilot.js';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { iterationBand } from '../curriculum/resolveRateBand.js';
import { JsonlLog } from './jsonlLog.js';
import { TrainingProgress } from './progress.js';
import { renderTrainingReport, REPORT_MAX_HISTOGRAM_BINS } from './report.js';
import type { UpdateRecord } from './trainerCheckpoint.js';

function sink(isTTY: boolean): Writable & { isTTY: boolean; text: () => string } {
  const chunks: string[] = [];
  const w = new Writable({
    write(c, _e, cb) {
      chunks.push(String(c));
      cb();
    },
  }) as Writable & { isTTY: boolean; text: () => string };
  w.isTTY = isTTY;
  w.text = () => chunks.join('');
  return w;
}

const state = (update: number) => ({ iteration: 1, iterations: 2, update, updates: 20, solveRate: 0.5, lag: 1, elapsed: 3 });

describe('TrainingProgress', () => {
  it('redraws a bar in place on a TTY', () => {
    const s = sink(true);
    const p = new TrainingProgress(s);
    p.update(state(5));
    p.update(state(10));
    p.note('iteration 2: TaskPilot accepted 3');
    p.done();
    expect(s.text()).toContain('\r\x1b[K[######..................] iteration 1/2  update 5/20');
    // a note clears the bar's line first
    expect(s.text()).toContain('3s\r\x1b[Kiteration 2: TaskPilot accepted 3\n');
  });
  it('prints plain lines without control characters otherwise, every 10th update and the last', () => {
    const s = sink(false);
    const p = new TrainingProgress(s);
    for (let u = 1; u <= 20; u++) p.update(state(u));
    p.done();
    expect(s.text()).not.toContain('\x1b');
    expect(s.text().trim().split('\n')).toEqual([
      'iteration 1/2  update 10/20  solve 0.50  lag 1  3s',
      'iteration 1/2  update 20/20  solve 0.50  lag 1  3s',
    ]);
  });
});

describe('JsonlLog', () => {
  it('appends one JSON object per line, and rewrites', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'frognano-log-')), 'sub', 'u.jsonl');
    const log = new JsonlLog(path, { truncate: true });
    log.write({ a: 1 });
    log.write({ a: 2 });
    expect(readFileSync(path, 'utf8')).toBe('{"a":1}\n{"a":2}\n');
    log.rewrite([{ b: 3 }]);
    expect(readFileSync(path, 'utf8')).toBe('{"b":3}\n');
  });
});

describe('renderTrainingReport', () => {
  const rec = (iteration: number, update: number, solveRate: number): UpdateRecord => ({
    iteration,
    update,
    step: update + (iteration - 1) * 8,
    policyVersion: update,
    groups: 4,
    zeroVarianceGroups: 1,
    rollouts: 32,
    solveRate,
    meanReward: solveRate,
    truncatedRate: 0,
    meanAssistantTokens: 5,
    tokens: 100,
    keptTokenFraction: 1,
    droppedPositive: 0,
    droppedNegative: 0,
    meanRho: 1,
    entropy: 0.4,
    loss: 0,
    gradNorm: 1,
    skipped: false,
    policyLag: 1,
    maxPolicyLag: 1,
    staleGroups: 0,
    regeneratedGroups: 0,
    droppedStaleGroups: 0,
    lengthPenalty: iteration > 1,
    seconds: 0.1,
  });
  const pilot: TaskPilotResult<string> = {
    iteration: 1,
    band: iterationBand(1),
    accepted: ['a<b'],
    candidates: [
      {
        id: 'i1-c0',
        status: 'accepted',
        steps: [
          { round: 0, task: 'a<b', passed: 8, rollouts: 8, rate: 1, decision: 'saturated', action: 'refine-harder' },
          { round: 1, task: 'a<b', passed: 4, rollouts: 8, rate: 0.5, decision: 'accept', action: 'accept' },
        ],
      },
    ],
    rounds: [{ round: 0, evaluated: 1, accepted: 0, refined: 1, discarded: 0 }],
    rolloutsUsed: 16,
  };
  it('draws the charts, the held-out gain and the histories, escaping text', () => {
    const records = [1, 2].flatMap((it) => Array.from({ length: 8 }, (_, u) => rec(it, u + 1, 0.3 + 0.05 * u)));
    const html = renderTrainingReport({ records, pilots: [pilot], heldOut: { before: 0.2, after: 0.5 }, describe: (t) => t, title: 'run <1>' });
    expect(html).toContain('<title>run &lt;1&gt;</title>');
    expect(html).toContain('20.0% &rarr; <b>50.0%</b> (+30.0 points)');
    expect(html.match(/<svg/g)!.length).toBe(5); // solve rate, tokens, entropy/kept/zero-variance, lag, one histogram
    expect(html).toContain('log-length penalty on from update 9 (iteration 2)');
    expect(html).toContain('a&lt;b');
    expect(html).toContain('p&#770;=4/8 &rarr; accept');
    // within-climb gain over the first quartile: (0.6 + 0.65) / 2 - (0.3 + 0.35) / 2 = +30 points
    expect(html).toContain('<td>+30.0</td>');
  });
  it('renders an empty run', () => {
    expect(renderTrainingReport({ records: [], pilots: [] })).toContain('<h1>FrogNano training run</h1>');
  });
});

/** Issue 12 (fuzz): renderTrainingReport checks what it draws (it threw TypeErrors on malformed input). */
describe('renderTrainingReport: bad input', () => {
  it('records: null is INVALID_TYPE naming input.records', () =>
    expect(expectFrognanoError(() => renderTrainingReport({ records: null as never, pilots: [] }), 'INVALID_TYPE', 'renderTrainingReport').field).toBe('input.records'));
  it('a null input is INVALID_TYPE naming input', () => expect(expectFrognanoError(() => renderTrainingReport(null as never), 'INVALID_TYPE').field).toBe('input'));
  it('pilots: 5 is INVALID_TYPE naming input.pilots', () =>
    expect(expectFrognanoError(() => renderTrainingReport({ records: [], pilots: 5 as never }), 'INVALID_TYPE').field).toBe('input.pilots'));
  it('a record without solveRate is INVALID_TYPE naming it', () =>
    expect(expectFrognanoError(() => renderTrainingReport({ records: [{ iteration: 1 } as never], pilots: [] }), 'INVALID_TYPE').field).toBe('input.records[0].step'));
  it('a NaN entropy is NON_FINITE naming it', () => {
    const r = { iteration: 1, step: 1, solveRate: 0.5, meanReward: 0.5, meanAssistantTokens: 3, entropy: NaN, keptTokenFraction: 1, groups: 1, zeroVarianceGroups: 0, policyLag: 0, lengthPenalty: false };
    expect(expectFrognanoError(() => renderTrainingReport({ records: [r as never], pilots: [] }), 'NON_FINITE').field).toBe('input.records[0].entropy');
  });
  it('a held-out rate outside [0, 1] is OUT_OF_RANGE', () =>
    expect(expectFrognanoError(() => renderTrainingReport({ records: [], pilots: [], heldOut: { before: 1e308, after: 0 } }), 'OUT_OF_RANGE').field).toBe('input.heldOut.before'));
  it('a pilot step with 1e9 rollouts draws a bounded histogram', () => {
    const p = {
      iteration: 1,
      band: iterationBand(1),
      accepted: [],
      candidates: [{ id: 'c', status: 'discarded', steps: [{ round: 0, task: 't', passed: 1, rollouts: 1e9, rate: 1e-9, decision: 'too-hard', action: 'discard' }] }],
      rounds: [],
      rolloutsUsed: 1e9,
    };
    const html = renderTrainingReport({ records: [], pilots: [p as never] });
    expect(html.match(/<rect/g)!.length).toBe(2 * REPORT_MAX_HISTOGRAM_BINS);
  });
  it('an accepted candidate without steps is drawn, not a TypeError', () => {
    const p = { iteration: 1, band: iterationBand(1), accepted: [], candidates: [{ id: 'c', status: 'accepted', steps: [] }], rounds: [], rolloutsUsed: 0 };
    expect(renderTrainingReport({ records: [], pilots: [p as never] })).toContain('0 / 1 accepted');
  });
  it('a describe that returns a number is INVALID_TYPE naming input.describe', () => {
    const p = { iteration: 1, band: iterationBand(1), accepted: [], candidates: [{ id: 'c', status: 'discarded', steps: [{ round: 0, task: 't', passed: 0, rollouts: 8, rate: 0, decision: 'too-hard', action: 'discard' }] }], rounds: [], rolloutsUsed: 8 };
    expect(expectFrognanoError(() => renderTrainingReport({ records: [], pilots: [p as never], describe: () => 5 as never }), 'INVALID_TYPE').field).toBe('input.describe');
  });
});
