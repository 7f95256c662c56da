import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LRUCache } from '../src/lru.js';

test('stores and returns values', () => {
  const cache = new LRUCache(2);
  cache.set('a', 1).set('b', 2);
  assert.equal(cache.get('a'), 1);
  assert.equal(cache.get('b'), 2);
  assert.equal(cache.get('missing'), undefined);
  assert.equal(cache.size, 2);
});

test('evicts the oldest entry when full', () => {
  const cache = new LRUCache(2);
  cache.set('a', 1).set('b', 2).set('c', 3);
  assert.equal(cache.has('a'), false);
  assert.deepEqual(cache.keys(), ['b', 'c']);
});

test('overwriting a key refreshes it', () => {
  const cache = new LRUCache(2);
  cache.set('a', 1).set('b', 2).set('a', 10).set('c', 3);
  assert.deepEqual(cache.keys(), ['a', 'c']);
  assert.equal(cache.get('a'), 10);
});

test('rejects a bad capacity', () => {
  assert.throws(() => new LRUCache(0), RangeError);
  assert.throws(() => new LRUCache(1.5), RangeError);
});
