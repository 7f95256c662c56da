import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue, finiteArray } from '../errors/validate.js';
import { kendallTau } from '../metrics/kendallTau.js';

/** The result of {@link rubricRankingAgreement}. */
export interface RubricRankingAgreement {
  /** Configuration names, in input order. */
  configs: string[];
  /** `tau[i][j]`: Kendall's tau of config `j`'s scores against config `i`'s (1 on the diagonal; `null` when config `i` scores every model the same). */
  tau: (number | null)[][];
  /** Smallest off-diagonal tau (`null` with one config or none defined). */
  minTau: number | null;
  /** Mean off-diagonal tau (`null` with one config or none defined). */
  meanTau: number | null;
}

/**
 * How consistently several judge configurations rank the same models
 * (Verification Horizon §3.1: six configurations — two judge models x two
 * prompts x two thinking levels — give Kendall tau = 1.0 within a judge family
 * and >= 0.93 across families).
 *
 * `scoresByConfig[c][m]` is configuration `c`'s score of model `m` (e.g. its mean
 * rubric score over the tasks); every configuration scores the same models in
 * the same order. `tau[i][j]` is the paper's Kendall tau
 * ({@link kendallTau}, Verification Horizon §5.2) with config `i` as the reference
 * (`ut`) and config `j` as the evaluator (`eval`): over the model pairs config
 * `i` orders strictly, +1 concordant, -1 discordant, 0 when config `j` ties
 * them. Without ties in config `i`, `tau[i][j] = tau[j][i]`.
 *
 * @param scoresByConfig - per configuration name, one finite score per model (at least 2 models)
 * @throws FrognanoError `EMPTY_INPUT` (no configuration, or fewer than 2 models), `INVALID_TYPE`,
 *   `NON_FINITE` (naming `scoresByConfig.<name>[m]`), `LENGTH_MISMATCH` (configurations scoring
 *   different numbers of models)
 * @example
 * rubricRankingAgreement({ 'max-default': [71, 64, 58], 'max-strict': [62, 51, 47], 'plus-default': [70, 58, 60] })
 * // tau['max-default']['max-strict'] = 1, tau['max-default']['plus-default'] = 1/3
 */
export function rubricRankingAgreement(scoresByConfig: Readonly<Record<string, ArrayLike<number>>>): RubricRankingAgreement {
  const fn = 'rubricRankingAgreement';
  if (typeof scoresByConfig !== 'object' || scoresByConfig === null || Array.isArray(scoresByConfig)) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `scoresByConfig must be an object { [config]: number[] }, got ${describeValue(scoresByConfig)}`, { fn, field: 'scoresByConfig' });
  }
  const configs = Object.keys(scoresByConfig);
  if (configs.length === 0) throw new FrognanoError(ErrorCode.EMPTY_INPUT, 'scoresByConfig must have at least 1 configuration, got 0', { fn, field: 'scoresByConfig' });
  const rows = configs.map((c) => finiteArray(fn, `scoresByConfig.${c}`, scoresByConfig[c], { minLength: 2 }));
  rows.forEach((r, i) => {
    if (r.length !== rows[0]!.length) {
      throw new FrognanoError(ErrorCode.LENGTH_MISMATCH, `scoresByConfig.${configs[i]} has ${r.length} models but scoresByConfig.${configs[0]} has ${rows[0]!.length}`, {
        fn,
        field: `scoresByConfig.${configs[i]}`,
      });
    }
  });
  const tau = rows.map((a, i) => rows.map((b, j) => (i === j ? 1 : kendallTau([{ ut: a, eval: b }]))));
  const off: number[] = [];
  tau.forEach((row, i) => row.forEach((v, j) => i !== j && v !== null && off.push(v)));
  return {
    configs,
    tau,
    minTau: off.length ? Math.min(...off) : null,
    meanTau: off.length ? off.reduce((s, x) => s + x, 0) / off.length : null,
  };
}
