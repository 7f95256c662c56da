import assert from 'node:assert/strict';
import test from 'node:test';
import { mean, median } from '../src/stats.js';

test('median of an odd-length list', () => {
  assert.equal(median([3, 1, 2]), 2);
});

test('mean', () => {
  assert.equal(mean([1, 2, 3, 4]), 2.5);
});
