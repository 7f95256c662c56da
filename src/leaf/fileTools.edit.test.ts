import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { writeTree } from '../../test/helpers/leafTask.js';
import { error, fileToolScratch, ok } from '../../test/leaf/fileToolScratch.js';
import { editTool, type FileToolContext } from './fileTools.js';

let host: string;
let ctx: FileToolContext;
beforeEach(async () => {
  ({ host, ctx } = await fileToolScratch());
});

describe('editTool', () => {
  beforeEach(async () => {
    await writeTree(host, { 'ed.txt': 'alpha\nbeta\ngamma beta\nbeta\n', 'one.txt': 'x = 1\n' });
  });

  it('replaces the single occurrence and reports its line', async () => {
    expect(await editTool(ctx, { file_path: 'ed.txt', old_string: 'gamma', new_string: 'GAMMA' })).toEqual(ok('Edited ed.txt: replaced 1 occurrence at line 3'));
    expect(readFileSync(join(host, 'ed.txt'), 'utf8')).toBe('alpha\nbeta\nGAMMA beta\nbeta\n');
  });
  it('the line is where old_string starts, for a multi-line old_string', async () => {
    expect(await editTool(ctx, { file_path: 'ed.txt', old_string: 'beta\ngamma', new_string: 'B\nG' })).toEqual(ok('Edited ed.txt: replaced 1 occurrence at line 2'));
    expect(readFileSync(join(host, 'ed.txt'), 'utf8')).toBe('alpha\nB\nG beta\nbeta\n');
  });
  it('line 1, and new_string may be empty (a deletion)', async () => {
    expect(await editTool(ctx, { file_path: 'ed.txt', old_string: 'alpha\n', new_string: '' })).toEqual(ok('Edited ed.txt: replaced 1 occurrence at line 1'));
    expect(readFileSync(join(host, 'ed.txt'), 'utf8')).toBe('beta\ngamma beta\nbeta\n');
  });
  it('new_string is inserted literally ($& is not a replacement pattern)', async () => {
    await editTool(ctx, { file_path: 'one.txt', old_string: '1', new_string: '$&$&' });
    expect(readFileSync(join(host, 'one.txt'), 'utf8')).toBe('x = $&$&\n');
  });
  it('old_string not found', async () => {
    expect(await editTool(ctx, { file_path: 'ed.txt', old_string: 'delta', new_string: 'D' })).toEqual(
      error('old_string was not found in ed.txt; read the file and copy the text exactly, whitespace included'),
    );
  });
  it('old_string that differs only in whitespace is not found', async () => {
    expect((await editTool(ctx, { file_path: 'one.txt', old_string: 'x  = 1', new_string: 'y' })).isError).toBe(true);
    expect(readFileSync(join(host, 'one.txt'), 'utf8')).toBe('x = 1\n');
  });
  it('several occurrences: the count, and nothing changes', async () => {
    expect(await editTool(ctx, { file_path: 'ed.txt', old_string: 'beta', new_string: 'B' })).toEqual(
      error('old_string occurs 3 times in ed.txt; include more surrounding lines so that it is unique'),
    );
    expect(readFileSync(join(host, 'ed.txt'), 'utf8')).toBe('alpha\nbeta\ngamma beta\nbeta\n');
  });
  it('two occurrences', async () => {
    expect(await editTool(ctx, { file_path: 'ed.txt', old_string: '\nbeta\n', new_string: '\nB\n' })).toEqual(
      error('old_string occurs 2 times in ed.txt; include more surrounding lines so that it is unique'),
    );
  });
  it('overlapping occurrences count as several', async () => {
    await writeTree(host, { 'aa.txt': 'aaa' });
    expect(await editTool(ctx, { file_path: 'aa.txt', old_string: 'aa', new_string: 'b' })).toEqual(
      error('old_string occurs 2 times in aa.txt; include more surrounding lines so that it is unique'),
    );
  });
  it('an empty old_string', async () => {
    expect(await editTool(ctx, { file_path: 'ed.txt', old_string: '', new_string: 'x' })).toEqual(
      error('old_string is empty; give the exact text to replace (use write to create a file)'),
    );
  });
  it('identical old_string and new_string', async () => {
    expect(await editTool(ctx, { file_path: 'ed.txt', old_string: 'alpha', new_string: 'alpha' })).toEqual(
      error('old_string and new_string are the same; nothing to change'),
    );
  });
  it('a missing file', async () => {
    expect(await editTool(ctx, { file_path: 'nope.txt', old_string: 'a', new_string: 'b' })).toEqual(
      error('nope.txt does not exist (use write to create a file)'),
    );
    expect(existsSync(join(host, 'nope.txt'))).toBe(false);
  });
  it('a directory', async () => {
    await mkdir(join(host, 'd'));
    expect(await editTool(ctx, { file_path: 'd', old_string: 'a', new_string: 'b' })).toEqual(error('d is a directory; use glob or bash ls to list it'));
  });
  it('a binary file', async () => {
    await writeFile(join(host, 'bin'), Buffer.from([97, 0, 98]));
    expect(await editTool(ctx, { file_path: 'bin', old_string: 'a', new_string: 'b' })).toEqual(error('bin is a binary file'));
  });
  it('a path outside', async () => {
    expect(await editTool(ctx, { file_path: '/etc/hosts', old_string: 'a', new_string: 'b' })).toEqual(
      error('/etc/hosts is outside the repository (/repo); file tools only work inside it'),
    );
  });
  it('edits through a link inside, leaving the link', async () => {
    await symlink('one.txt', join(host, 'l'));
    expect(await editTool(ctx, { file_path: 'l', old_string: '1', new_string: '2' })).toEqual(ok('Edited l: replaced 1 occurrence at line 1'));
    expect(readFileSync(join(host, 'one.txt'), 'utf8')).toBe('x = 2\n');
    expect(lstatSync(join(host, 'l')).isSymbolicLink()).toBe(true);
  });
});

