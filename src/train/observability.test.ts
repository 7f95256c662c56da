import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { TaskPilotResult } from '../curriculum/taskPilot.js';
import { iterationBand } from '../curriculum/resolveRateBand.js';
import { JsonlLog } from './jsonlLog.js';
import { TrainingProgress } from './progress.js';
import { renderTrainingReport } from './report.js';
import type { UpdateRecord } from './trainer.js';

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
