import * as tf from '@tensorflow/tfjs';
import seedrandom from 'seedrandom';
import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { parseOptions } from '../errors/validate.js';
import { readWeights } from '../train/policy.js';

/** Options of {@link TinyGpt} / {@link createTinyGpt}. */
export const TinyGptOptionsSchema = z
  .object({
    /** Number of token ids `V` (>= 2). */
    vocabSize: z.number().int().min(2),
    /** Longest sequence the model accepts (learned positions), >= 2. */
    contextLength: z.number().int().min(2),
    /** Width of the residual stream. Default 48. Must be divisible by `heads`. */
    dModel: z.number().int().min(2).default(48),
    /** Number of transformer blocks. Default 2. */
    layers: z.number().int().min(1).default(2),
    /** Attention heads per block. Default 4. */
    heads: z.number().int().min(1).default(4),
    /** Width of the feed-forward layer as a multiple of `dModel`. Default 4 (GPT-2). */
    ffMultiplier: z.number().int().min(1).default(4),
    /** Standard deviation of the normal initialisation of the weight matrices. Default 0.02 (GPT-2). */
    initStd: z.number().gt(0).default(0.02),
    /** Seed of the `seedrandom` generator of the initial weights (same seed, same weights on every backend). Default 0. */
    seed: z.union([z.number(), z.string()]).default(0),
  })
  .strict()
  .refine((o) => o.dModel % o.heads === 0, { message: 'dModel must be divisible by heads', path: ['dModel'] });
/** Options of {@link createTinyGpt} as the caller writes them. */
export type TinyGptOptions = z.input<typeof TinyGptOptionsSchema>;
/** {@link TinyGptOptions} with every default filled in. */
export type TinyGptConfig = z.output<typeof TinyGptOptionsSchema>;

interface Block {
  ln1g: tf.Variable;
  ln1b: tf.Variable;
  wq: tf.Variable;
  wk: tf.Variable;
  wv: tf.Variable;
  bq: tf.Variable;
  bk: tf.Variable;
  bv: tf.Variable;
  wo: tf.Variable;
  bo: tf.Variable;
  ln2g: tf.Variable;
  ln2b: tf.Variable;
  w1: tf.Variable;
  b1: tf.Variable;
  w2: tf.Variable;
  b2: tf.Variable;
}

/**
 * A tiny GPT-style causal transformer written with plain `tf.variable`s and
 * its own forward pass, small enough to train on two CPU cores with the `wasm`
 * backend (a few thousand to ~100K parameters).
 *
 * ```
 * x   = onehot(tokens) @ E + P[0:T]                    (token and learned position embeddings)
 * x  += Wo · softmax(q kᵀ / sqrt(dh) + causal) v       (per block: pre-LayerNorm multi-head attention)
 * x  += W2 · relu(W1 · LN(x) + b1) + b2                (pre-LayerNorm feed-forward)
 * out = LN(x) @ U + c                                  ([B, T, V] next-token logits)
 * ```
 * The embedding lookup is a one-hot matrix product, not a `gather`: the
 * `wasm` backend of tfjs 4.22 has no gradient kernel for `gather`
 * (`UnsortedSegmentSum`), and the one-hot is built as int32 and cast (its
 * float32 `oneHot` writes int32 bit patterns). Dense layers reshape to rank 2
 * before `matMul`. Everything else is elementwise, `matMul`, `softmax` and
 * reductions, which have gradients on `cpu`, `wasm`, `webgpu` and `tensorflow`.
 *
 * The initial weights come from `seedrandom(seed)` on the host (Box–Muller),
 * so the same seed gives bit-identical weights on every backend. It satisfies
 * the `Policy` interface of `frognano/train` (causal: the logits at position
 * `t` depend on tokens `0..t` only, so right-padding never changes them).
 *
 * @example
 * ```ts
 * const model = createTinyGpt({ vocabSize: 20, contextLength: 32 });
 * const logits = model.logits(tf.tensor2d([[1, 2, 3]], [1, 3], 'int32')); // [1, 3, 20]
 * ```
 */
export class TinyGpt {
  /** The validated configuration. */
  readonly config: TinyGptConfig;
  /** Number of token ids. */
  readonly vocabSize: number;
  /** Longest accepted sequence. */
  readonly contextLength: number;
  /** Every trainable weight, in a fixed order (checkpoints rely on it). */
  readonly variables: readonly tf.Variable[];
  private readonly tokEmb: tf.Variable;
  private readonly posEmb: tf.Variable;
  private readonly blocks: Block[];
  private readonly lnfg: tf.Variable;
  private readonly lnfb: tf.Variable;
  private readonly wout: tf.Variable;
  private readonly bout: tf.Variable;
  private causal: tf.Tensor2D | null = null;
  private disposed = false;

  constructor(config: TinyGptConfig, init?: readonly Float32Array[]) {
    this.config = config;
    this.vocabSize = config.vocabSize;
    this.contextLength = config.contextLength;
    const { vocabSize: V, contextLength: T, dModel: d, layers, ffMultiplier } = config;
    const ff = d * ffMultiplier;
    const rng = seedrandom(`tinygpt:${String(config.seed)}`);
    const normal = (): number => {
      // Box–Muller on the seeded uniform generator; 1 - u keeps log away from 0.
      const u = 1 - rng();
      const v = rng();
      return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    };
    const specs: { name: string; shape: number[]; kind: 'normal' | 'zeros' | 'ones'; std?: number }[] = [];
    const add = (name: string, shape: number[], kind: 'normal' | 'zeros' | 'ones', std?: number): number => {
      specs.push({ name, shape, kind, std });
      return specs.length - 1;
    };
    // GPT-2: residual projections scaled by 1 / sqrt(2 * layers).
    const residStd = config.initStd / Math.sqrt(2 * layers);
    add('tok_emb', [V, d], 'normal', config.initStd);
    add('pos_emb', [T, d], 'normal', config.initStd);
    for (let l = 0; l < layers; l++) {
      add(`h${l}.ln1.g`, [d], 'ones');
      add(`h${l}.ln1.b`, [d], 'zeros');
      add(`h${l}.attn.wq`, [d, d], 'normal', config.initStd);
      add(`h${l}.attn.wk`, [d, d], 'normal', config.initStd);
      add(`h${l}.attn.wv`, [d, d], 'normal', config.initStd);
      add(`h${l}.attn.bq`, [d], 'zeros');
      add(`h${l}.attn.bk`, [d], 'zeros');
      add(`h${l}.attn.bv`, [d], 'zeros');
      add(`h${l}.attn.wo`, [d, d], 'normal', residStd);
      add(`h${l}.attn.bo`, [d], 'zeros');
      add(`h${l}.ln2.g`, [d], 'ones');
      add(`h${l}.ln2.b`, [d], 'zeros');
      add(`h${l}.mlp.w1`, [d, ff], 'normal', config.initStd);
      add(`h${l}.mlp.b1`, [ff], 'zeros');
      add(`h${l}.mlp.w2`, [ff, d], 'normal', residStd);
      add(`h${l}.mlp.b2`, [d], 'zeros');
    }
    add('ln_f.g', [d], 'ones');
    add('ln_f.b', [d], 'zeros');
    add('head.w', [d, V], 'normal', config.initStd);
    add('head.b', [V], 'zeros');
    const vars = specs.map((s, i) => {
      const size = s.shape.reduce((a, b) => a * b, 1);
      let values: Float32Array;
      if (init !== undefined) values = init[i]!;
      else {
        values = new Float32Array(size);
        if (s.kind === 'ones') values.fill(1);
        else if (s.kind === 'normal') for (let j = 0; j < size; j++) values[j] = normal() * s.std!;
      }
      return tf.variable(tf.tensor(values, s.shape, 'float32'), true, `tinygpt_${uid()}_${s.name}`);
    });
    this.variables = vars;
    let k = 0;
    const next = (): tf.Variable => vars[k++]!;
    this.tokEmb = next();
    this.posEmb = next();
    this.blocks = [];
    for (let l = 0; l < layers; l++) {
      this.blocks.push({
        ln1g: next(),
        ln1b: next(),
        wq: next(),
        wk: next(),
        wv: next(),
        bq: next(),
        bk: next(),
        bv: next(),
        wo: next(),
        bo: next(),
        ln2g: next(),
        ln2b: next(),
        w1: next(),
        b1: next(),
        w2: next(),
        b2: next(),
      });
    }
    this.lnfg = next();
    this.lnfb = next();
    this.wout = next();
    this.bout = next();
  }

  /** Number of trainable parameters. */
  get parameterCount(): number {
    return this.variables.reduce((a, v) => a + v.size, 0);
  }

  /**
   * Next-token logits `[B, T, V]` of int32 token ids `[B, T]` (`T <= contextLength`).
   * Position `t`'s logits predict token `t + 1` and depend on tokens `0..t` only.
   * Call inside `tf.tidy` (or dispose the result).
   */
  logits(tokens: tf.Tensor): tf.Tensor3D {
    return tf.tidy(() => this.forward(tokens));
  }

  /**
   * A new model of the same configuration with copies of this model's weights
   * (read with `await tensor.data()`, so it works on webgpu in Node too).
   */
  async clone(): Promise<TinyGpt> {
    return new TinyGpt(this.config, await readWeights(this));
  }

  /** Frees the weights and cached masks. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const v of this.variables) v.dispose();
    this.causal?.dispose();
    this.causal = null;
  }

  /** The additive causal mask `[T, T]` (0 on and below the diagonal, -1e9 above), sliced from one cached `[C, C]`. */
  private causalBias(T: number): tf.Tensor {
    if (this.causal === null) {
      const C = this.contextLength;
      const values = new Float32Array(C * C);
      for (let i = 0; i < C; i++) for (let j = i + 1; j < C; j++) values[i * C + j] = -1e9;
      this.causal = tf.keep(tf.tensor2d(values, [C, C], 'float32'));
    }
    return T === this.contextLength ? this.causal : tf.slice(this.causal, [0, 0], [T, T]);
  }

  private forward(tokens: tf.Tensor): tf.Tensor3D {
    if (tokens.rank !== 2 || tokens.shape[1]! > this.contextLength || tokens.shape[1]! < 1) {
      throw new FrognanoError(
        ErrorCode.OUT_OF_RANGE,
        `tokens must have shape [B, T] with 1 <= T <= contextLength (${this.contextLength}), got [${tokens.shape.join(', ')}]`,
        { fn: 'TinyGpt.logits', field: 'tokens' },
      );
    }
    const [B, T] = tokens.shape as [number, number];
    const { dModel: d, heads: H, vocabSize: V } = this.config;
    const dh = d / H;
    const ids = tokens.dtype === 'int32' ? tokens : tf.cast(tokens, 'int32');
    const onehot = tf.cast(tf.oneHot(tf.reshape(ids, [B * T]), V), 'float32');
    let x = tf.matMul(onehot, this.tokEmb); // [B*T, d]
    const pos = tf.slice(this.posEmb, [0, 0], [T, d]);
    x = tf.reshape(tf.add(tf.reshape(x, [B, T, d]), pos), [B * T, d]);
    const bias = this.causalBias(T);
    const scale = 1 / Math.sqrt(dh);
    for (const b of this.blocks) {
      const h = layerNorm(x, b.ln1g, b.ln1b);
      const heads = (w: tf.Tensor, bias: tf.Tensor): tf.Tensor =>
        tf.transpose(tf.reshape(tf.add(tf.matMul(h, w), bias), [B, T, H, dh]), [0, 2, 1, 3]); // [B, H, T, dh]
      const q = heads(b.wq, b.bq);
      const k = heads(b.wk, b.bk);
      const v = heads(b.wv, b.bv);
      const att = tf.softmax(tf.add(tf.mul(tf.matMul(q, k, false, true), scale), bias)); // [B, H, T, T]
      const y = tf.reshape(tf.transpose(tf.matMul(att, v), [0, 2, 1, 3]), [B * T, d]);
      x = tf.add(x, tf.add(tf.matMul(y, b.wo), b.bo));
      const h2 = layerNorm(x, b.ln2g, b.ln2b);
      const ffOut = tf.add(tf.matMul(tf.relu(tf.add(tf.matMul(h2, b.w1), b.b1)), b.w2), b.b2);
      x = tf.add(x, ffOut);
    }
    const out = tf.add(tf.matMul(layerNorm(x, this.lnfg, this.lnfb), this.wout), this.bout);
    return tf.reshape(out, [B, T, V]);
  }
}

let uidCounter = 0;
function uid(): number {
  return uidCounter++;
}

/** LayerNorm over the last axis of a rank-2 tensor (eps 1e-5, as PyTorch). */
function layerNorm(x: tf.Tensor, g: tf.Tensor, b: tf.Tensor): tf.Tensor {
  const mean = tf.mean(x, -1, true);
  const c = tf.sub(x, mean);
  const variance = tf.mean(tf.square(c), -1, true);
  return tf.add(tf.mul(tf.mul(c, tf.rsqrt(tf.add(variance, 1e-5))), g), b);
}

/**
 * Builds a {@link TinyGpt} from options (validated; unknown keys rejected).
 *
 * @throws FrognanoError `OUT_OF_RANGE` / `INVALID_TYPE` naming `opts.<field>` (e.g. `dModel` not divisible by `heads`)
 * @example createTinyGpt({ vocabSize: 20, contextLength: 32, dModel: 32, layers: 2, heads: 4 }).parameterCount // 27796
 */
export function createTinyGpt(opts: TinyGptOptions): TinyGpt {
  return new TinyGpt(parseOptions('createTinyGpt', TinyGptOptionsSchema, opts));
}
