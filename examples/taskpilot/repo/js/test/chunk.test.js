import assert from 'node:assert/strict';
import test from 'node:test';
import { chunk } from '../src/chunk.js';

test('chunk by a size', () => {
  assert.deepEqual(chunk([1, 2, 3], 2), [[1, 2], [3]]);
});
