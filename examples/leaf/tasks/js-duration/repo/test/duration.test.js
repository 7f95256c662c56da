import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDuration, formatDuration } from '../src/duration.js';

test('parses single-unit durations', () => {
  assert.equal(parseDuration('500ms'), 500);
  assert.equal(parseDuration('2s'), 2000);
  assert.equal(parseDuration('5m'), 300000);
  assert.equal(parseDuration('1h'), 3600000);
  assert.equal(parseDuration('1d'), 86400000);
});

test('treats a bare number as milliseconds', () => {
  assert.equal(parseDuration('1500'), 1500);
  assert.equal(parseDuration(' 42 '), 42);
});

test('rejects garbage', () => {
  assert.throws(() => parseDuration('abc'), /invalid duration/);
  assert.throws(() => parseDuration(''), /invalid duration/);
  assert.throws(() => parseDuration(10), TypeError);
});

test('formats durations', () => {
  assert.equal(formatDuration(0), '0ms');
  assert.equal(formatDuration(2000), '2s');
  assert.equal(formatDuration(5400000), '1h30m');
  assert.equal(formatDuration(90061001), '1d1h1m1s1ms');
});
