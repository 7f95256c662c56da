/**
 * The frognano service (`frognano serve`, SPEC §11): the reward endpoints of
 * OpenRLHF (`POST /openrlhf/reward`), slime (`POST /slime/reward`) and verl
 * (`POST /verl/reward`), native JSON endpoints for group advantages, GAGAR and
 * the other primitives (`POST /v1/...`), and `GET /health`.
 *
 * Built on node:http (no framework), with a request-size limit, a per-request
 * timeout, a concurrency limit with a bounded queue, structured JSON logs and a
 * graceful shutdown. Rewards come from the built-in shaper (`shapeRewards`)
 * applied to an outcome carried by the label, or from a user reward module.
 * @module server
 */
export { FrognanoServer } from './server.js';
export type { ServerOptions } from './server.js';
export { RewardEngine, loadRewardModule } from './rewardEngine.js';
export type { Outcome, RewardFunction, RewardInput, RewardResult } from './rewardEngine.js';
export {
  openrlhfReward,
  slimeReward,
  verlReward,
  advantagesEndpoint,
  OpenRlhfRequestSchema,
  SlimeRequestSchema,
  VerlRequestSchema,
  AdvantagesGroupsSchema,
} from './protocols.js';
export type { OpenRlhfResponse, SlimeObjectResponse } from './protocols.js';
export { HttpError, UserFunctionError } from './httpError.js';
export type { HttpErrorCode } from './httpError.js';
export { ConcurrencyLimiter } from './limiter.js';
export { createLogger } from './logger.js';
export type { Logger, LogLevel, LogFields } from './logger.js';
export { runServe, serveHelp, shapingFromFlags, SERVE_FLAGS } from './serveCommand.js';
