/**
 * Issue 12, item 5: a large body or computation never blocks the service's
 * thread. The service parses and computes in its compute workers, so `/health`
 * keeps answering while a 60 MB OpenRLHF batch is parsed and shaped, and the
 * batch's answer is still exact.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { shapeRewards } from '../../src/rewards/index.js';
import { startService } from '../cli/helpers.js';

describe('heavy requests run off the service thread', () => {
  it('/health keeps answering (within 300 ms, loaded CI included) while two 60 MB batches are computed', async () => {
    const svc = await startService(['--budget', '1000', '--alpha', '0.5', '--compute-workers', '2']);
    try {
      const n = 512;
      const text = 'x'.repeat(120_000);
      const outcomes = Array.from({ length: n }, (_, i) => ({ success: i % 2 === 0, truncated: false, assistantTokens: 500 + i }));
      const body = JSON.stringify({ query: outcomes.map(() => text), labels: outcomes.map((o) => JSON.stringify(o)) });
      expect(body.length).toBeGreaterThan(60_000_000);
      // the batches go from other processes, so this one only polls
      const dir = mkdtempSync(join(tmpdir(), 'frognano-heavy-'));
      const file = join(dir, 'batch.json');
      writeFileSync(file, body);
      const SEND = `const http = require('node:http'); const body = require('node:fs').readFileSync(process.argv[1]);
        const req = http.request(process.argv[2], { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
          let t = ''; res.setEncoding('utf8').on('data', (d) => (t += d)).on('end', () => process.stdout.write(t)); });
        req.end(body);`;
      const run = promisify(execFile);
      let worst = 0;
      let polls = 0;
      let done = false;
      const poll = (async () => {
        while (!done) {
          const t0 = performance.now();
          const res = await fetch(`${svc.url}/health`);
          await res.text();
          worst = Math.max(worst, performance.now() - t0);
          polls++;
          await new Promise((r) => setTimeout(r, 10));
        }
      })();
      const big = [0, 1].map(() =>
        run(process.execPath, ['-e', SEND, file, `${svc.url}/openrlhf/reward`], { maxBuffer: 1 << 24 }).then((r) => JSON.parse(r.stdout) as { rewards: number[] }),
      );
      const answers = await Promise.all(big).finally(() => rmSync(dir, { recursive: true, force: true }));
      done = true;
      await poll;
      const lib = shapeRewards(outcomes, { budget: 1000, alpha: 0.5 }).rewards;
      for (const a of answers) expect(a.rewards).toEqual(lib);
      expect(polls).toBeGreaterThan(5);
      // computed in the service's thread, the two parses alone held it for over a second on this machine
    expect(worst).toBeLessThan(300);
    } finally {
      expect((await svc.stop()).code).toBe(0);
    }
  }, 60_000);
});
