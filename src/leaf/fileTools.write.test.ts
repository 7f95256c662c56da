import { spawnSync } from 'node:child_process';
import { closeSync, constants, existsSync, lstatSync, openSync, readFileSync, statSync } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { scratchDir, writeTree } from '../../test/helpers/leafTask.js';
import { error, fileToolScratch, hasMkfifo, ok } from '../../test/leaf/fileToolScratch.js';
import { type FileToolContext, writeTool } from './fileTools.js';

let host: string;
let ctx: FileToolContext;
beforeEach(async () => {
  ({ host, ctx } = await fileToolScratch());
});

describe('writeTool', () => {
  it('creates a file and its parent folders, reporting Created', async () => {
    expect(await writeTool(ctx, { file_path: 'new/dir/f.txt', content: 'a\nb' })).toEqual(ok('Created new/dir/f.txt (2 lines, 3 bytes)'));
    expect(readFileSync(join(host, 'new/dir/f.txt'), 'utf8')).toBe('a\nb');
  });
  it('replaces an existing file, reporting Wrote', async () => {
    await writeTree(host, { 'f.txt': 'old content that is longer\n' });
    expect(await writeTool(ctx, { file_path: 'f.txt', content: 'a\nb\n' })).toEqual(ok('Wrote f.txt (2 lines, 4 bytes)'));
    expect(readFileSync(join(host, 'f.txt'), 'utf8')).toBe('a\nb\n');
  });
  it('counts bytes in UTF-8 and an empty file as 0 lines', async () => {
    expect(await writeTool(ctx, { file_path: 'u.txt', content: 'héllo' })).toEqual(ok('Created u.txt (1 lines, 6 bytes)'));
    expect(await writeTool(ctx, { file_path: 'e.txt', content: '' })).toEqual(ok('Created e.txt (0 lines, 0 bytes)'));
    expect(readFileSync(join(host, 'e.txt'), 'utf8')).toBe('');
  });
  it('writes through /repo', async () => {
    expect(await writeTool(ctx, { file_path: '/repo/x/y.txt', content: 'y' })).toEqual(ok('Created /repo/x/y.txt (1 lines, 1 bytes)'));
    expect(readFileSync(join(host, 'x/y.txt'), 'utf8')).toBe('y');
  });
  it('creates files with mode 0644 (under the usual umask)', async () => {
    await writeTool(ctx, { file_path: 'm.txt', content: 'm' });
    expect(statSync(join(host, 'm.txt')).mode & 0o777 & ~0o022).toBe(0o644 & ~0o022);
    expect(statSync(join(host, 'm.txt')).mode & 0o111).toBe(0);
  });
  it('refuses the repository root', async () => {
    expect(await writeTool(ctx, { file_path: '/repo', content: 'x' })).toEqual(error('/repo is the repository root, not a file'));
    expect(await writeTool(ctx, { file_path: '.', content: 'x' })).toEqual(error('. is the repository root, not a file'));
  });
  it('refuses a directory', async () => {
    await mkdir(join(host, 'd'));
    expect(await writeTool(ctx, { file_path: 'd', content: 'x' })).toEqual(error('d is a directory'));
    expect(lstatSync(join(host, 'd')).isDirectory()).toBe(true);
  });
  it('refuses a path outside', async () => {
    expect(await writeTool(ctx, { file_path: '../escape.txt', content: 'x' })).toEqual(error('../escape.txt is outside the repository (/repo); file tools only work inside it'));
  });
  it('does not follow a final link to outside: Error, and the target is not created', async () => {
    const out = await scratchDir('frognano-filetools-out-');
    const target = join(out, 'x');
    await symlink(target, join(host, 'file'));
    expect(await writeTool(ctx, { file_path: 'file', content: 'pwned' })).toEqual(error(`file leads through a symbolic link to ${target}, outside the repository`));
    expect(existsSync(target)).toBe(false);
    expect(lstatSync(join(host, 'file')).isSymbolicLink()).toBe(true);
  });
  it('does not write through a link to an existing file outside', async () => {
    const out = await scratchDir('frognano-filetools-out-');
    await writeFile(join(out, 'victim'), 'keep\n');
    await symlink(join(out, 'victim'), join(host, 'v'));
    expect((await writeTool(ctx, { file_path: 'v', content: 'pwned' })).isError).toBe(true);
    expect(readFileSync(join(out, 'victim'), 'utf8')).toBe('keep\n');
  });
  it('does not write below a linked folder outside', async () => {
    const out = await scratchDir('frognano-filetools-out-');
    await symlink(out, join(host, 'outdir'));
    expect((await writeTool(ctx, { file_path: 'outdir/sub/f.txt', content: 'x' })).isError).toBe(true);
    expect(existsSync(join(out, 'sub'))).toBe(false);
  });
  it('a dangling link whose target is inside: the target is created, the link stays', async () => {
    await symlink('target.txt', join(host, 'link'));
    expect(await writeTool(ctx, { file_path: 'link', content: 'x' })).toEqual(ok('Created link (1 lines, 1 bytes)'));
    expect(readFileSync(join(host, 'target.txt'), 'utf8')).toBe('x');
    expect(lstatSync(join(host, 'link')).isSymbolicLink()).toBe(true);
  });
  it('a link to an existing file inside: the target is replaced', async () => {
    await writeTree(host, { 'a.txt': 'old' });
    await symlink('a.txt', join(host, 'l'));
    expect(await writeTool(ctx, { file_path: 'l', content: 'new' })).toEqual(ok('Wrote l (1 lines, 3 bytes)'));
    expect(readFileSync(join(host, 'a.txt'), 'utf8')).toBe('new');
  });
  it('a path below an existing file rejects with the errno (executeToolCall reports it)', async () => {
    await writeTree(host, { 'top.txt': 't' });
    await expect(writeTool(ctx, { file_path: 'top.txt/x', content: 'a' })).rejects.toMatchObject({ code: expect.stringMatching(/^E[A-Z]+$/) });
  });
  it.skipIf(!hasMkfifo)('a FIFO without a reader is refused at once, not waited on', async () => {
    // before the O_NONBLOCK fix, open(O_WRONLY) blocked forever (and pinned a libuv thread).
    // The timer opens a reader so that a regression fails this test instead of hanging it.
    const fifo = join(host, 'fifo');
    spawnSync('mkfifo', [fifo]);
    let reader: number | undefined;
    const timer = setTimeout(() => {
      reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    }, 2000);
    try {
      await expect(writeTool(ctx, { file_path: 'fifo', content: 'a' })).rejects.toMatchObject({ code: 'ENXIO' });
    } finally {
      clearTimeout(timer);
      if (reader !== undefined) closeSync(reader);
    }
  });
  it.skipIf(typeof process.getuid !== 'function' || process.getuid() !== 0)('hands created folders and the file to owner (as root)', async () => {
    const c: FileToolContext = { ...ctx, owner: { uid: 4321, gid: 4322 } };
    await mkdir(join(host, 'pre'));
    await writeTool(c, { file_path: 'pre/a/b/f.txt', content: 'x' });
    for (const p of ['pre/a', 'pre/a/b', 'pre/a/b/f.txt']) expect([statSync(join(host, p)).uid, statSync(join(host, p)).gid]).toEqual([4321, 4322]);
    expect(statSync(join(host, 'pre')).uid).toBe(0); // existing folders are left alone
    expect(statSync(host).uid).toBe(0);
  });
});

