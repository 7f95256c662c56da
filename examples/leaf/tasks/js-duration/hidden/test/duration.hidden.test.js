import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDuration, formatDuration } from '../src/duration.js';

test('parses compound durations', () => {
  assert.equal(parseDuration('1h30m'), 5400000);
  assert.equal(parseDuration('2m15s'), 135000);
  assert.equal(parseDuration('1d2h'), 93600000);
  assert.equal(parseDuration('1s500ms'), 1500);
});

test('allows spaces between components', () => {
  assert.equal(parseDuration('1h 30m'), 5400000);
});

test('round-trips with formatDuration', () => {
  for (const ms of [1, 999, 61000, 5400000, 90061001]) {
    assert.equal(parseDuration(formatDuration(ms)), ms);
  }
});

test('rejects trailing garbage', () => {
  assert.throws(() => parseDuration('1h30x'), /invalid duration/);
  assert.throws(() => parseDuration('5m!'), /invalid duration/);
});

test('single units still work', () => {
  assert.equal(parseDuration('5m'), 300000);
  assert.equal(parseDuration('500ms'), 500);
});
