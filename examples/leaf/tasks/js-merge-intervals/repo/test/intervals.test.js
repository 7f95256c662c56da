import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mergeIntervals, coveredLength } from '../src/intervals.js';

test('merges overlapping intervals', () => {
  assert.deepEqual(mergeIntervals([[1, 4], [2, 6], [8, 10]]), [[1, 6], [8, 10]]);
});

test('sorts the output and leaves the input alone', () => {
  const input = [[8, 10], [1, 3]];
  assert.deepEqual(mergeIntervals(input), [[1, 3], [8, 10]]);
  assert.deepEqual(input, [[8, 10], [1, 3]]);
});

test('handles nested intervals and reversed bounds', () => {
  assert.deepEqual(mergeIntervals([[1, 10], [3, 4]]), [[1, 10]]);
  assert.deepEqual(mergeIntervals([[5, 2]]), [[2, 5]]);
});

test('empty input', () => {
  assert.deepEqual(mergeIntervals([]), []);
  assert.equal(coveredLength([]), 0);
});

test('coveredLength counts overlaps once', () => {
  assert.equal(coveredLength([[0, 5], [3, 8], [10, 12]]), 10);
});
