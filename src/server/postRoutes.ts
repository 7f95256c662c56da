import { findRecordCommand, metricsSetRecord, rewardsCommand } from '../commands/index.js';
import type { ShapeRewardOptions } from '../rewards/index.js';
import { advantagesEndpoint, openrlhfReward, slimeReward, verlReward } from './protocols.js';
import type { RewardEngine } from './rewardEngine.js';

/** One POST endpoint: body (parsed JSON) in, answer out. */
export interface PostRoute {
  /** Computes the answer; `search` is the URL's query string (`?format=object`). */
  handle(body: unknown, search: URLSearchParams, signal: AbortSignal): unknown;
  /** The answer is a bare reward (slime's number form): written as a JSON float. */
  bareReward?: boolean;
  /** Runs the reward module (a timeout is a VERIFIER_TIMEOUT; it cannot run in a compute worker). */
  runsVerifier?: boolean;
}

/** The `/v1/<name>` record endpoints that map one body to one record of the same-named CLI subcommand. */
export const RECORD_ENDPOINTS = ['rewards', 'gagar', 'gagar-coefficients', 'gagar-score', 'dppo-mask', 'pass-at-k', 'tinker-datums'] as const;

/**
 * The service's POST endpoints, path -> route. The same table serves requests
 * in the service's thread and in its compute workers (`computeWorker.ts`), so
 * both compute exactly the same answers.
 */
export function postRoutes(engine: RewardEngine, rewardDefaults: Partial<ShapeRewardOptions>): Map<string, PostRoute> {
  const routes = new Map<string, PostRoute>();
  const runsVerifier = engine.usesModule;
  routes.set('/openrlhf/reward', { runsVerifier, handle: (b, _q, signal) => openrlhfReward(b, engine, signal) });
  routes.set('/slime/reward', { runsVerifier, bareReward: true, handle: (b, q, signal) => slimeReward(b, engine, q.get('format') === 'object', signal) });
  routes.set('/verl/reward', { runsVerifier, handle: (b, _q, signal) => verlReward(b, engine, signal) });
  routes.set('/v1/advantages', { handle: (b) => advantagesEndpoint(b) });
  routes.set('/v1/metrics', { handle: (b) => metricsSetRecord(b) });
  for (const name of RECORD_ENDPOINTS) {
    const cmd = findRecordCommand(name)!;
    // /v1/rewards shapes with the service's own --budget/--alpha/... (a body's opts override them).
    const processor = name === 'rewards' ? rewardsCommand.create(rewardDefaults) : cmd.create(cmd.configure({}));
    routes.set(`/v1/${name}`, { handle: (body) => processor.process(body, 'body') });
  }
  return routes;
}
