/**
 * Merge overlapping closed intervals [start, end].
 * The input is not modified; the result is sorted by start.
 *
 * @param {Array<[number, number]>} intervals
 * @returns {Array<[number, number]>}
 */
export function mergeIntervals(intervals) {
  const sorted = intervals
    .map(([start, end]) => (start <= end ? [start, end] : [end, start]))
    .sort((a, b) => a[0] - b[0]);
  const merged = [];
  for (const [start, end] of sorted) {
    const last = merged[merged.length - 1];
    if (last && start <= last[1]) {
      last[1] = Math.max(last[1], end);
    } else {
      merged.push([start, end]);
    }
  }
  return merged;
}

/**
 * Total length covered by the union of the intervals.
 *
 * @param {Array<[number, number]>} intervals
 * @returns {number}
 */
export function coveredLength(intervals) {
  return mergeIntervals(intervals).reduce((sum, [start, end]) => sum + (end - start), 0);
}
