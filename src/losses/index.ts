/**
 * Tensor losses on tfjs (FrogNano §4.1 and App. C; Verification Horizon §4.3):
 * the DPPO policy loss with its asymmetric trust-region mask, plain and
 * re-weighted SFT, Span-KTO, the consolidation loss, and the token
 * log-probabilities / entropies they are fed with. Every loss takes tfjs
 * tensors, returns a scalar tensor the caller owns, disposes what it creates,
 * and has gradients checked against finite differences on the `cpu`, `wasm` and
 * `webgpu` backends. On a backend that cannot read synchronously (webgpu in
 * Node, `canReadSync()`), `validate` defaults to `false` and the asynchronous
 * forms (`dppoDiagnostics`, `spanKtoReference`, `checkFiniteAsync`) do the reads. See `docs/losses.md` for the walk from the papers' formulas to the calls.
 *
 * Importing this module loads `@tensorflow/tfjs` (an optional peer dependency);
 * the array primitives elsewhere in frognano do not.
 * @module losses
 */
export { dppoLoss, dppoLossDetailed, dppoDiagnostics, DppoLossOptionsSchema, LOG_RATIO_CLAMP } from './dppoLoss.js';
export { checkFiniteAsync } from './tensorUtils.js';
export type { DppoLossInputs, DppoLossOptions, DppoLossDiagnostics } from './dppoLoss.js';
export { aggregateTokenLoss, AggregateModeSchema, AggregateTokenLossOptionsSchema } from './aggregateTokenLoss.js';
export type { AggregateMode, AggregateTokenLossOptions } from './aggregateTokenLoss.js';
export { sftLoss, SftLossOptionsSchema } from './sftLoss.js';
export type { SftLossInputs, SftLossOptions } from './sftLoss.js';
export { rwSftLoss, RwSftLossOptionsSchema, TokenPolaritySchema } from './rwSftLoss.js';
export type { RwSftLossInputs, RwSftLossOptions, TokenPolarity } from './rwSftLoss.js';
export {
  spanKtoLoss,
  spanKtoReference,
  SpanKtoCallOptionsSchema,
  SpanKtoState,
  createSpanKto,
  SpanSchema,
  SpanKtoLossOptionsSchema,
  SpanKtoStateOptionsSchema,
} from './spanKtoLoss.js';
export type { Span, SpanKtoInputs, SpanKtoLossOptions, SpanKtoCallOptions, SpanKtoResult, SpanKtoStateValue, SpanKtoStateOptions } from './spanKtoLoss.js';
export { consolidationLoss, ConsolidationLossOptionsSchema } from './consolidationLoss.js';
export type { ConsolidationLossInputs, ConsolidationLossOptions } from './consolidationLoss.js';
export { tokenLogProbs, TokenLogProbsOptionsSchema } from './tokenLogProbs.js';
export type { TokenLogProbsOptions } from './tokenLogProbs.js';
export { tokenEntropy } from './tokenEntropy.js';
export { numericGradient, numericGradientAsync, NumericGradientOptionsSchema } from './numericGradient.js';
export type { NumericGradientOptions } from './numericGradient.js';
