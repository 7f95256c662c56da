/**
 * The real `frognano serve` (spawned from source, on 127.0.0.1 port 0): each
 * external protocol spoken over HTTP (OpenRLHF remote reward, slime remote_rm,
 * verl), the native endpoints, errors, limits, a bounded concurrent load
 * (2,000 requests, 32 at a time) and a graceful shutdown with requests in flight.
 * Every number returned equals the library's.
 */
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dppoMaskDetailed, groupAdvantages } from '../../src/advantage/index.js';
import { gagarRedistributeDetailed } from '../../src/judges/index.js';
import { passAtK } from '../../src/metrics/index.js';
import { shapeRewards } from '../../src/rewards/index.js';
import { post, ROOT, rng, startService, viaJson, type ServiceHandle } from '../cli/helpers.js';

const FIXTURE = 'test/server/fixtures/reward-module.mjs';
const SHAPING = { budget: 1000, alpha: 0.5 };
const outcome = (success: boolean, truncated: boolean, assistantTokens: number) => ({ success, truncated, assistantTokens });
const label = (o: object): string => JSON.stringify(o);

let builtin: ServiceHandle;
let withModule: ServiceHandle;

beforeAll(async () => {
  [builtin, withModule] = await Promise.all([
    startService(['--budget', '1000', '--alpha', '0.5']),
    startService(['--reward-module', FIXTURE, '--budget', '1000', '--alpha', '0.5', '--timeout-ms', '1500', '--max-body-bytes', '4096']),
  ]);
}, 30_000);

afterAll(async () => {
  const stops = await Promise.all([builtin?.stop(), withModule?.stop()]);
  for (const s of stops) expect(s?.code).toBe(0);
});

describe('GET /health', () => {
  it('200 {"status":"ok"}', async () => {
    const res = await fetch(`${builtin.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });
});

describe('OpenRLHF remote reward protocol (POST /openrlhf/reward)', () => {
  it('{query, prompts, labels} -> {rewards, scores, extra_logs}, one entry per query, rewards = shapeRewards', async () => {
    const outcomes = [outcome(true, false, 4000), outcome(false, false, 200), outcome(true, true, 9000), outcome(true, false, 800)];
    const prompts = outcomes.map((_, i) => `<|user|>task ${i}<|assistant|>`);
    const body = { query: prompts.map((p, i) => `${p}answer ${i}`), prompts, labels: outcomes.map(label) };
    const res = await post(`${builtin.url}/openrlhf/reward`, body);
    expect(res.status).toBe(200);
    const lib = shapeRewards(outcomes, SHAPING);
    expect(res.body).toEqual(
      viaJson({
        rewards: lib.rewards,
        scores: lib.raw,
        extra_logs: { success: [1, 0, 1, 1], budget_truncated: [0, 0, 1, 0], assistant_tokens: [4000, 200, 9000, 800] },
      }),
    );
  });

  it('one query per request (OpenRLHF 0.10 SingleTurnAgentExecutor) and labels given as objects', async () => {
    const res = await post(`${builtin.url}/openrlhf/reward`, { query: ['p r'], prompts: ['p '], labels: [{ outcome: outcome(true, false, 2000) }] });
    expect(res.status).toBe(200);
    expect((res.body as { rewards: number[] }).rewards).toEqual(shapeRewards([outcome(true, false, 2000)], SHAPING).rewards);
  });

  it('the older client sends only {query}: 400 without a reward module (labels required), 200 with one', async () => {
    const a = await post(`${builtin.url}/openrlhf/reward`, { query: ['abc'] });
    expect(a.status).toBe(400);
    expect(a.body).toMatchObject({ error: { code: 'INVALID_TYPE', field: 'labels' } });
    const b = await post(`${withModule.url}/openrlhf/reward`, { query: ['abc', 'de'] });
    expect(b.status).toBe(200);
    expect(b.body).toEqual({ rewards: [3, 2], scores: [3, 2], extra_logs: { success: [1, 1], budget_truncated: [0, 0], assistant_tokens: [0, 0] } });
  });

  it('a label that is not an outcome is a 400 naming labels[i]; mismatched lengths are a 400', async () => {
    const a = await post(`${builtin.url}/openrlhf/reward`, { query: ['a', 'b'], prompts: ['', ''], labels: [label(outcome(true, false, 1)), 'the answer is 42'] });
    expect(a.status).toBe(400);
    expect(a.body).toMatchObject({ error: { code: 'INVALID_TYPE', field: 'labels[1]' } });
    const b = await post(`${builtin.url}/openrlhf/reward`, { query: ['a', 'b'], labels: [label(outcome(true, false, 1))] });
    expect(b.status).toBe(400);
    expect(b.body).toMatchObject({ error: { code: 'LENGTH_MISMATCH', field: 'labels' } });
    const c = await post(`${builtin.url}/openrlhf/reward`, { query: ['a'], labels: [label({ success: true, truncated: false, assistantTokens: -1 })] });
    expect(c.status).toBe(400);
    expect(c.body).toMatchObject({ error: { code: 'OUT_OF_RANGE', field: 'labels[0].assistantTokens' } });
  });
});

describe('slime remote_rm protocol (POST /slime/reward)', () => {
  it('{prompt, response, label} -> a number = shapeReward; ?format=object -> an object', async () => {
    const o = outcome(true, false, 3000);
    const body = { prompt: 'Fix the bug', response: 'diff --git ...', label: label(o) };
    const lib = shapeRewards([o], SHAPING);
    const a = await post(`${builtin.url}/slime/reward`, body);
    expect(a.status).toBe(200);
    expect(a.body).toBe(lib.rewards[0]);
    const b = await post(`${builtin.url}/slime/reward?format=object`, body);
    expect(b.body).toEqual({ reward: lib.rewards[0], raw: 1, success: true, truncated: false, assistantTokens: 3000 });
  });

  it('a chat-message prompt and extra fields are accepted (lenient protocol reading)', async () => {
    const res = await post(`${builtin.url}/slime/reward`, {
      prompt: [{ role: 'user', content: 'hi' }],
      response: 'x',
      label: label(outcome(true, true, 10)),
      metadata: { rm_type: 'remote_rm' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toBe(0.5);
  });

  it('a missing response is a 400 naming the field', async () => {
    const res = await post(`${builtin.url}/slime/reward`, { prompt: 'p', label: '{}' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { code: 'INVALID_TYPE', field: 'response' } });
  });
});

describe('verl (POST /verl/reward, called by a custom_reward_function)', () => {
  it('{data_source, solution_str, ground_truth, extra_info} -> {score, raw}', async () => {
    const o = outcome(true, false, 1500);
    const res = await post(`${builtin.url}/verl/reward`, { data_source: 'swe', solution_str: 'patch', ground_truth: label(o), extra_info: { index: 3 } });
    expect(res.status).toBe(200);
    const lib = shapeRewards([o], SHAPING);
    expect(res.body).toEqual({ score: lib.rewards[0], raw: 1 });
  });
});

const hasPython = spawnSync('python3', ['--version']).status === 0;

describe.skipIf(!hasPython)('the Python client helpers in examples/interop speak to the service', () => {
  // Asynchronous: a spawnSync would block the event loop past the keep-alive timeout of
  // fetch's pooled connection, and the next test's request would meet a socket the service closed.
  const py = async (code: string, arg = ''): Promise<unknown> => {
    const env = { ...process.env, FROGNANO_URL: builtin.url, PYTHONDONTWRITEBYTECODE: '1' };
    const { stdout } = await promisify(execFile)('python3', ['-c', code, arg], { cwd: ROOT, env, encoding: 'utf8', timeout: 20_000 });
    return JSON.parse(stdout);
  };

  it('verl: compute_score(data_source, solution_str, ground_truth, extra_info) -> {score, raw}', async () => {
    const o = outcome(true, false, 2500);
    const got = await py(
      `import json, sys; sys.path.insert(0, 'examples/interop'); import verl_frognano_reward as m; ` +
        `print(json.dumps(m.compute_score(data_source='swe', solution_str='patch', ground_truth=${JSON.stringify(label(o))}, extra_info={'index': 1, 'num_turns': 3})))`,
    );
    expect(got).toEqual({ score: shapeRewards([o], SHAPING).rewards[0], raw: 1 });
    const os = [outcome(false, false, 10), outcome(true, true, 10), outcome(true, false, 3000)];
    const batch = await py(
      `import json, sys; sys.path.insert(0, 'examples/interop'); import verl_frognano_reward as m; o = json.loads(sys.argv[1]); ` +
        `print(json.dumps(m.compute_score_batch(['d'] * 3, ['s'] * 3, [json.dumps(x) for x in o], [{'i': i} for i in range(3)])))`,
      JSON.stringify(os),
    );
    const lib = shapeRewards(os, SHAPING);
    expect(batch).toEqual(lib.rewards.map((score, i) => ({ score, raw: lib.raw[i] })));
  });

  it('slime: the custom RM sends sample.metadata["outcome"] as the label (one sample and a batch)', async () => {
    const o = [outcome(true, true, 100), outcome(true, false, 4000)];
    const got = await py(
      [
        `import asyncio, json, sys; sys.path.insert(0, 'examples/interop'); import slime_frognano_rm as m`,
        `outcomes = json.loads(sys.argv[1])`,
        `class S:`,
        `  def __init__(s, o): s.prompt = 'p'; s.response = 'r'; s.label = None; s.metadata = {'outcome': o}`,
        `one = asyncio.run(m.frognano_rm(None, S(outcomes[0])))`,
        `many = asyncio.run(m.frognano_rm(None, [S(x) for x in outcomes]))`,
        `print(json.dumps([one, many]))`,
      ].join('\n'),
      JSON.stringify(o),
    );
    const lib = shapeRewards(o, SHAPING).rewards;
    expect(got).toEqual([lib[0], lib]);
  });
});

describe('native endpoints equal the library', () => {
  it('POST /v1/advantages: one advantages line, groups as number[][], groups as line objects', async () => {
    const line = await post(`${builtin.url}/v1/advantages`, { id: 9, rewards: [1, 0.5, 0], filterBy: [1, 1, 0] });
    const g1 = groupAdvantages([[1, 0.5, 0]], { filterBy: [[1, 1, 0]] });
    expect(line.body).toEqual(viaJson({ id: 9, advantages: g1.advantages[0], kept: g1.kept[0] }));

    const groups = [[1, 0, 0, 1], [1, 1, 1], [0.2, 0.9]];
    const matrix = await post(`${builtin.url}/v1/advantages`, { groups, filterBy: [[1, 0, 0, 1], [1, 1, 1], [0, 1]], opts: { scale: 'none' } });
    expect(matrix.status).toBe(200);
    expect(matrix.body).toEqual(viaJson(groupAdvantages(groups, { filterBy: [[1, 0, 0, 1], [1, 1, 1], [0, 1]], scale: 'none' })));

    const objects = await post(`${builtin.url}/v1/advantages`, { groups: groups.map((rewards) => ({ rewards })) });
    expect(objects.body).toEqual(viaJson(groupAdvantages(groups)));

    const bad = await post(`${builtin.url}/v1/advantages`, { groups: [[1, 0], [1, 'x']] });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { code: 'INVALID_TYPE', field: 'groups[1][1]' } });
  });

  it('POST /v1/gagar, /v1/rewards, /v1/dppo-mask, /v1/pass-at-k', async () => {
    const gagar = await post(`${builtin.url}/v1/gagar`, { rewards: [1, 1, 0, 0], coefficients: [1, 0.2, null, null], opts: { lambdaMax: 'Infinity' } });
    expect(gagar.body).toEqual(viaJson(gagarRedistributeDetailed([1, 1, 0, 0], [1, 0.2, null, null], { lambdaMax: Infinity })));

    const outcomes = [outcome(true, false, 2000), outcome(false, false, 5)];
    const rewards = await post(`${builtin.url}/v1/rewards`, { outcomes });
    const lib = shapeRewards(outcomes, SHAPING);
    expect(rewards.body).toEqual(viaJson({ rewards: lib.rewards, filterBy: lib.raw }));
    const own = await post(`${builtin.url}/v1/rewards`, { outcome: outcomes[0], opts: { alpha: 0.1 } });
    expect(own.body).toEqual({ reward: shapeRewards([outcomes[0]!], { ...SHAPING, alpha: 0.1 }).rewards[0], raw: 1 });

    const lp = { logpNew: [Math.log(0.9), Math.log(0.2)], logpRollout: [Math.log(0.5), Math.log(0.5)], advantages: [1, -1] };
    const mask = await post(`${builtin.url}/v1/dppo-mask`, lp);
    expect(mask.body).toEqual(viaJson(dppoMaskDetailed(lp.logpNew, lp.logpRollout, lp.advantages)));

    const pk = await post(`${builtin.url}/v1/pass-at-k`, { n: 10, c: 3, k: [1, 5] });
    expect(pk.body).toEqual({ n: 10, c: 3, k: [1, 5], passAtK: [passAtK(10, 3, 1), passAtK(10, 3, 5)] });
  });
});

describe('errors', () => {
  it('malformed JSON -> 400 {error: {code: INVALID_JSON, message}}', async () => {
    const res = await post(`${builtin.url}/v1/advantages`, '{"rewards": [1, 0', true);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { code: 'INVALID_JSON' } });
    expect((res.body as { error: { message: string } }).error.message).toContain('not valid JSON');
  });

  it('404 for an unknown path, 405 with Allow for a wrong method', async () => {
    const a = await post(`${builtin.url}/v2/advantages`, {});
    expect(a.status).toBe(404);
    expect(a.body).toMatchObject({ error: { code: 'NOT_FOUND' } });
    const b = await fetch(`${builtin.url}/openrlhf/reward`);
    expect(b.status).toBe(405);
    expect(b.headers.get('allow')).toBe('POST');
  });

  it('a reward function that throws -> 500 for that request only; the service keeps serving', async () => {
    const bad = await post(`${withModule.url}/slime/reward`, { prompt: 'p', response: 'r', label: 'throw' });
    expect(bad.status).toBe(500);
    expect(bad.body).toEqual({ error: { code: 'USER_FUNCTION_ERROR', message: 'reward module threw: boom from slime' } });
    const batch = await post(`${withModule.url}/openrlhf/reward`, { query: ['a', 'b'], labels: ['0.5', 'throw'] });
    expect(batch.status).toBe(500);
    expect((batch.body as { error: { message: string } }).error.message).toContain('query[1]');
    for (const l of ['nan', 'string']) {
      const r = await post(`${withModule.url}/slime/reward`, { response: 'r', label: l });
      expect(r.status).toBe(500);
      expect(r.body).toMatchObject({ error: { code: 'USER_FUNCTION_ERROR' } });
    }
    const ok = await post(`${withModule.url}/slime/reward`, { prompt: 'p', response: 'r', label: '0.25' });
    expect(ok.status).toBe(200);
    expect(ok.body).toBe(0.25);
    const shaped = await post(`${withModule.url}/slime/reward`, { response: 'r', label: label(outcome(true, false, 2000)) });
    expect(shaped.body).toBe(shapeRewards([outcome(true, false, 2000)], SHAPING).rewards[0]);
    const logged = withModule.logs.find((l) => l.level === 'error' && JSON.stringify(l.error).includes('boom from slime'));
    expect(logged).toMatchObject({ msg: 'request', path: '/slime/reward', status: 500 });
  });

  it('a body over --max-body-bytes -> 413 naming --max-body; a reward module past --timeout-ms -> 504 VERIFIER_TIMEOUT', async () => {
    const big = await post(`${withModule.url}/slime/reward`, { response: 'x'.repeat(5000), label: '1' });
    expect(big.status).toBe(413);
    expect(big.body).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE', message: expect.stringContaining('--max-body') } });
    const t0 = Date.now();
    const slow = await post(`${withModule.url}/slime/reward`, { response: 'r', label: 'slow:4000' });
    expect(slow.status).toBe(504);
    expect(slow.body).toMatchObject({ error: { code: 'VERIFIER_TIMEOUT' } });
    expect(Date.now() - t0).toBeLessThan(3500);
  });

  it('structured logs: one JSON object per request with method, path, status and duration', () => {
    const req = builtin.logs.filter((l) => l.msg === 'request');
    expect(req.length).toBeGreaterThan(5);
    for (const l of req) {
      expect(typeof l.time).toBe('string');
      expect(l).toHaveProperty('method');
      expect(l).toHaveProperty('path');
      expect(typeof l.status).toBe('number');
      expect(typeof l.durationMs).toBe('number');
    }
  });
});

describe('bounded concurrent load on loopback', () => {
  it('2,000 requests, 32 at a time: no failed or lost request, every number equals the library', async () => {
    const TOTAL = 2000;
    const CONCURRENCY = 32;
    const r = rng(11);
    const make = (i: number): { path: string; body: unknown; expected: unknown } => {
      const o = [outcome(r() < 0.5, r() < 0.2, Math.floor(r() * 5000)), outcome(r() < 0.5, false, Math.floor(r() * 5000))];
      const lib = shapeRewards(o, SHAPING);
      switch (i % 4) {
        case 0:
          return {
            path: '/openrlhf/reward',
            body: { query: ['p1 a', 'p2 b'], prompts: ['p1 ', 'p2 '], labels: o.map(label) },
            expected: {
              rewards: lib.rewards,
              scores: lib.raw,
              extra_logs: { success: o.map((x) => (x.success ? 1 : 0)), budget_truncated: o.map((x) => (x.truncated ? 1 : 0)), assistant_tokens: o.map((x) => x.assistantTokens) },
            },
          };
        case 1:
          return { path: '/slime/reward', body: { prompt: 'p', response: 'r', label: label(o[0]!) }, expected: lib.rewards[0] };
        case 2: {
          const rewards = [r(), r(), r(), r()];
          const g = groupAdvantages([rewards]);
          return { path: '/v1/advantages', body: { id: i, rewards }, expected: { id: i, advantages: g.advantages[0], kept: g.kept[0] } };
        }
        default:
          return { path: '/verl/reward', body: { data_source: 'd', solution_str: 's', ground_truth: label(o[1]!) }, expected: { score: lib.rewards[1], raw: lib.raw[1] } };
      }
    };
    const jobs = Array.from({ length: TOTAL }, (_, i) => make(i));
    const statuses = new Map<number, number>();
    let next = 0;
    let ok = 0;
    const mismatches: number[] = [];
    const deadline = Date.now() + 60_000;
    const worker = async (): Promise<void> => {
      while (next < TOTAL && Date.now() < deadline) {
        const i = next++;
        const job = jobs[i]!;
        const res = await post(`${builtin.url}${job.path}`, job.body);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status === 200) ok++;
        if (JSON.stringify(res.body) !== JSON.stringify(viaJson(job.expected))) mismatches.push(i);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    expect(Object.fromEntries(statuses)).toEqual({ 200: TOTAL });
    expect(ok).toBe(TOTAL);
    expect(mismatches).toEqual([]);
  }, 90_000);
});

describe('limits and shutdown on a small service', () => {
  it('over --max-queue -> 503 OVERLOADED; SIGTERM finishes the requests in flight, answers new ones 503 while draining, exits 0', async () => {
    const svc = await startService(['--reward-module', FIXTURE, '--max-concurrency', '2', '--max-queue', '1', '--log-level', 'debug']);
    const until = async (what: string, cond: () => boolean): Promise<void> => {
      const end = Date.now() + 10_000;
      while (!cond()) {
        if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    const received = (): number => svc.logs.filter((l) => l.msg === 'received' && l.path === '/slime/reward').length;
    try {
      const burst = await Promise.all(Array.from({ length: 4 }, () => post(`${svc.url}/slime/reward`, { response: 'r', label: 'slow:1500' })));
      expect(burst.map((b) => b.status).sort()).toEqual([200, 200, 200, 503]);
      expect(burst.find((b) => b.status === 503)!.body).toMatchObject({ error: { code: 'OVERLOADED' } });

      const inFlight = Array.from({ length: 3 }, () => post(`${svc.url}/slime/reward`, { response: 'r', label: 'slow:800' }));
      await until('3 requests in flight', () => received() === 7);
      svc.child.kill('SIGTERM');
      await until('the stopping log line', () => svc.logs.some((l) => l.msg === 'stopping'));
      // during the drain a new request is answered 503 with Connection: close
      const drained = await fetch(`${svc.url}/health`);
      expect(drained.status).toBe(503);
      expect(drained.headers.get('connection')).toBe('close');
      expect(await drained.json()).toMatchObject({ error: { code: 'SHUTTING_DOWN' } });
      const done = await Promise.all(inFlight);
      expect(done.map((d) => d.status)).toEqual([200, 200, 200]);
      expect(done.map((d) => d.body)).toEqual([1, 1, 1]);
      const exit = await svc.exited;
      expect(exit.code).toBe(0);
      expect(svc.logs.find((l) => l.msg === 'stopping')).toMatchObject({ signal: 'SIGTERM', inFlight: 3 });
      expect(svc.logs.find((l) => l.msg === 'stopped')).toMatchObject({ graceful: true });
    } finally {
      svc.child.kill('SIGKILL');
    }
  }, 30_000);

  it('bad usage exits 2: a reward module that cannot load, --budget without --alpha, a port in use', async () => {
    const results = await Promise.allSettled([
      startService(['--reward-module', 'test/server/fixtures/nope.mjs']),
      startService(['--budget', '100']),
      startService(['--port', String(builtin.port)]),
    ]);
    const messages = results.map((r) => (r.status === 'rejected' ? String(r.reason) : 'started'));
    expect(messages[0]).toMatch(/exited before listening \(\{"code":2.*cannot load --reward-module/);
    expect(messages[1]).toMatch(/"code":2.*--budget and --alpha go together/);
    expect(messages[2]).toMatch(/"code":2.*EADDRINUSE/);
  }, 30_000);
});
