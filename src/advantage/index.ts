/**
 * Group-relative advantages with the zero-variance filter, their broadcast to
 * tokens, and the DPPO asymmetric mask (FrogNano §4.1; GAGAR §3.1).
 * @module advantage
 */
export { groupAdvantages, GroupAdvantagesOptionsSchema } from './groupAdvantages.js';
export type { FlatGroupAdvantagesOptions, FlatGroupAdvantagesResult, GroupAdvantagesOptions, GroupAdvantagesResult } from './groupAdvantages.js';
export { broadcastToTokens, BroadcastToTokensOptionsSchema } from './broadcastToTokens.js';
export type { BroadcastToTokensOptions } from './broadcastToTokens.js';
export { dppoMask, dppoMaskDetailed, DppoMaskOptionsSchema, LOGP_TOLERANCE } from './dppoMask.js';
export type { DppoMaskOptions, DppoMaskStats } from './dppoMask.js';
