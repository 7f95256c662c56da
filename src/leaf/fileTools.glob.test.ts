import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { readFile, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { scratchDir, writeTree } from '../../test/helpers/leafTask.js';
import { error, fileToolScratch, ok } from '../../test/leaf/fileToolScratch.js';
import { type FileToolContext, GLOB_MAX_RESULTS, globTool } from './fileTools.js';

let host: string;
let ctx: FileToolContext;
beforeEach(async () => {
  ({ host, ctx } = await fileToolScratch());
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
  it('a name that is not UTF-8 is listed C-quoted (as git quotes it), and the other files still are', async () => {
    const raw = Buffer.concat([Buffer.from(`${host}/src/caf`), Buffer.from([0xe9]), Buffer.from('.py')]);
    await writeFile(raw, 'x');
    await utimes(raw, 3500, 3500);
    expect(await globTool(ctx, { pattern: '*.py' })).toEqual(ok('"src/caf\\351.py"\nsrc/new.py\nsrc/lib/mid.py\ntop.py\nsrc/old.py'));
    expect(await globTool(ctx, { pattern: 'caf?.py', path: 'src' })).toEqual(ok('"src/caf\\351.py"'));
  });
  it('two undecodable names stay two lines', async () => {
    for (const [byte, t] of [[0xff, 100], [0xfe, 200]] as const) {
      const raw = Buffer.concat([Buffer.from(`${host}/bin/`), Buffer.from([byte])]);
      await writeTree(host, { 'bin/.keep': '' });
      await writeFile(raw, 'x');
      await utimes(raw, t, t);
    }
    expect(await globTool(ctx, { pattern: 'bin/?' })).toEqual(ok('"bin/\\376"\n"bin/\\377"'));
  });
  it('a name with a newline is one quoted line: it cannot add a path to the listing', async () => {
    await at('src/x.py\nconftest.py', 3600);
    expect(await globTool(ctx, { pattern: 'src/*.py' })).toEqual(ok('"src/x.py\\nconftest.py"\nsrc/new.py\nsrc/old.py'));
  });
  it('a folder deeper than PATH_MAX is left out, the other files are listed', async () => {
    const made = spawnSync('bash', ['-c', 'cd "$1" && for i in $(seq 300); do mkdir dddddddddddddddddddd && cd dddddddddddddddddddd || exit 1; done && touch deep.py', 'bash', join(host, 'src')]);
    expect(made.status).toBe(0);
    try {
      expect(await globTool(ctx, { pattern: '*.py' })).toEqual(ok('src/new.py\nsrc/lib/mid.py\ntop.py\nsrc/old.py'));
    } finally {
      spawnSync('rm', ['-rf', join(host, 'src/dddddddddddddddddddd')]);
    }
  });
  it('writes nothing', async () => {
    const before = await readFile(join(host, 'top.py'), 'utf8');
    await globTool(ctx, { pattern: '**' });
    expect(await readFile(join(host, 'top.py'), 'utf8')).toBe(before);
    expect(statSync(join(host, 'top.py')).mtimeMs).toBe(1_500_000);
  });
});
