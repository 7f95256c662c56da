import * as tf from '@tensorflow/tfjs';
import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { aggregateUnchecked } from './aggregateTokenLoss.js';
import { describeValue, parseOptions, parseWith } from '../errors/validate.js';
import { asFloat, assertSameShape, assertTensor, checkLogProbs, checkMask01, readValues, requireSyncRead, resolveValidate, validateOption, zeroLoss } from './tensorUtils.js';

/** One annotated span `[start, end)` of the flat token arrays and its polarity (SPEC §5). */
export const SpanSchema = z
  .object({
    /** First token of the span (integer, `>= 0`). */
    start: z.number().int().min(0),
    /** One past the last token (exclusive; integer, `start < end <= length`). */
    end: z.number().int().min(1),
    /** The user's verdict on the agent's reply this span covers. */
    polarity: z.enum(['positive', 'negative']),
  })
  .strict();
/** One annotated span: `{ start, end /* exclusive *\/, polarity }`. */
export type Span = z.infer<typeof SpanSchema>;
/** The `spans` input: an array of {@link SpanSchema}. */
const SpansSchema = z.array(SpanSchema);

/** Options of {@link spanKtoLoss} (Verification Horizon §4.3; SPEC §5). */
export const SpanKtoLossOptionsSchema = z
  .object({
    /** Preference strength `beta` (> 0). Default `0.1`. */
    beta: z.number().gt(0).default(0.1),
    /** Loss coefficient `lambda_w` of positive spans (>= 0). Default `1`. */
    lambdaW: z.number().min(0).default(1),
    /** Loss coefficient `lambda_l` of negative spans (>= 0). Default `1`. */
    lambdaL: z.number().min(0).default(1),
    /** EMA decay `alpha` of the reference point `z_ref`, in [0, 1] (1 freezes it, 0 uses the batch mean). Default `0.9`. */
    emaAlpha: z.number().min(0).max(1).default(0.9),
    ...validateOption,
  })
  .strict();
/** Options of {@link spanKtoLoss} as the caller writes them. */
export type SpanKtoLossOptions = z.input<typeof SpanKtoLossOptionsSchema>;
type ParsedOptions = z.output<typeof SpanKtoLossOptionsSchema>;

/** The running state of Span-KTO: the reference point `z_ref` (a plain number). */
export interface SpanKtoStateValue {
  /** EMA of the mean span reward over past batches. */
  zRef: number;
}

const StateSchema = z.object({ zRef: z.number() });

/** The per-call options of {@link spanKtoLoss}: the loss options plus a precomputed `z_ref'`. */
export const SpanKtoCallOptionsSchema = SpanKtoLossOptionsSchema.extend({
  /**
   * `z_ref'` for this batch as {@link spanKtoReference} returned it (finite). Given,
   * the loss reads nothing back from the device (the way to run on webgpu in Node);
   * left out, the loss computes it from the span rewards with one synchronous read.
   */
  zRefNext: z.number().optional(),
}).strict();
/** Options of {@link spanKtoLoss} as the caller writes them. */
export type SpanKtoCallOptions = z.input<typeof SpanKtoCallOptionsSchema>;

/** The inputs of one Span-KTO batch. */
export interface SpanKtoInputs {
  /** Log-probs of the tokens under the policy being trained (any shape; spans index it flattened, row-major). */
  logpPolicy: tf.Tensor;
  /** Log-probs of the same tokens under the frozen reference model (a constant). */
  logpRef: tf.Tensor;
  /** The annotated spans; may be empty. */
  spans: readonly Span[];
  /** 0/1 of `logpPolicy`'s shape: 1 for neutral tokens (trained with plain NLL). Default: none. */
  neutralMask?: tf.Tensor;
}

/** The result of {@link spanKtoLoss}: the loss and the new reference point. */
export interface SpanKtoResult {
  /** `L_pref + L_neutral`, a scalar tensor the caller owns. */
  loss: tf.Scalar;
  /** `z_ref'`: pass it as `state.zRef` of the next batch. */
  zRef: number;
}

/**
 * Span-level KTO (Verification Horizon §4.3; SPEC §5): a KTO loss whose unit
 * is an annotated span, plus an NLL regulariser on neutral tokens.
 * ```
 * r_k     = sum_{t in S_k} (logpPolicy_t - logpRef_t)                      (span implicit reward)
 * zRef'   = emaAlpha * zRef + (1 - emaAlpha) * mean_k r_k   if there is a span, else zRef   (detached)
 * a_k     = r_k - zRef'
 * l_k     = -lambdaW * sigmoid(beta * a_k)    (positive span)
 *         = -lambdaL * sigmoid(-beta * a_k)   (negative span)
 * L_pref  = mean_k l_k                        (0 without spans)
 * L_neu   = -mean of logpPolicy over neutralMask = 1   (0 without neutral tokens)
 * loss    = L_pref + L_neu
 * ```
 * `zRef'` is computed from the values of `r` (read back: one number per span)
 * and enters `a_k` as a constant, so no gradient flows through it. On a backend
 * that cannot read synchronously (webgpu in Node, `canReadSync()`), compute it
 * first with `await spanKtoReference(inputs, state, opts)` and pass it as
 * `opts.zRefNext`: the loss is then the same number without any read. Spans may
 * overlap. The span sums are one `[K, n]` 0/1 matrix product (memory `4 K n`
 * bytes). Pure function: `state` is not changed; see {@link SpanKtoState} for
 * a helper that carries `zRef` across batches.
 *
 * @param state - `{ zRef }` from the previous batch (start from 0)
 * @throws FrognanoError `INVALID_TYPE` (not a tensor, bad span object / polarity), `LENGTH_MISMATCH`
 *   (shapes), `NON_FINITE` (NaN/±Infinity log-prob or zRef), `OUT_OF_RANGE` (span outside
 *   `0 <= start < end <= n`, log-prob > 0, mask not 0/1, bad option)
 * @example
 * ```ts
 * const { loss, zRef } = spanKtoLoss(
 *   { logpPolicy, logpRef, spans: [{ start: 0, end: 3, polarity: 'negative' }], neutralMask },
 *   { zRef: 0 },
 * );
 * ```
 */
export function spanKtoLoss(inputs: SpanKtoInputs, state: SpanKtoStateValue, opts: SpanKtoCallOptions = {}): SpanKtoResult {
  const fn = 'spanKtoLoss';
  const { zRefNext, ...o } = parseOptions(fn, SpanKtoCallOptionsSchema, opts);
  const { zRef } = parseWith(fn, 'state', StateSchema, state);
  if (zRefNext !== undefined && !Number.isFinite(zRefNext)) {
    throw new FrognanoError(ErrorCode.NON_FINITE, `opts.zRefNext must be a finite number, got ${describeValue(zRefNext)}`, { fn, field: 'opts.zRefNext' });
  }
  return spanKtoParsed(fn, inputs, zRef, o, zRefNext);
}

/**
 * The reference point `z_ref'` that {@link spanKtoLoss} would compute for this
 * batch (`emaAlpha zRef + (1 - emaAlpha) mean_k r_k`, or `zRef` without spans),
 * read asynchronously (`await r.data()`), so it works on every backend and
 * never blocks the event loop. Pass the result as `opts.zRefNext` of
 * {@link spanKtoLoss} for the same batch: the loss is then identical to the
 * one-call form (same float32 span sums, same float64 mean) and reads nothing.
 * Costs one forward of the span sums outside the gradient. With `validate`
 * (default `true` here, as the reads are asynchronous anyway) the log-probs and
 * the neutral mask are checked as {@link spanKtoLoss} checks them.
 *
 * @returns `z_ref'` for this batch
 * @throws FrognanoError as {@link spanKtoLoss} (the promise rejects)
 * @example
 * ```ts
 * const zRefNext = await spanKtoReference(batch, { zRef });            // async, no gradient
 * const { loss } = spanKtoLoss(batch, { zRef }, { zRefNext });          // inside optimizer.minimize
 * zRef = zRefNext;
 * ```
 */
export async function spanKtoReference(inputs: SpanKtoInputs, state: SpanKtoStateValue, opts: SpanKtoLossOptions = {}): Promise<number> {
  const fn = 'spanKtoReference';
  const o = parseOptions(fn, SpanKtoLossOptionsSchema, opts);
  const { zRef } = parseWith(fn, 'state', StateSchema, state);
  const x = checkSpanKtoInputs(fn, inputs, false);
  if (o.validate !== false) {
    const [lp, lr, nm] = await Promise.all([x.logpPolicy.data(), x.logpRef.data(), x.neutralMask?.data()]);
    checkLogProbs(fn, 'logpPolicy', x.logpPolicy.shape, lp as ArrayLike<number>);
    checkLogProbs(fn, 'logpRef', x.logpRef.shape, lr as ArrayLike<number>);
    if (x.neutralMask !== null) checkMask01(fn, 'neutralMask', x.neutralMask.shape, nm as ArrayLike<number>);
  }
  if (x.spans.length === 0) return zRef;
  const r = tf.tidy(() => spanRewards(x.logpPolicy, x.logpRef, x.spans));
  const rv = (await r.data()) as ArrayLike<number>;
  r.dispose();
  return emaNext(zRef, rv, o.emaAlpha);
}

interface CheckedInputs {
  logpPolicy: tf.Tensor;
  logpRef: tf.Tensor;
  neutralMask: tf.Tensor | null;
  spans: Span[];
}

/** `emaAlpha zRef + (1 - emaAlpha) mean(r)` in float64. */
function emaNext(zRef: number, rv: ArrayLike<number>, emaAlpha: number): number {
  let mean = 0;
  for (let k = 0; k < rv.length; k++) mean += rv[k]!;
  mean /= rv.length;
  return emaAlpha * zRef + (1 - emaAlpha) * mean;
}

/** `r_k = sum_{t in S_k} (lp_t - lr_t)`: one `[K, n] x [n, 1]` product; call inside `tf.tidy`. */
function spanRewards(logpPolicy: tf.Tensor, logpRef: tf.Tensor, spans: readonly Span[]): tf.Tensor {
  const n = logpPolicy.size;
  const K = spans.length;
  const member = new Float32Array(K * n);
  spans.forEach((s, k) => member.fill(1, k * n + s.start, k * n + s.end));
  const lp = tf.reshape(asFloat(logpPolicy), [-1]);
  const lr = tf.reshape(asFloat(logpRef), [-1]);
  return tf.reshape(tf.matMul(tf.tensor2d(member, [K, n]), tf.reshape(tf.sub(lp, lr), [n, 1])), [K]);
}

/** Types, shapes and spans always; the tensors' values (one synchronous read) when `values`. */
function checkSpanKtoInputs(fn: string, inputs: SpanKtoInputs, values: boolean): CheckedInputs {
  if (inputs === null || typeof inputs !== 'object') {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `inputs must be an object, got ${describeValue(inputs)}`, { fn, field: 'inputs' });
  }
  const logpPolicy = assertTensor(fn, 'logpPolicy', inputs.logpPolicy);
  const logpRef = assertTensor(fn, 'logpRef', inputs.logpRef);
  assertSameShape(fn, 'logpPolicy', logpPolicy, 'logpRef', logpRef);
  if (values) {
    checkLogProbs(fn, 'logpPolicy', logpPolicy.shape, readValues(logpPolicy));
    checkLogProbs(fn, 'logpRef', logpRef.shape, readValues(logpRef));
  }
  let neutralMask: tf.Tensor | null = null;
  if (inputs.neutralMask !== undefined) {
    neutralMask = assertTensor(fn, 'neutralMask', inputs.neutralMask);
    assertSameShape(fn, 'logpPolicy', logpPolicy, 'neutralMask', neutralMask);
    if (values) checkMask01(fn, 'neutralMask', neutralMask.shape, readValues(neutralMask));
  }
  const n = logpPolicy.size;
  const spans = parseWith(fn, 'spans', SpansSchema, inputs.spans);
  spans.forEach((s, k) => {
    if (s.start >= s.end || s.end > n) {
      throw new FrognanoError(
        ErrorCode.OUT_OF_RANGE,
        `spans[${k}] must satisfy 0 <= start < end <= ${n} (the token count), got start ${s.start}, end ${s.end}`,
        { fn, field: `spans[${k}]`, index: [k] },
      );
    }
  });
  return { logpPolicy, logpRef, neutralMask, spans };
}

function spanKtoParsed(fn: string, inputs: SpanKtoInputs, zRef: number, o: ParsedOptions, zRefNext: number | undefined): SpanKtoResult {
  const { logpPolicy, neutralMask, spans, logpRef } = checkSpanKtoInputs(fn, inputs, resolveValidate(fn, o.validate));
  const K = spans.length;
  if (K > 0 && zRefNext === undefined) {
    requireSyncRead(
      fn,
      'opts.zRefNext',
      "computing z_ref' from the span rewards",
      "compute it first with `await spanKtoReference(inputs, state, opts)` and pass it as opts.zRefNext (SpanKtoState: `await kto.reference(batch)` before `kto.loss(batch)`)",
    );
  }
  let zNext = K > 0 && zRefNext !== undefined ? zRefNext : zRef;
  const loss = tf.tidy(() => {
    const lp = tf.reshape(asFloat(logpPolicy), [-1]);
    // Keeps the loss connected to logpPolicy (a zero gradient, not "no path") when both terms are 0.
    let total: tf.Tensor = zeroLoss(lp);
    if (K > 0) {
      const sign = new Float32Array(K);
      const coef = new Float32Array(K);
      spans.forEach((s, k) => {
        sign[k] = s.polarity === 'positive' ? 1 : -1;
        coef[k] = s.polarity === 'positive' ? -o.lambdaW : -o.lambdaL;
      });
      const r = spanRewards(logpPolicy, logpRef, spans);
      if (zRefNext === undefined) zNext = emaNext(zRef, readValues(r), o.emaAlpha);
      const a = tf.sub(r, zNext);
      const l = tf.mul(tf.tensor1d(coef), tf.sigmoid(tf.mul(tf.tensor1d(sign), tf.mul(a, o.beta))));
      total = tf.add(total, tf.mean(l));
    }
    // L_neu: the token-mean NLL over the neutral tokens (aggregateUnchecked handles the empty tensor)
    if (neutralMask !== null) total = tf.add(total, aggregateUnchecked(tf.neg(lp), tf.reshape(asFloat(neutralMask), [-1]), 'token-mean'));
    return total as tf.Scalar;
  });
  return { loss, zRef: zNext };
}

/** Options of {@link SpanKtoState}: the loss options plus the starting reference point. */
export const SpanKtoStateOptionsSchema = SpanKtoLossOptionsSchema.extend({
  /** The reference point before the first batch. Default `0`. */
  zRef: z.number().default(0),
}).strict();
/** Options of {@link SpanKtoState} as the caller writes them. */
export type SpanKtoStateOptions = z.input<typeof SpanKtoStateOptionsSchema>;

/**
 * Carries Span-KTO's reference point `z_ref` across batches: each
 * {@link SpanKtoState.loss} call is one batch, returns the loss and advances
 * `zRef` (`zRef' = emaAlpha zRef + (1 - emaAlpha) mean_k r_k`, unchanged for a
 * batch without spans). Call it once per optimizer step, e.g. inside
 * `optimizer.minimize(() => kto.loss(batch))`; calling it twice for the same
 * batch (say, again to log) advances the EMA twice. The state is a plain
 * number: save `kto.zRef` with the checkpoint and pass it back as `opts.zRef`.
 *
 * @throws FrognanoError `OUT_OF_RANGE` / `NON_FINITE` / `INVALID_TYPE` for bad options, as {@link spanKtoLoss} for bad batches
 * @example
 * ```ts
 * const kto = createSpanKto({ beta: 0.1 });
 * for (const batch of batches) optimizer.minimize(() => kto.loss(batch(model)));
 * saveCheckpoint({ zRef: kto.zRef });
 * ```
 */
export class SpanKtoState {
  /** The current reference point. */
  zRef: number;
  /** Batches seen so far (calls of {@link SpanKtoState.loss} that returned). */
  batches = 0;
  private readonly opts: ParsedOptions;
  /** `z_ref'` from {@link SpanKtoState.reference}, for the next loss call. */
  private pending: number | null = null;

  constructor(opts: SpanKtoStateOptions = {}) {
    const { zRef, ...rest } = parseOptions('SpanKtoState', SpanKtoStateOptionsSchema, opts);
    this.opts = rest;
    this.zRef = zRef;
  }

  /** The options in force (defaults filled in). */
  get options(): Readonly<ParsedOptions> {
    return { ...this.opts };
  }

  /**
   * Computes this batch's `z_ref'` asynchronously ({@link spanKtoReference})
   * and holds it for the next {@link SpanKtoState.loss} call, which then reads
   * nothing back: the way to use this helper on webgpu in Node. Does not
   * advance {@link SpanKtoState.zRef} by itself.
   *
   * @example
   * ```ts
   * await kto.reference(batch);
   * optimizer.minimize(() => kto.loss(batch));
   * ```
   */
  async reference(inputs: SpanKtoInputs): Promise<number> {
    const z = await spanKtoReference(inputs, { zRef: this.zRef }, this.opts);
    this.pending = z;
    return z;
  }

  /**
   * One batch: returns the loss (the caller owns it) and advances
   * {@link SpanKtoState.zRef}, using the value {@link SpanKtoState.reference}
   * held, if any (then cleared), else one synchronous read.
   */
  loss(inputs: SpanKtoInputs): tf.Scalar {
    const { loss, zRef } = spanKtoParsed('SpanKtoState.loss', inputs, this.zRef, this.opts, this.pending ?? undefined);
    this.zRef = zRef;
    this.pending = null;
    this.batches++;
    return loss;
  }
}

/** Creates a {@link SpanKtoState} (options as there). */
export function createSpanKto(opts: SpanKtoStateOptions = {}): SpanKtoState {
  return new SpanKtoState(opts);
}
