import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { readFile, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { scratchDir, writeTree } from '../../test/helpers/leafTask.js';
import { error, fileToolScratch, ok } from '../../test/leaf/fileToolScratch.js';
import { type FileToolContext, GLOB_MAX_ENTRIES, GLOB_MAX_MS, GLOB_MAX_RESULTS, globTool } from './fileTools.js';

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

  describe('bounds (a tree the agent made to exhaust memory or time)', () => {
    const stopNote = (entries: number): string => `[stopped after ${entries} entries: narrow the pattern or the path]`;
    // The tree above has 10 entries below the root: src top.py .git node_modules | old.py new.py lib a.ts node_modules | mid.py
    const all = 'src/new.py\nsrc/lib/mid.py\ntop.py\nsrc/old.py';

    it('the bounds are 100000 entries and 5 s', () => {
      expect(GLOB_MAX_ENTRIES).toBe(100_000);
      expect(GLOB_MAX_MS).toBe(5_000);
    });
    it('a tree of exactly maxEntries entries is listed whole, without a note', async () => {
      expect(await globTool(ctx, { pattern: '*.py' }, { maxEntries: 10, maxMs: 60_000 })).toEqual(ok(all));
    });
    it('one entry more: it stops, lists what it kept and says so in one last line', async () => {
      const r = await globTool(ctx, { pattern: '**' }, { maxEntries: 9, maxMs: 60_000 });
      expect(r.isError).toBe(false);
      const lines = r.content.split('\n');
      expect(lines.at(-1)).toBe(stopNote(9));
      expect(lines.length).toBeGreaterThanOrEqual(4); // at most one of the five files is past the stop
      for (const l of lines.slice(0, -1)) expect(['src/a.ts', 'src/lib/mid.py', 'src/new.py', 'src/old.py', 'top.py']).toContain(l);
    });
    it('no match before the stop: the no-match line and the note', async () => {
      expect(await globTool(ctx, { pattern: '*.rs' }, { maxEntries: 3, maxMs: 60_000 })).toEqual(ok(`No files match *.rs\n${stopNote(3)}`));
    });
    it('the note survives the output cap', async () => {
      const r = await globTool({ ...ctx, maxOutputChars: 10 }, { pattern: '**' }, { maxEntries: 9, maxMs: 60_000 });
      expect(r.content).toContain('\n[... output cut at 10 characters; use offset/limit to read further ...]\n');
      expect(r.content.endsWith(`\n${stopNote(9)}`)).toBe(true);
    });
    it('past the time budget: it stops and says so', async () => {
      await writeTree(host, Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`t/f${i}.txt`, ''])));
      const r = await globTool(ctx, { pattern: '*.txt' }, { maxEntries: 100_000, maxMs: 1 });
      expect(r.content).toMatch(/\n\[stopped after 0\.001 s \(\d+ entries\): narrow the pattern or the path\]$/);
      expect(Number(/\((\d+) entries\)/.exec(r.content)![1])).toBeLessThan(3010);
    });
    it('keeps the 200 newest of many while walking: the same list as sorting them all', async () => {
      const names = Array.from({ length: 600 }, (_, i) => `r/d${i % 7}/f${i}.txt`);
      await writeTree(host, Object.fromEntries(names.map((n) => [n, ''])));
      const times = names.map((_, i) => 20_000 + ((i * 7919) % 250)); // many ties
      for (let i = 0; i < names.length; i++) await utimes(join(host, names[i]!), times[i]!, times[i]!);
      const expected = names
        .map((n, i) => ({ n, t: times[i]! }))
        .sort((a, b) => b.t - a.t || (a.n < b.n ? -1 : 1))
        .slice(0, 200)
        .map((x) => x.n);
      expect(await globTool(ctx, { pattern: 'r/**/*.txt' })).toEqual(ok(`${expected.join('\n')}\n[... 400 more; narrow the pattern ...]`));
    });
    it('120,000 files with ~3.5 KB paths and `**`: stops in seconds, heap and event loop stay free', { timeout: 120_000 }, async () => {
      // 12 nested folders, then 120 folders of 1000 empty files, every name 250 bytes (the red team's tree, scaled
      // down); each folder's files are hard links to its first (creating 120,000 inodes can take half a minute): 120,000 entries to walk
      const script = [
        'import os, sys',
        'fd = os.open(sys.argv[1], os.O_RDONLY)',
        'for i in range(12):',
        "    n = ('c%02d' % i).ljust(250, 'c'); os.mkdir(n, dir_fd=fd); nfd = os.open(n, os.O_RDONLY, dir_fd=fd); os.close(fd); fd = nfd",
        'for d in range(120):',
        "    n = ('d%03d' % d).ljust(250, 'd'); os.mkdir(n, dir_fd=fd); dfd = os.open(n, os.O_RDONLY, dir_fd=fd)",
        "    first = 'f0000'.ljust(250, 'f'); os.close(os.open(first, os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=dfd))",
        '    for f in range(1, 1000):',
        "        os.link(first, ('f%04d' % f).ljust(250, 'f'), src_dir_fd=dfd, dst_dir_fd=dfd)",
        '    os.close(dfd)',
      ].join('\n');
      const big = join(host, 'big');
      spawnSync('mkdir', [big]);
      try {
        const made = spawnSync('python3', ['-c', script, big], { encoding: 'utf8' });
        expect(made.stderr).toBe('');
        expect(made.status).toBe(0);
        const heap0 = process.memoryUsage().heapUsed;
        let peak = heap0;
        let last = performance.now();
        let gap = 0;
        const probe = setInterval(() => {
          const now = performance.now();
          gap = Math.max(gap, now - last);
          last = now;
          peak = Math.max(peak, process.memoryUsage().heapUsed);
        }, 10);
        const t0 = performance.now();
        let r;
        try {
          r = await globTool(ctx, { pattern: '**' });
        } finally {
          clearInterval(probe);
        }
        const took = performance.now() - t0;
        peak = Math.max(peak, process.memoryUsage().heapUsed);
        expect(r.isError).toBe(false);
        expect(r.content).toMatch(/\n\[stopped after (100000 entries|5 s \(\d+ entries\)): narrow the pattern or the path\]$/);
        expect(r.content).toContain('\n[... output cut at 30000 characters; use offset/limit to read further ...]\n');
        expect(took).toBeLessThan(8_000);
        expect(peak - heap0).toBeLessThan(100 * 1024 * 1024);
        expect(gap).toBeLessThan(500);
      } finally {
        spawnSync('rm', ['-rf', big]);
      }
    });
  });
});
