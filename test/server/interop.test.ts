/**
 * Issue 11, live-training interop, against the real `frognano serve`:
 * rewards as JSON floats, the empty OpenRLHF shard, the body limit of a
 * 256 x 80k-character batch, reward modules isolated in worker threads with a
 * hard time limit, bearer authentication, and the trainers' real token counts
 * and finish reasons.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupAdvantages } from '../../src/advantage/index.js';
import { shapeRewards } from '../../src/rewards/index.js';
import { post, runInProcess, startService, type ServiceHandle } from '../cli/helpers.js';
import { hasBwrap } from '../helpers/system.js';

const FIXTURE = 'test/server/fixtures/reward-module.mjs';
const SHAPING = { budget: 1000, alpha: 0.5 };
const label = (o: object): string => JSON.stringify(o);
const ok = (n: number) => label({ success: true, truncated: false, assistantTokens: n });
const no = label({ success: false, truncated: false, assistantTokens: 10 });

/** POST and return the raw text (the bytes a Python json.loads would read). */
async function postText(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; text: string; headers: Headers }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

/** Every number in a JSON text written as an integer (no '.', no exponent), with the text before it. */
function bareIntegers(text: string): string[] {
  return [...text.matchAll(/[:,[]\s*(-?\d+)(?=[,\]}])/g)].map((m) => m[0]);
}

let builtin: ServiceHandle;
let withModule: ServiceHandle;
let authed: ServiceHandle;

beforeAll(async () => {
  [builtin, withModule, authed] = await Promise.all([
    startService(['--budget', '1000', '--alpha', '0.5']),
    startService(['--reward-module', FIXTURE, '--workers', '2', '--timeout-ms', '1000', '--budget', '1000', '--alpha', '0.5']),
    startService(['--token', 's3cret-token', '--budget', '1000', '--alpha', '0.5']),
  ]);
}, 30_000);

afterAll(async () => {
  const stops = await Promise.all([builtin?.stop(), withModule?.stop(), authed?.stop()]);
  for (const s of stops) expect(s?.code).toBe(0);
});

describe('rewards, scores and advantages are JSON floats (SPEC §11)', () => {
  it('OpenRLHF: an all-0/1 batch is written 1.0 / 0.0 everywhere a trainer builds a tensor', async () => {
    const r = await postText(`${builtin.url}/openrlhf/reward`, { query: ['a', 'b', 'c'], prompts: ['', '', ''], labels: [ok(10), no, ok(20)] });
    expect(r.status).toBe(200);
    expect(r.text).toBe('{"rewards":[1.0,0.0,1.0],"scores":[1.0,0.0,1.0],"extra_logs":{"success":[1.0,0.0,1.0],"budget_truncated":[0.0,0.0,0.0],"assistant_tokens":[10.0,10.0,20.0]}}');
  });

  it('slime: the bare number and the object form; verl: score and raw', async () => {
    expect((await postText(`${builtin.url}/slime/reward`, { prompt: 'p', response: 'r', label: ok(5) })).text).toBe('1.0');
    expect((await postText(`${builtin.url}/slime/reward`, { prompt: 'p', response: 'r', label: no })).text).toBe('0.0');
    const obj = await postText(`${builtin.url}/slime/reward?format=object`, { prompt: 'p', response: 'r', label: ok(5) });
    expect(obj.text).toBe('{"reward":1.0,"raw":1.0,"success":true,"truncated":false,"assistantTokens":5}');
    expect((await postText(`${builtin.url}/verl/reward`, { solution_str: 's', ground_truth: ok(5) })).text).toBe('{"score":1.0,"raw":1.0}');
    // a module's own number is a float too
    expect((await postText(`${withModule.url}/slime/reward`, { response: 'abc', label: 'x' })).text).toBe('3.0');
  });

  it('/v1 answers: advantages and rewards are floats, other integers stay integers', async () => {
    const a = await postText(`${builtin.url}/v1/advantages`, { id: 7, rewards: [1, 1, 1, 1] });
    expect(a.text).toBe('{"id":7,"advantages":[0.0,0.0,0.0,0.0],"kept":false}');
    const g = await postText(`${builtin.url}/v1/advantages`, { groups: [[1, 0], [0, 0]] });
    const lib = groupAdvantages([[1, 0], [0, 0]]);
    expect(JSON.parse(g.text)).toEqual({ advantages: lib.advantages, kept: lib.kept });
    expect(g.text).toContain('[0.0,0.0]');
    const rw = await postText(`${builtin.url}/v1/rewards`, { outcome: { success: true, truncated: false, assistantTokens: 3 } });
    expect(rw.text).toBe('{"reward":1.0,"raw":1.0}');
  });

  it('no reward, score or advantage is a bare integer in any protocol answer', async () => {
    const texts = [
      (await postText(`${builtin.url}/openrlhf/reward`, { query: ['a'], prompts: [''], labels: [ok(3000)] })).text,
      (await postText(`${builtin.url}/v1/gagar`, { rewards: [1, 1, 0, 0], candidates: [{ tier: 'T1', rank: 1 }, { tier: 'T3', rank: 1 }, null, null] })).text,
    ];
    for (const t of texts) {
      const parsed = JSON.parse(t) as Record<string, unknown>;
      for (const k of ['rewards', 'scores', 'advantages']) {
        if (!(k in parsed)) continue;
        const slice = JSON.stringify(parsed[k]);
        const start = t.indexOf(`"${k}":`);
        const raw = t.slice(start, start + k.length + 3 + slice.length + 20);
        expect(bareIntegers(raw.slice(k.length + 3, k.length + 3 + slice.length + 2))).toEqual([]);
      }
    }
  });

  it('the CLI writes floats too', async () => {
    const r = await runInProcess(['advantages'], '{"rewards":[1,0,1,0]}\n{"rewards":[1,1]}\n');
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[1]).toBe('{"advantages":[0.0,0.0],"kept":false}');
    expect(lines[0]).toMatch(/^\{"advantages":\[0\.8660\d+,-0\.8660\d+,0\.8660\d+,-0\.8660\d+\],"kept":true\}$/);
    const rw = await runInProcess(['rewards', '--budget', '1000', '--alpha', '0.5'], '{"outcome":{"success":true,"truncated":true,"assistantTokens":4}}\n');
    expect(rw.stdout.trim()).toBe('{"reward":0.5,"raw":1.0}');
  });
});

describe('an empty OpenRLHF shard answers the same keys as a full one', () => {
  const EMPTY = '{"rewards":[],"scores":[],"extra_logs":{"success":[],"budget_truncated":[],"assistant_tokens":[]}}';
  it('built-in shaper and reward module', async () => {
    for (const svc of [builtin, withModule]) {
      const r = await postText(`${svc.url}/openrlhf/reward`, { query: [], prompts: [], labels: [] });
      expect(r.status).toBe(200);
      expect(r.text).toBe(EMPTY);
    }
    // OpenRLHF <= 0.5.7 posts only {query}
    expect((await postText(`${withModule.url}/openrlhf/reward`, { query: [] })).text).toBe(EMPTY);
  });

  it('the keys of a full answer are those of the empty one, with a module returning numbers or outcomes', async () => {
    const keys = (t: string) => Object.keys((JSON.parse(t) as { extra_logs: object }).extra_logs);
    const numbers = await postText(`${withModule.url}/openrlhf/reward`, { query: ['abc', 'de'] });
    const outcomes = await postText(`${withModule.url}/openrlhf/reward`, { query: ['a'], labels: [ok(4)] });
    expect(keys(numbers.text)).toEqual(['success', 'budget_truncated', 'assistant_tokens']);
    expect(keys(outcomes.text)).toEqual(['success', 'budget_truncated', 'assistant_tokens']);
  });
});

describe('batch size', () => {
  it('the default limit admits an OpenRLHF batch of 256 queries of 80k characters (with prompts and labels)', async () => {
    const prompt = 'Fix the failing test in the repository. '.repeat(500); // 20k characters
    const response = 'é'.repeat(80_000 - prompt.length); // two bytes each in UTF-8
    const n = 256;
    const body = JSON.stringify({
      query: Array.from({ length: n }, () => prompt + response),
      prompts: Array.from({ length: n }, () => prompt),
      labels: Array.from({ length: n }, (_, i) => ok(1000 + i)),
    });
    expect(Buffer.byteLength(body)).toBeGreaterThan(40_000_000); // the old 16 MiB limit answered 413
    const r = await postText(`${builtin.url}/openrlhf/reward`, body);
    expect(r.status).toBe(200);
    const parsed = JSON.parse(r.text) as { rewards: number[] };
    expect(parsed.rewards).toHaveLength(n);
    expect(parsed.rewards[255]).toBe(shapeRewards([JSON.parse(ok(1255))], SHAPING).rewards[0]);
  }, 30_000);

  it('--max-body sets the limit; a 413 names the flag', async () => {
    const small = await startService(['--max-body', '2KiB', '--budget', '1000', '--alpha', '0.5']);
    try {
      const r = await post(`${small.url}/slime/reward`, { response: 'x'.repeat(3000), label: ok(1) });
      expect(r.status).toBe(413);
      expect(r.body).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE', message: expect.stringMatching(/2048 .*2 KiB.*--max-body/) } });
      expect((await post(`${small.url}/slime/reward`, { response: 'x'.repeat(1000), label: ok(1) })).status).toBe(200);
    } finally {
      expect((await small.stop()).code).toBe(0);
    }
  });

  it('a bad --max-body is bad usage (exit 2)', async () => {
    const r = await runInProcess(['serve', '--max-body', '12 parsecs']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--max-body must be a size/);
  });
});

describe('reward modules run in an isolated worker pool', () => {
  it('a verifier that loops forever: 504 VERIFIER_TIMEOUT at --timeout-ms, /health never waits, the worker is replaced', async () => {
    const t0 = Date.now();
    const hung = postText(`${withModule.url}/slime/reward`, { response: 'r', label: 'hang' });
    await new Promise((r) => setTimeout(r, 100));
    // while the verifier spins: /health and other requests answer at once
    const healthStarted = Date.now();
    const health = await fetch(`${withModule.url}/health`);
    expect(health.status).toBe(200);
    expect(Date.now() - healthStarted).toBeLessThan(500);
    expect((await postText(`${withModule.url}/slime/reward`, { response: 'abcd', label: 'x' })).text).toBe('4.0');
    const r = await hung;
    expect(r.status).toBe(504);
    expect(JSON.parse(r.text)).toMatchObject({ error: { code: 'VERIFIER_TIMEOUT', message: expect.stringContaining('--timeout-ms 1000') } });
    expect(Date.now() - t0).toBeLessThan(3000);
    // both workers serve again afterwards (the hung one was replaced)
    const after = await Promise.all(Array.from({ length: 6 }, (_, i) => postText(`${withModule.url}/slime/reward`, { response: 'x'.repeat(i + 1), label: 'x' })));
    expect(after.map((a) => a.text)).toEqual(['1.0', '2.0', '3.0', '4.0', '5.0', '6.0']);
  });

  it('one hanging entry in an OpenRLHF batch fails that request only (504), the others are answered', async () => {
    // both workers ready again (a replacement worker loads the module first)
    for (let i = 0; i < 50; i++) {
      const t0 = Date.now();
      await Promise.all([0, 1].map(() => postText(`${withModule.url}/slime/reward`, { response: 'r', label: 'slow:300' })));
      if (Date.now() - t0 < 550) break;
    }
    const [bad, good] = await Promise.all([
      postText(`${withModule.url}/openrlhf/reward`, { query: ['a', 'b', 'c'], labels: ['x', 'hang', 'x'] }),
      postText(`${withModule.url}/openrlhf/reward`, { query: ['abc'], labels: ['x'] }),
    ]);
    expect(bad.status).toBe(504);
    expect(good.status).toBe(200);
  });

  it('a module that patches JSON.stringify cannot change the service: later answers are still right', async () => {
    expect((await postText(`${withModule.url}/slime/reward`, { response: 'r', label: 'patch' })).text).toBe('1.0');
    const r = await postText(`${withModule.url}/openrlhf/reward`, { query: ['abc'], labels: [ok(10)] });
    expect(JSON.parse(r.text)).toMatchObject({ rewards: [1], scores: [1] });
  });

  it('--workers without --reward-module, or below 1, is bad usage', async () => {
    expect((await runInProcess(['serve', '--workers', '2'])).code).toBe(2);
    expect((await runInProcess(['serve', '--reward-module', FIXTURE, '--workers', '0'])).code).toBe(2);
  });
});

describe.runIf(hasBwrap())('the example verifier (examples/reward-module.mjs) behind the service', () => {
  it('grades answers in the Leaf sandbox from its worker threads; a hostile answer cannot poison later ones', async () => {
    const svc = await startService(['--reward-module', 'examples/reward-module.mjs', '--workers', '2', '--budget', '1000', '--alpha', '0.5']);
    try {
      const tests = label({ entry: 'add', tests: [{ args: [2, 3], expect: 5 }, { args: [-1, 1], expect: 0 }] });
      const code = (c: string) => '```js\n' + c + '\n```';
      const r = await post(`${svc.url}/openrlhf/reward`, {
        query: [
          code('function add(a, b) { return a + b; }'),
          code('JSON.stringify = () => "x"; function add() { return 0; }'),
          code('function add(a, b) { return a - b; }'),
        ],
        labels: [tests, tests, tests],
        response_lengths: [300, 40, 50],
      });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        rewards: [1, 0, 0],
        scores: [1, 0, 0],
        extra_logs: { success: [1, 0, 0], budget_truncated: [0, 0, 0], assistant_tokens: [300, 40, 50] },
      });
    } finally {
      expect((await svc.stop()).code).toBe(0);
    }
  }, 30_000);
});

describe('bearer authentication (--token / FROGNANO_TOKEN)', () => {
  it('every route but /health needs the token: 401 UNAUTHORIZED without it or with a wrong one', async () => {
    expect((await fetch(`${authed.url}/health`)).status).toBe(200);
    const body = { query: ['a'], prompts: [''], labels: [ok(1)] };
    for (const headers of [{} as Record<string, string>, { authorization: 'Bearer wrong' }, { authorization: 's3cret-token' }, { authorization: 'Basic s3cret-token' }]) {
      const r = await postText(`${authed.url}/openrlhf/reward`, body, headers);
      expect(r.status).toBe(401);
      expect(JSON.parse(r.text)).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
      expect(r.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
    expect((await fetch(`${authed.url}/`)).status).toBe(401);
    expect((await fetch(`${authed.url}/no-such-path`)).status).toBe(401); // the endpoint list is not revealed
    const good = await postText(`${authed.url}/openrlhf/reward`, body, { authorization: 'Bearer s3cret-token' });
    expect(good.status).toBe(200);
    expect(JSON.parse(good.text)).toMatchObject({ rewards: [1] });
    expect((await fetch(`${authed.url}/`, { headers: { authorization: 'bearer s3cret-token' } })).status).toBe(200);
  });

  it('FROGNANO_TOKEN sets the token; the listening line says auth bearer', async () => {
    const svc = await startService(['--budget', '1000', '--alpha', '0.5'], 20_000, { FROGNANO_TOKEN: 'env-token' });
    try {
      expect(svc.logs.find((l) => l.msg === 'listening')).toMatchObject({ auth: 'bearer' });
      expect((await postText(`${svc.url}/slime/reward`, { response: 'r', label: ok(1) })).status).toBe(401);
      expect((await postText(`${svc.url}/slime/reward`, { response: 'r', label: ok(1) }, { authorization: 'Bearer env-token' })).text).toBe('1.0');
    } finally {
      expect((await svc.stop()).code).toBe(0);
    }
  });

  it('binds 127.0.0.1 by default; a token with a space is bad usage', async () => {
    expect(builtin.logs.find((l) => l.msg === 'listening')).toMatchObject({ host: '127.0.0.1', auth: 'none' });
    const r = await runInProcess(['serve', '--token', 'two words']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--token must be printable ASCII without spaces/);
  });
});

describe("the trainer's real token count and finish reason", () => {
  const lib = (n: number) => shapeRewards([{ success: true, truncated: false, assistantTokens: n }], SHAPING).rewards[0]!;

  it('OpenRLHF: response_lengths / finish_reasons fill what the outcome leaves out; its own fields win', async () => {
    const r = await post(`${builtin.url}/openrlhf/reward`, {
      query: ['a', 'b', 'c', 'd'],
      prompts: ['', '', '', ''],
      labels: [label({ success: true }), label({ success: true }), ok(1500), label({ success: true, truncated: false })],
      response_lengths: [4000, 4000, 9000, null],
      finish_reasons: ['stop', 'length', 'length', null],
    });
    expect(r.status).toBe(400); // the 4th has no token count from anywhere
    expect(r.body).toMatchObject({ error: { field: 'labels[3].assistantTokens' } });
    const r2 = await post(`${builtin.url}/openrlhf/reward`, {
      query: ['a', 'b', 'c'],
      prompts: ['', '', ''],
      labels: [label({ success: true }), label({ success: true }), ok(1500)],
      response_lengths: [4000, 4000, 9000],
      finish_reasons: ['stop', 'length', 'length'],
    });
    expect(r2.body).toEqual({
      rewards: [lib(4000), 0.5, lib(1500)],
      scores: [1, 1, 1],
      extra_logs: { success: [1, 1, 1], budget_truncated: [0, 1, 0], assistant_tokens: [4000, 4000, 1500] },
    });
  });

  it('slime and verl: response_length and finish_reason', async () => {
    expect((await post(`${builtin.url}/slime/reward`, { response: 'r', label: label({ success: true }), response_length: 3000, finish_reason: 'stop' })).body).toBe(lib(3000));
    expect((await post(`${builtin.url}/slime/reward`, { response: 'r', label: label({ success: true }), response_length: 3000, finish_reason: 'length' })).body).toBe(0.5);
    expect((await post(`${builtin.url}/verl/reward`, { solution_str: 's', ground_truth: label({ success: true, truncated: false }), response_length: 2500 })).body).toEqual({ score: lib(2500), raw: 1 });
  });

  it('a reward module receives responseLength / finishReason, and an outcome it returns is completed from them', async () => {
    const r = await post(`${withModule.url}/openrlhf/reward`, { query: ['a', 'b'], labels: ['tokens', 'tokens'], response_lengths: [2000, 7], finish_reasons: ['stop', 'length'] });
    expect(r.body).toEqual({ rewards: [lib(2000), 0.5], scores: [1, 1], extra_logs: { success: [1, 1], budget_truncated: [0, 1], assistant_tokens: [2000, 7] } });
  });

  it('bad values are 400s naming the field', async () => {
    const a = await post(`${builtin.url}/openrlhf/reward`, { query: ['a'], labels: [ok(1)], response_lengths: [-1] });
    expect(a.status).toBe(400);
    expect(a.body).toMatchObject({ error: { field: 'response_lengths[0]' } });
    const b = await post(`${builtin.url}/openrlhf/reward`, { query: ['a'], labels: [ok(1)], finish_reasons: ['stop', 'stop'] });
    expect(b.body).toMatchObject({ error: { code: 'LENGTH_MISMATCH', field: 'finish_reasons' } });
  });
});

describe('a request target that is not a URL path', () => {
  it('//a:b is a 400 and the service keeps serving', async () => {
    for (const target of ['//a:b', '//[', '//%', 'http://[']) {
      const status = await new Promise<number>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: builtin.port, path: target, method: 'GET' }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
      expect(status).toBe(400);
    }
    expect((await fetch(`${builtin.url}/health`)).status).toBe(200);
  });
});

describe('validation stops at the first bad element (issue 12)', () => {
  it('/v1/advantages with 3 million nulls: 400 naming rewards[0], quickly and without building 3 million issues', async () => {
    const body = `{"rewards":[${'null,'.repeat(3_000_000)}null]}`;
    const r = await postText(`${builtin.url}/v1/advantages`, body);
    expect(r.status).toBe(400);
    expect(JSON.parse(r.text)).toMatchObject({ error: { code: 'INVALID_TYPE', field: 'rewards[0]' } });
  }, 20_000);

  it('an OpenRLHF batch whose queries are not strings: 400 naming the first', async () => {
    const r = await postText(`${builtin.url}/openrlhf/reward`, { query: ['ok', ...Array.from({ length: 200_000 }, () => 7)], labels: [] });
    expect(r.status).toBe(400);
    expect(JSON.parse(r.text)).toMatchObject({ error: { code: 'INVALID_TYPE', field: 'query[1]' } });
  }, 20_000);
});

describe('invalid labels are refused at the first one (issue 12)', () => {
  it('2.4 MB of labels that are not outcomes: 400 naming the first, not one issue per label', async () => {
    const n = 60_000;
    const labels = Array.from({ length: n }, () => '{"success":"yes","truncated":false,"assistantTokens":10}');
    const body = JSON.stringify({ query: labels.map(() => 'q'), labels });
    expect(body.length).toBeGreaterThan(2_400_000);
    const r = await postText(`${builtin.url}/openrlhf/reward`, body);
    expect(r.status).toBe(400);
    expect(JSON.parse(r.text)).toMatchObject({ error: { code: 'INVALID_TYPE', field: 'labels[0].success' } });
  }, 20_000);
});
