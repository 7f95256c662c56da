import { describe, expect, it } from 'vitest';
import { alpha, beta, records } from '../../test/leaf/leafRecords.js';
import { summarizeLeafRecords } from './summarizeLeafRecords.js';

describe('summarizeLeafRecords', () => {
  it('counts per task and in total', () => {
    const s = summarizeLeafRecords(records);
    expect(s.tasks.map((t) => t.taskId)).toEqual(['t-alpha', 't-beta']);
    const [a, b] = s.tasks;
    expect(a).toMatchObject({ episodes: 4, solved: 3, solveRate: 0.75, truncated: 1, truncations: { maxTurns: 1 }, errors: 0, flagged: 1, findings: { 'test-edit': 1, 'test-weakening': 1 }, meanTurns: 3, meanAssistantTokens: 400 });
    expect(a!.meanReward).toBeCloseTo(0.6, 12);
    // the error episode: not solved, counted in turns, not in tokens or rewards
    expect(b).toMatchObject({ episodes: 2, solved: 0, solveRate: 0, truncated: 1, truncations: { length: 1 }, errors: 1, flagged: 0, findings: {}, meanTurns: 1, meanAssistantTokens: 200, meanReward: 0 });
    expect(s.totals).toMatchObject({ episodes: 6, tasks: 2, solved: 3, solveRate: 0.5, truncated: 2, errors: 1, flagged: 1, meanAssistantTokens: 360 });
    expect(s.totals.meanTurns).toBeCloseTo(14 / 6, 12);
    expect(s.totals.meanReward).toBeCloseTo(2.4 / 5, 12);
  });

  it('groups records by task in first-occurrence order, episodes sorted', () => {
    const s = summarizeLeafRecords([beta[1]!, alpha[2]!, beta[0]!, alpha[0]!]);
    expect(s.tasks.map((t) => [t.taskId, t.episodes])).toEqual([
      ['t-beta', 2],
      ['t-alpha', 2],
    ]);
  });

  it('gives NaN means and a 0 solve rate without episodes', () => {
    const s = summarizeLeafRecords([]);
    expect(s.totals).toMatchObject({ episodes: 0, tasks: 0, solved: 0, solveRate: 0 });
    expect(s.totals.meanTurns).toBeNaN();
    expect(s.tasks).toEqual([]);
  });
});
