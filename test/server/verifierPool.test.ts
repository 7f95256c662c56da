/**
 * The reward-module worker pool: results, a verifier that never returns
 * (terminated and replaced on abort), crashes, global patches kept to one
 * worker, load failures, and the main thread staying free.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { VerifierPool } from '../../src/server/verifierPool.js';
import { WorkerCallError } from '../../src/server/workerPool.js';

const MODULE = 'test/server/fixtures/pool/behaviours.mjs';
const pools: VerifierPool[] = [];
async function pool(workers: number): Promise<VerifierPool> {
  const p = await VerifierPool.start({ modulePath: MODULE, workers });
  pools.push(p);
  return p;
}
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});
const call = (label: string, response = 'abc') => ({ label, response });
const kindOf = async (p: Promise<unknown>): Promise<string> => p.then(() => 'ok', (e: WorkerCallError) => `${e.name}:${e.kind}`);

describe('VerifierPool', () => {
  it('runs the module in its workers and returns what it returned', async () => {
    const p = await pool(2);
    expect(p.stats).toMatchObject({ workers: 2, busy: 0, queued: 0 });
    const out = await Promise.all(['a', 'bb', 'ccc', 'dddd', 'eeeee'].map((r) => p.run(call('', r))));
    expect(out).toEqual([1, 2, 3, 4, 5]);
    const tids = new Set(await Promise.all(Array.from({ length: 8 }, () => p.run(call('tid')))));
    expect(tids.size).toBe(2);
    expect(tids.has(0)).toBe(false); // never the main thread
  });

  it('a verifier that loops forever: the main thread stays free, abort terminates and replaces its worker', async () => {
    const p = await pool(1);
    const ac = new AbortController();
    const hung = p.run(call('hang'), ac.signal);
    const queued = p.run(call('', 'xy'), undefined);
    // the event loop still turns while the worker spins
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, 50));
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(p.stats).toMatchObject({ busy: 1, queued: 1 });
    ac.abort();
    expect(await kindOf(hung)).toBe('WorkerCallError:aborted');
    expect(await queued).toBe(2); // ran on the replacement worker
    expect(p.stats).toMatchObject({ workers: 1, replaced: 1 });
  });

  it('an aborted call that is still queued leaves the queue without touching the workers', async () => {
    const p = await pool(1);
    const slow = p.run(call('slow:100'));
    const ac = new AbortController();
    const waiting = p.run(call(''), ac.signal);
    ac.abort();
    expect(await kindOf(waiting)).toBe('WorkerCallError:aborted');
    expect(await slow).toBe(1);
    expect(p.stats.replaced).toBe(0);
  });

  it('a module that throws: "threw" with its message; the worker keeps serving', async () => {
    const p = await pool(1);
    await expect(p.run(call('throw'))).rejects.toMatchObject({ kind: 'threw', message: 'wrong answer format' });
    await expect(p.run(call('fn'))).rejects.toMatchObject({ kind: 'threw', message: expect.stringMatching(/cannot be sent/) });
    expect(await p.run(call('', 'abcd'))).toBe(4);
    expect(p.stats.replaced).toBe(0);
  });

  it('process.exit() and an uncaught error in a timer end only their worker: "crashed", then replaced', async () => {
    const p = await pool(1);
    await expect(p.run(call('exit'))).rejects.toMatchObject({ kind: 'crashed' });
    await expect(p.run(call('crash'))).rejects.toMatchObject({ kind: 'crashed', message: expect.stringMatching(/late crash/) });
    expect(await p.run(call('', 'abc'))).toBe(3);
    expect(p.stats).toMatchObject({ workers: 1, replaced: 2 });
  });

  it("a module that patches JSON.stringify changes only its worker's realm, never the service's", async () => {
    const p = await pool(1);
    expect(await p.run(call('patch'))).toBe(1);
    expect(JSON.stringify([1])).toBe('[1]');
    expect(await p.run(call('probe'))).toBe('"hacked"'); // the same worker: its own realm is patched
  });

  it('a module that cannot be imported, or exports no function, fails start() with the reason', async () => {
    await expect(VerifierPool.start({ modulePath: 'test/server/fixtures/pool/throws-on-import.mjs', workers: 2 })).rejects.toThrow(/missing config/);
    await expect(VerifierPool.start({ modulePath: 'test/server/fixtures/not-a-function.mjs', workers: 1 })).rejects.toThrow(/must export a function/);
    await expect(VerifierPool.start({ modulePath: 'test/server/fixtures/pool/nope.mjs', workers: 1 })).rejects.toThrow(/Cannot find module|ERR_MODULE_NOT_FOUND/);
    await expect(VerifierPool.start({ modulePath: MODULE, workers: 0 })).rejects.toThrow(RangeError);
  });

  it('close() rejects queued and running calls as aborted and ends every worker', async () => {
    const p = await pool(1);
    const running = kindOf(p.run(call('hang')));
    const queued = kindOf(p.run(call('')));
    await new Promise((r) => setTimeout(r, 20));
    await p.close();
    expect(await running).toBe('WorkerCallError:aborted');
    expect(await queued).toBe('WorkerCallError:aborted');
    expect(p.stats.workers).toBe(0);
    await expect(p.run(call(''))).rejects.toMatchObject({ kind: 'aborted' });
  });

  it('runBatch: chunks over the workers, one result per input in order; a throw fails that input only; abort stops the chunks', async () => {
    const p = await pool(2);
    const out = await p.runBatch([call('', 'a'), call('throw'), call('', 'ccc'), call('fn'), call('', 'eeeee')]);
    expect(out).toEqual([
      { ok: true, value: 1 },
      { ok: false, message: 'wrong answer format' },
      { ok: true, value: 3 },
      { ok: false, message: expect.stringMatching(/cannot be sent/) },
      { ok: true, value: 5 },
    ]);
    expect(await p.runBatch([])).toEqual([]);
    const tids = new Set((await p.runBatch(Array.from({ length: 8 }, () => call('tid')))).map((r) => (r as { value: number }).value));
    expect(tids.size).toBe(2); // both workers took a chunk
    const ac = new AbortController();
    const hung = kindOf(p.runBatch([call(''), call('hang')], ac.signal));
    await new Promise((r) => setTimeout(r, 50));
    ac.abort();
    expect(await hung).toBe('WorkerCallError:aborted');
    expect(await p.run(call('', 'xy'))).toBe(2);
  });
});
