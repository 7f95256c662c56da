/**
 * Group-relative advantages with the zero-variance filter, their broadcast to
 * tokens, and the DPPO asymmetric mask (FrogNano §4.1; GAGAR §3.1).
 * @module advantage
 */
export { groupAdvantages, GroupAdvantagesOptionsSchema } from './groupAdvantages.js';
export type { GroupAdvantagesOptions, GroupAdvantagesResult } from './groupAdvantages.js';
export { broadcastToTokens } from './broadcastToTokens.js';
export { dppoMask, dppoMaskWithStats, DppoMaskOptionsSchema, LOGP_TOLERANCE } from './dppoMask.js';
export type { DppoMaskOptions, DppoMaskStats } from './dppoMask.js';
