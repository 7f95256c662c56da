import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LRUCache } from '../src/lru.js';

test('get() marks an entry as recently used', () => {
  const cache = new LRUCache(2);
  cache.set('a', 1).set('b', 2);
  assert.equal(cache.get('a'), 1);
  cache.set('c', 3);
  assert.equal(cache.has('a'), true);
  assert.equal(cache.has('b'), false);
  assert.deepEqual(cache.keys(), ['a', 'c']);
});

test('keys() reflects access order', () => {
  const cache = new LRUCache(3);
  cache.set('x', 1).set('y', 2).set('z', 3);
  cache.get('x');
  cache.get('y');
  assert.deepEqual(cache.keys(), ['z', 'x', 'y']);
});

test('a miss does not change the order', () => {
  const cache = new LRUCache(2);
  cache.set('a', 1).set('b', 2);
  assert.equal(cache.get('nope'), undefined);
  assert.deepEqual(cache.keys(), ['a', 'b']);
  assert.equal(cache.size, 2);
});

test('falsy values are cached and refreshed too', () => {
  const cache = new LRUCache(2);
  cache.set('zero', 0).set('b', 2);
  assert.equal(cache.get('zero'), 0);
  cache.set('c', 3);
  assert.equal(cache.get('zero'), 0);
  assert.equal(cache.has('b'), false);
});
