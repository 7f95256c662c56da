/**
 * "Did you mean" hints for mistyped subcommands and flags (`hlep` -> `help`,
 * `--budjet` -> `--budget`).
 */

/**
 * The optimal-string-alignment (restricted Damerau-Levenshtein) distance: the
 * fewest insertions, deletions, substitutions and swaps of two adjacent
 * characters that turn `a` into `b` (`hlep` -> `help` is 1).
 */
export function editDistance(a: string, b: string): number {
  // d[i][j]: distance between a[0, i) and b[0, j), kept as three rows.
  let prev2: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2]! + 1);
      cur.push(d);
    }
    prev2 = prev;
    prev = cur;
  }
  return prev[b.length]!;
}

/**
 * The candidate nearest to `word` (case aside) for a "did you mean" hint, or
 * undefined when none is close: the distance must be at most
 * max(2, floor(length / 3)) of `word`. Ties go to the earlier candidate.
 */
export function nearest(word: string, candidates: readonly string[]): string | undefined {
  const w = word.toLowerCase();
  const limit = Math.max(2, Math.floor(w.length / 3));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(w, c.toLowerCase());
    if (d <= limit && d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

/** `; did you mean X?` when one of `candidates` is close to `word` (see {@link nearest}), else nothing. */
export function didYouMean(word: string, candidates: readonly string[], quote: (s: string) => string): string {
  const near = nearest(word, candidates);
  return near === undefined ? '' : `; did you mean ${quote(near)}?`;
}
