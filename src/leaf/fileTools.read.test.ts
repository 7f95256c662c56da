import { spawnSync } from 'node:child_process';
import { symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { scratchDir, writeTree } from '../../test/helpers/leafTask.js';
import { error, fileToolScratch, hasMkfifo, ok } from '../../test/leaf/fileToolScratch.js';
import { type FileToolContext, READ_DEFAULT_LIMIT, readTool } from './fileTools.js';

let host: string;
let ctx: FileToolContext;
beforeEach(async () => {
  ({ host, ctx } = await fileToolScratch());
});

describe('readTool', () => {
  beforeEach(async () => {
    await writeTree(host, {
      'a.txt': 'one\ntwo\nthree\n',
      'nonl.txt': 'one\ntwo',
      'empty.txt': '',
      'nl.txt': '\n',
      'crlf.txt': 'a\r\nb\r\n',
      'src/deep/x.py': 'print(1)\n',
    });
  });

  it('numbers lines as cat -n: six columns, a tab, the line', async () => {
    expect(await readTool(ctx, { file_path: 'a.txt' })).toEqual(ok('     1\tone\n     2\ttwo\n     3\tthree'));
  });
  it('the last line without a newline is shown the same', async () => {
    expect(await readTool(ctx, { file_path: 'nonl.txt' })).toEqual(ok('     1\tone\n     2\ttwo'));
  });
  it('reads through /repo and the host alias', async () => {
    expect(await readTool(ctx, { file_path: '/repo/src/deep/x.py' })).toEqual(ok('     1\tprint(1)'));
    expect(await readTool(ctx, { file_path: `${host}/src/deep/x.py` })).toEqual(ok('     1\tprint(1)'));
  });
  it('offset/limit select a window, with the "more lines" note', async () => {
    expect(await readTool(ctx, { file_path: 'a.txt', offset: 2, limit: 1 })).toEqual(ok('     2\ttwo\n[... 1 more lines; read with offset 3 ...]'));
  });
  it('offset is 1-based: 1 is the first line', async () => {
    expect(await readTool(ctx, { file_path: 'a.txt', offset: 1, limit: 1 })).toEqual(ok('     1\tone\n[... 2 more lines; read with offset 2 ...]'));
  });
  it('offset 0 means the first line too', async () => {
    expect(await readTool(ctx, { file_path: 'a.txt', offset: 0, limit: 1 })).toEqual(ok('     1\tone\n[... 2 more lines; read with offset 2 ...]'));
  });
  it('a negative offset means the first line', async () => {
    expect(await readTool(ctx, { file_path: 'a.txt', offset: -3, limit: 2 })).toEqual(ok('     1\tone\n     2\ttwo\n[... 1 more lines; read with offset 3 ...]'));
  });
  it('offset on the last line shows it and no note', async () => {
    expect(await readTool(ctx, { file_path: 'a.txt', offset: 3 })).toEqual(ok('     3\tthree'));
  });
  it('a limit reaching exactly the end gives no note', async () => {
    expect(await readTool(ctx, { file_path: 'a.txt', offset: 2, limit: 2 })).toEqual(ok('     2\ttwo\n     3\tthree'));
  });
  it('a limit past the end shows the rest', async () => {
    expect(await readTool(ctx, { file_path: 'a.txt', offset: 2, limit: 100 })).toEqual(ok('     2\ttwo\n     3\tthree'));
  });
  it('an offset past the end is an error naming the line count', async () => {
    expect(await readTool(ctx, { file_path: 'a.txt', offset: 4 })).toEqual(error('offset 4 is past the end of a.txt (3 lines)'));
  });
  it('an empty file says so', async () => {
    expect(await readTool(ctx, { file_path: 'empty.txt' })).toEqual(ok('(empty.txt is empty)'));
  });
  it('a file holding one newline has one empty line', async () => {
    expect(await readTool(ctx, { file_path: 'nl.txt' })).toEqual(ok('     1\t'));
  });
  it('keeps carriage returns as they are', async () => {
    expect(await readTool(ctx, { file_path: 'crlf.txt' })).toEqual(ok('     1\ta\r\n     2\tb\r'));
  });
  it('line numbers over 999999 push the column wider', async () => {
    await writeFile(join(host, 'big.txt'), 'x\n'.repeat(1_000_001));
    expect(await readTool(ctx, { file_path: 'big.txt', offset: 1_000_000, limit: 2 })).toEqual(ok('1000000\tx\n1000001\tx'));
  });
  it('reads 2000 lines by default and notes the rest', async () => {
    expect(READ_DEFAULT_LIMIT).toBe(2000);
    await writeFile(join(host, 'many.txt'), Array.from({ length: 2500 }, (_, i) => `L${i + 1}`).join('\n'));
    const r = await readTool(ctx, { file_path: 'many.txt' });
    expect(r.isError).toBe(false);
    const lines = r.content.split('\n');
    expect(lines).toHaveLength(2001);
    expect(lines[0]).toBe('     1\tL1');
    expect(lines[1999]).toBe('  2000\tL2000');
    expect(lines[2000]).toBe('[... 500 more lines; read with offset 2001 ...]');
  });
  it('cuts a line over 2000 characters', async () => {
    await writeFile(join(host, 'long.txt'), `${'x'.repeat(2000)}\n${'y'.repeat(2001)}\n`);
    const r = await readTool(ctx, { file_path: 'long.txt' });
    expect(r).toEqual(ok(`     1\t${'x'.repeat(2000)}\n     2\t${'y'.repeat(2000)}[... line cut ...]`));
  });
  it('caps the answer at maxOutputChars with a note', async () => {
    expect(await readTool({ ...ctx, maxOutputChars: 10 }, { file_path: 'a.txt' })).toEqual(
      ok('     1\tone\n[... output cut at 10 characters; use offset/limit to read further ...]'),
    );
  });
  it('a binary file is an error', async () => {
    await writeFile(join(host, 'bin'), Buffer.from([0x50, 0x4b, 0x00, 0x01]));
    expect(await readTool(ctx, { file_path: 'bin' })).toEqual(error('bin is a binary file'));
  });
  it('a NUL after the first 8000 bytes is not binary', async () => {
    await writeFile(join(host, 'late'), Buffer.concat([Buffer.from('a'.repeat(8000)), Buffer.from([0])]));
    expect((await readTool(ctx, { file_path: 'late' })).isError).toBe(false);
  });
  it('a directory is an error', async () => {
    expect(await readTool(ctx, { file_path: 'src' })).toEqual(error('src is a directory; use glob or bash ls to list it'));
  });
  it('the root is a directory', async () => {
    expect(await readTool(ctx, { file_path: '/repo' })).toEqual(error('/repo is a directory; use glob or bash ls to list it'));
  });
  it('a missing file is an error', async () => {
    expect(await readTool(ctx, { file_path: 'nope.txt' })).toEqual(error('nope.txt does not exist'));
  });
  it('a path outside is refused', async () => {
    expect(await readTool(ctx, { file_path: '/etc/passwd' })).toEqual(error('/etc/passwd is outside the repository (/repo); file tools only work inside it'));
  });
  it('a link to a file outside is refused, not read', async () => {
    const out = await scratchDir('frognano-filetools-out-');
    await writeFile(join(out, 'secret'), 'secret\n');
    await symlink(join(out, 'secret'), join(host, 'leak'));
    const r = await readTool(ctx, { file_path: 'leak' });
    expect(r.isError).toBe(true);
    expect(r.content).not.toContain('secret\n');
    expect(r.content).toBe(`Error: leak leads through a symbolic link to ${join(out, 'secret')}, outside the repository`);
  });
  it('a link inside is followed', async () => {
    await symlink('a.txt', join(host, 'alias.txt'));
    expect(await readTool(ctx, { file_path: 'alias.txt', limit: 1 })).toEqual(ok('     1\tone\n[... 2 more lines; read with offset 2 ...]'));
  });
  it.skipIf(!hasMkfifo)('a FIFO is not a regular file', async () => {
    spawnSync('mkfifo', [join(host, 'fifo')]);
    expect(await readTool(ctx, { file_path: 'fifo' })).toEqual(error('fifo is not a regular file'));
  });
});

