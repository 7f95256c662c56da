import { spawnSync } from 'node:child_process';
import { closeSync, constants, existsSync, lstatSync, openSync, readFileSync, statSync } from 'node:fs';
import { mkdir, readFile, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { scratchDir, writeTree } from '../../test/helpers/leafTask.js';
import { editTool, type FileToolContext, GLOB_MAX_RESULTS, globTool, READ_DEFAULT_LIMIT, readTool, writeTool } from './fileTools.js';

let host: string;
let ctx: FileToolContext;

beforeEach(async () => {
  host = await scratchDir('frognano-filetools-');
  ctx = { root: { host, aliases: ['/repo', host] }, owner: null, maxOutputChars: 30000 };
});

const ok = (content: string) => ({ content, isError: false });
const error = (content: string) => ({ content: `Error: ${content}`, isError: true });
const hasMkfifo = spawnSync('mkfifo', ['--version']).status === 0;

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

describe('globTool', () => {
  const at = async (p: string, seconds: number): Promise<void> => {
    await writeTree(host, { [p]: 'x' });
    await utimes(join(host, p), seconds, seconds);
  };
  beforeEach(async () => {
    await at('src/old.py', 1000);
    await at('src/new.py', 3000);
    await at('src/lib/mid.py', 2000);
    await at('top.py', 1500);
    await at('src/a.ts', 4000);
    await at('.git/hooks/x.py', 5000);
    await at('node_modules/m/y.py', 5000);
    await at('src/node_modules/z.py', 5000);
  });

  it('lists matches newest first by mtime', async () => {
    expect(await globTool(ctx, { pattern: '*.py' })).toEqual(ok('src/new.py\nsrc/lib/mid.py\ntop.py\nsrc/old.py'));
  });
  it('**/*.py gives the same', async () => {
    expect(await globTool(ctx, { pattern: '**/*.py' })).toEqual(ok('src/new.py\nsrc/lib/mid.py\ntop.py\nsrc/old.py'));
  });
  it('equal mtimes are in path order', async () => {
    await at('b.md', 100);
    await at('a.md', 100);
    await at('c.md', 100);
    expect(await globTool(ctx, { pattern: '*.md' })).toEqual(ok('a.md\nb.md\nc.md'));
  });
  it('a pattern with a folder is anchored at the search root', async () => {
    expect(await globTool(ctx, { pattern: 'src/*.py' })).toEqual(ok('src/new.py\nsrc/old.py'));
  });
  it('path narrows the search and prefixes the results', async () => {
    expect(await globTool(ctx, { pattern: '*.py', path: 'src' })).toEqual(ok('src/new.py\nsrc/lib/mid.py\nsrc/old.py'));
    expect(await globTool(ctx, { pattern: 'lib/*.py', path: '/repo/src/' })).toEqual(ok('src/lib/mid.py'));
  });
  it('path "." and "/repo" are the root (no prefix)', async () => {
    expect(await globTool(ctx, { pattern: '*.ts', path: '.' })).toEqual(ok('src/a.ts'));
    expect(await globTool(ctx, { pattern: '*.ts', path: '/repo' })).toEqual(ok('src/a.ts'));
  });
  it('skips .git and node_modules at any depth', async () => {
    const r = await globTool(ctx, { pattern: '**' });
    expect(r.isError).toBe(false);
    expect(r.content).not.toContain('.git');
    expect(r.content).not.toContain('node_modules');
    expect(r.content.split('\n').sort()).toEqual(['src/a.ts', 'src/lib/mid.py', 'src/new.py', 'src/old.py', 'top.py']);
  });
  it('no match', async () => {
    expect(await globTool(ctx, { pattern: '*.rs' })).toEqual(ok('No files match *.rs'));
  });
  it('over 200 matches: 200 listed and a note', async () => {
    expect(GLOB_MAX_RESULTS).toBe(200);
    await writeTree(host, Object.fromEntries(Array.from({ length: 205 }, (_, i) => [`many/f${String(i).padStart(3, '0')}.txt`, ''])));
    for (let i = 0; i < 205; i++) await utimes(join(host, `many/f${String(i).padStart(3, '0')}.txt`), 10_000 + i, 10_000 + i);
    const r = await globTool(ctx, { pattern: '*.txt' });
    const lines = r.content.split('\n');
    expect(lines).toHaveLength(201);
    expect(lines[0]).toBe('many/f204.txt');
    expect(lines[199]).toBe('many/f005.txt');
    expect(lines[200]).toBe('[... 5 more; narrow the pattern ...]');
  });
  it('exactly 200 matches: no note', async () => {
    await writeTree(host, Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`many/f${i}.txt`, ''])));
    expect((await globTool(ctx, { pattern: '*.txt' })).content.split('\n')).toHaveLength(200);
  });
  it('an invalid pattern is an error', async () => {
    expect(await globTool(ctx, { pattern: '{a,b' })).toEqual(error('invalid glob pattern "{a,b"'));
  });
  it('a pattern over 1000 characters is an error quoting its first 100', async () => {
    expect(await globTool(ctx, { pattern: 'x'.repeat(1001) })).toEqual(error(`invalid glob pattern "${'x'.repeat(100)}"`));
  });
  it('a missing path', async () => {
    expect(await globTool(ctx, { pattern: '*', path: 'nope' })).toEqual(error('nope does not exist'));
  });
  it('a path that is a file', async () => {
    expect(await globTool(ctx, { pattern: '*', path: 'top.py' })).toEqual(error('top.py is not a directory'));
  });
  it('a path outside', async () => {
    expect(await globTool(ctx, { pattern: '*', path: '/etc' })).toEqual(error('/etc is outside the repository (/repo); file tools only work inside it'));
  });
  it('a path through a linked folder inside: results under the real folder', async () => {
    await symlink('src', join(host, 'srclink'));
    expect(await globTool(ctx, { pattern: '*.ts', path: 'srclink' })).toEqual(ok('src/a.ts'));
  });
  it('does not descend into linked folders', async () => {
    const out = await scratchDir('frognano-filetools-out-');
    await writeTree(out, { 'secret.py': 's' });
    await symlink(out, join(host, 'outlink'));
    expect((await globTool(ctx, { pattern: '*.py' })).content).not.toContain('secret');
  });
  it('caps the answer at maxOutputChars', async () => {
    expect(await globTool({ ...ctx, maxOutputChars: 10 }, { pattern: '*.py' })).toEqual(
      ok('src/new.py\n[... output cut at 10 characters; use offset/limit to read further ...]'),
    );
  });
  it('writes nothing', async () => {
    const before = await readFile(join(host, 'top.py'), 'utf8');
    await globTool(ctx, { pattern: '**' });
    expect(await readFile(join(host, 'top.py'), 'utf8')).toBe(before);
    expect(statSync(join(host, 'top.py')).mtimeMs).toBe(1_500_000);
  });
});
