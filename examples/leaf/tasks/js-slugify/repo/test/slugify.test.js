import { test } from 'node:test';
import assert from 'node:assert/strict';
import { slugify } from '../src/slugify.js';

test('lowercases and joins words with dashes', () => {
  assert.equal(slugify('Hello World'), 'hello-world');
});

test('strips punctuation', () => {
  assert.equal(slugify('Hello, World!'), 'hello-world');
});

test('trims surrounding whitespace', () => {
  assert.equal(slugify('  Trim me  '), 'trim-me');
});

test('supports a custom separator', () => {
  assert.equal(slugify('Hello World', { separator: '_' }), 'hello_world');
});

test('returns an empty string for nullish input', () => {
  assert.equal(slugify(null), '');
  assert.equal(slugify(undefined), '');
});
