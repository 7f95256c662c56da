import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue, parseOptions } from '../errors/validate.js';

function checkItems(fn: string, votesPerItem: unknown, minVotes: number): readonly (readonly unknown[])[] {
  if (!Array.isArray(votesPerItem)) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `votesPerItem must be an array of arrays, got ${describeValue(votesPerItem)}`, {
      fn,
      field: 'votesPerItem',
    });
  }
  if (votesPerItem.length === 0) {
    throw new FrognanoError(ErrorCode.EMPTY_INPUT, 'votesPerItem must have at least 1 item, got 0', { fn, field: 'votesPerItem' });
  }
  for (let i = 0; i < votesPerItem.length; i++) {
    const item: unknown = votesPerItem[i];
    if (!Array.isArray(item)) {
      throw new FrognanoError(ErrorCode.INVALID_TYPE, `votesPerItem[${i}] must be an array of votes, got ${describeValue(item)}`, {
        fn,
        field: `votesPerItem[${i}]`,
        index: [i],
      });
    }
    if (item.length < minVotes) {
      throw new FrognanoError(
        ErrorCode.EMPTY_INPUT,
        `votesPerItem[${i}] must have at least ${minVotes} vote${minVotes === 1 ? '' : 's'}, got ${item.length}`,
        { fn, field: `votesPerItem[${i}]`, index: [i] },
      );
    }
  }
  return votesPerItem as unknown[][];
}

/**
 * Observed pairwise agreement among raters: for each item the share of rater
 * pairs that gave the same label, averaged over items (FrogNano §5.2 reports
 * "agreement across three LLM judges is 93.02 percent" next to Fleiss' kappa).
 *
 * ```
 * P_i    = sum_v c_iv (c_iv - 1) / (n_i (n_i - 1))     c_iv = votes for label v on item i, n_i = votes on item i
 * result = (1/N) sum_i P_i
 * ```
 * This is Fleiss' `P_bar` (see {@link fleissKappa}); items may have different
 * numbers of raters here. With three raters an item scores 1 when unanimous and
 * 1/3 on a 2-1 split. The paper does not define its agreement figure; pairwise
 * agreement is the quantity Fleiss' kappa corrects for chance, hence this choice.
 * Labels are compared with SameValueZero, as in {@link majorityVote}.
 *
 * @param votesPerItem - per item, one label per rater (at least 2)
 * @returns agreement in [0, 1]
 * @throws FrognanoError `INVALID_TYPE` (not an array of arrays), `EMPTY_INPUT` (no item, or an
 *   item `votesPerItem[i]` with fewer than 2 votes)
 * @example agreementRate([['hack', 'hack', 'hack'], ['clean', 'hack', 'clean']]) // (1 + 1/3) / 2 = 2/3
 */
export function agreementRate<T>(votesPerItem: readonly (readonly T[])[]): number {
  const items = checkItems('agreementRate', votesPerItem, 2);
  let sum = 0;
  for (const item of items) {
    const counts = new Map<unknown, number>();
    for (const v of item) counts.set(v, (counts.get(v) ?? 0) + 1);
    let agree = 0;
    for (const c of counts.values()) agree += c * (c - 1);
    sum += agree / (item.length * (item.length - 1));
  }
  return sum / items.length;
}

/** Options of {@link aggregateRaters}. */
export const AggregateRatersOptionsSchema = z
  .object({
    /**
     * The category labels, in column order (distinct). Default: the labels in
     * order of first appearance (item by item, rater by rater). Give them to get
     * a fixed column order or columns for labels nobody used.
     */
    categories: z.array(z.unknown()).optional(),
  })
  .strict();
/**
 * Options of {@link aggregateRaters} as the caller writes them: those of
 * {@link AggregateRatersOptionsSchema}, with `categories` typed as the votes' labels `T`.
 */
export type AggregateRatersOptions<T = unknown> = Omit<z.input<typeof AggregateRatersOptionsSchema>, 'categories'> & {
  /** The category labels, in column order (distinct) ({@link AggregateRatersOptionsSchema}). */
  categories?: readonly T[];
};

/**
 * Turns raw votes (item x rater labels) into the items x categories count
 * matrix that {@link fleissKappa} takes, like statsmodels'
 * `statsmodels.stats.inter_rater.aggregate_raters`.
 *
 * @param votesPerItem - per item, one label per rater
 * @returns `{ categories, counts }` with `counts[i][j]` = votes for `categories[j]` on item `i`
 * @throws FrognanoError `INVALID_TYPE` (not an array of arrays, or an unknown option), `EMPTY_INPUT`
 *   (no item, or an item without votes), `OUT_OF_RANGE` (a vote `votesPerItem[i][r]` not among
 *   `opts.categories`, or a repeated category `opts.categories[j]`)
 * @example aggregateRaters([['a', 'b', 'a'], ['b', 'b', 'b']]) // { categories: ['a', 'b'], counts: [[2, 1], [0, 3]] }
 */
export function aggregateRaters<T>(
  votesPerItem: readonly (readonly T[])[],
  opts?: AggregateRatersOptions<T>,
): { categories: T[]; counts: number[][] } {
  const fn = 'aggregateRaters';
  const items = checkItems(fn, votesPerItem, 1) as readonly (readonly T[])[];
  const o = parseOptions(fn, AggregateRatersOptionsSchema, opts);
  const column = new Map<T, number>();
  const categories: T[] = [];
  const fixed = o.categories !== undefined;
  if (fixed) {
    const given = o.categories as T[];
    for (let j = 0; j < given.length; j++) {
      if (column.has(given[j]!)) {
        throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `opts.categories[${j}] repeats ${describeValue(given[j])}`, {
          fn,
          field: `opts.categories[${j}]`,
          index: [j],
        });
      }
      column.set(given[j]!, j);
      categories.push(given[j]!);
    }
  } else {
    for (const item of items) {
      for (const v of item) {
        if (!column.has(v)) {
          column.set(v, categories.length);
          categories.push(v);
        }
      }
    }
  }
  const counts = items.map((item, i) => {
    const row = new Array<number>(categories.length).fill(0);
    for (let r = 0; r < item.length; r++) {
      const j = column.get(item[r]!);
      if (j === undefined) {
        throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `votesPerItem[${i}][${r}] is ${describeValue(item[r])}, not one of opts.categories`, {
          fn,
          field: `votesPerItem[${i}][${r}]`,
          index: [i, r],
        });
      }
      row[j]!++;
    }
    return row;
  });
  return { categories, counts };
}
