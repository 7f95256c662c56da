/**
 * A compute worker of the service (see `computePool.ts`): parses a request's
 * body and computes its answer with the same route table as the service's own
 * thread (`postRoutes`), then sends back the answer's text, already written.
 * Runs inside a worker thread only.
 * @module
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { ShapeRewardOptions } from '../rewards/index.js';
import { stringifyWire } from '../wire/index.js';
import { postRoutes } from './postRoutes.js';
import { RewardEngine } from './rewardEngine.js';
import { wireError, type ComputeAnswer, type ComputeRequest } from './computeProtocol.js';

const data = workerData as { shaping: ShapeRewardOptions; rewardDefaults: Partial<ShapeRewardOptions> };
const routes = postRoutes(new RewardEngine(undefined, data.shaping), data.rewardDefaults);
const never = new AbortController().signal;
const port = parentPort!;

async function answer(m: ComputeRequest): Promise<ComputeAnswer> {
  const route = routes.get(m.path);
  if (!route) return { error: { status: 404, code: 'NOT_FOUND', message: `no endpoint ${m.path}` } };
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(m.body).toString('utf8'));
  } catch (e) {
    return { error: { status: 400, code: 'INVALID_JSON', message: `the body is not valid JSON: ${(e as Error).message}` } };
  }
  try {
    const result = await route.handle(body, new URLSearchParams(m.search), never);
    return { text: stringifyWire(result, route.bareReward === true && typeof result === 'number') };
  } catch (e) {
    return { error: wireError(e) };
  }
}

port.on('message', (m: { input: ComputeRequest }) => {
  void answer(m.input).then((value) => port.postMessage({ type: 'result', ok: true, value }));
});
port.postMessage({ type: 'ready' });
