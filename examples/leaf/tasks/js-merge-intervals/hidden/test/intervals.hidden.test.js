import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mergeIntervals, coveredLength } from '../src/intervals.js';

test('merges intervals that touch at an endpoint', () => {
  assert.deepEqual(mergeIntervals([[1, 3], [3, 5]]), [[1, 5]]);
  assert.deepEqual(mergeIntervals([[3, 5], [1, 3], [5, 7]]), [[1, 7]]);
});

test('merges a zero-length interval sitting on an endpoint', () => {
  assert.deepEqual(mergeIntervals([[1, 3], [3, 3]]), [[1, 3]]);
});

test('keeps intervals with a real gap apart', () => {
  assert.deepEqual(mergeIntervals([[1, 2], [3, 4]]), [[1, 2], [3, 4]]);
});

test('coveredLength of touching intervals', () => {
  assert.equal(coveredLength([[0, 2], [2, 4]]), 4);
});
