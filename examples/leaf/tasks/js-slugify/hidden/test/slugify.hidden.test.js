import { test } from 'node:test';
import assert from 'node:assert/strict';
import { slugify } from '../src/slugify.js';

test('transliterates accented letters', () => {
  assert.equal(slugify('Crème Brûlée'), 'creme-brulee');
  assert.equal(slugify('Ångström señor'), 'angstrom-senor');
});

test('collapses runs of whitespace', () => {
  assert.equal(slugify('hello    world'), 'hello-world');
  assert.equal(slugify('tabs\tand\nnewlines'), 'tabs-and-newlines');
});

test('does not leave double separators where punctuation was removed', () => {
  assert.equal(slugify('Rock & Roll'), 'rock-roll');
  assert.equal(slugify('a - b'), 'a-b');
});

test('collapses separators with a custom separator too', () => {
  assert.equal(slugify('Crème  Brûlée', { separator: '_' }), 'creme_brulee');
});

test('still handles the simple cases', () => {
  assert.equal(slugify('Hello, World!'), 'hello-world');
});
