import assert from 'node:assert/strict';
import test from 'node:test';
import { range } from '../src/range.js';

test('range counts up', () => {
  assert.deepEqual(range(0, 3), [0, 1, 2]);
});
