import { execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copyTree } from './copyTree.js';
import { createWorkspace } from './workspace.js';

const isRoot = process.getuid?.() === 0;
let tmp: string;
beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'frognano-copytree-'));
});
afterEach(() => {
  execFileSync('chmod', ['-R', 'u+rwx', tmp]);
  rmSync(tmp, { recursive: true, force: true });
});

/** Every entry below `root`: relative path -> kind, mode bits, link target or content. */
function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = lstatSync(p);
      const rel = relative(root, p);
      const mode = (st.mode & 0o7777).toString(8);
      if (st.isSymbolicLink()) out[rel] = `link ${readlinkSync(p)}`;
      else if (st.isDirectory()) {
        out[rel] = `dir ${mode}`;
        visit(p);
      } else if (st.isFile()) out[rel] = `file ${mode} ${readFileSync(p).toString('base64')}`;
      else out[rel] = 'other';
    }
  };
  visit(root);
  return out;
}

function makeSource(): string {
  const src = join(tmp, 'src');
  mkdirSync(join(src, 'a/b/c'), { recursive: true });
  mkdirSync(join(src, 'empty'));
  writeFileSync(join(src, 'plain.txt'), 'hello\n');
  writeFileSync(join(src, 'run.sh'), '#!/bin/sh\necho hi\n', { mode: 0o755 });
  writeFileSync(join(src, 'secret'), 'x', { mode: 0o600 });
  writeFileSync(join(src, 'a/b/c/deep.py'), 'def f():\n    return 1\n');
  writeFileSync(join(src, 'big.bin'), Buffer.alloc(3 * 1024 * 1024 + 17, 7));
  writeFileSync(join(src, 'zero'), '');
  symlinkSync('plain.txt', join(src, 'rel-link'));
  symlinkSync('/etc/passwd', join(src, 'abs-link'));
  symlinkSync('does/not/exist', join(src, 'dangling'));
  symlinkSync('a', join(src, 'dir-link'));
  symlinkSync('../../plain.txt', join(src, 'a/b/up-link'));
  for (let i = 0; i < 300; i++) writeFileSync(join(src, 'a', `f${i}.js`), `module.exports = ${i};\n`);
  mkdirSync(join(src, 'ro'));
  writeFileSync(join(src, 'ro/inside'), 'kept');
  chmodSync(join(src, 'ro'), 0o555);
  return src;
}

describe('copyTree', () => {
  it('copies files with contents and mode bits, folders with modes, links verbatim', async () => {
    const src = makeSource();
    const dest = join(tmp, 'dest');
    const r = await copyTree(src, dest);
    expect(snapshot(dest)).toEqual(snapshot(src));
    expect(r).toMatchObject({ links: 5, skipped: 0 });
    expect(r.files).toBe(307);
    expect(lstatSync(join(dest, 'dir-link')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(dest, 'abs-link'))).toBe('/etc/passwd');
    expect(lstatSync(join(dest, 'run.sh')).mode & 0o777).toBe(0o755);
    expect(lstatSync(join(dest, 'ro')).mode & 0o777).toBe(0o555);
  });

  it('gives the same tree as fs.promises.cp (the former copy)', async () => {
    const src = makeSource();
    const { cp } = await import('node:fs/promises');
    await cp(src, join(tmp, 'old'), { recursive: true, verbatimSymlinks: true, dereference: false, preserveTimestamps: false });
    await copyTree(src, join(tmp, 'new'), { concurrency: 3 });
    expect(snapshot(join(tmp, 'new'))).toEqual(snapshot(join(tmp, 'old')));
  });

  it('skips FIFOs and sockets', async () => {
    const src = join(tmp, 'src');
    mkdirSync(src);
    writeFileSync(join(src, 'keep'), 'k');
    execFileSync('mkfifo', [join(src, 'fifo')]);
    const server = createServer();
    await new Promise<void>((res) => server.listen(join(src, 'sock'), res));
    try {
      const r = await copyTree(src, join(tmp, 'dest'));
      expect(r.skipped).toBe(2);
      expect(readdirSync(join(tmp, 'dest'))).toEqual(['keep']);
    } finally {
      server.close();
    }
  });

  it('refuses a destination that exists and a root that is not a folder', async () => {
    const src = makeSource();
    mkdirSync(join(tmp, 'there'));
    await expect(copyTree(src, join(tmp, 'there'))).rejects.toThrow(/EEXIST/);
    symlinkSync(src, join(tmp, 'root-link'));
    await expect(copyTree(join(tmp, 'root-link'), join(tmp, 'x'))).rejects.toThrow(/not a folder/);
  });

  it.runIf(isRoot)('gives every entry, links included, to the owner', async () => {
    const src = makeSource();
    const dest = join(tmp, 'dest');
    await copyTree(src, dest, { owner: { uid: 65534, gid: 65534 } });
    const bad: string[] = [];
    const visit = (d: string): void => {
      for (const name of readdirSync(d)) {
        const p = join(d, name);
        const st = lstatSync(p);
        if (st.uid !== 65534 || st.gid !== 65534) bad.push(p);
        if (st.isDirectory()) visit(p);
      }
    };
    visit(dest);
    expect(bad).toEqual([]);
    expect(lstatSync(dest).uid).toBe(65534);
    expect(lstatSync('/etc/passwd').uid).toBe(0); // the absolute link was not followed
  });
});

describe('createWorkspace with copyTree', () => {
  it('copies a symlinked repo root as its target content, and keeps links inside', async () => {
    const src = makeSource();
    symlinkSync(src, join(tmp, 'repo-link'));
    const ws = await createWorkspace(join(tmp, 'repo-link'), { parent: tmp });
    try {
      expect(lstatSync(ws.repo).isDirectory()).toBe(true);
      expect(snapshot(ws.repo)).toEqual(snapshot(src));
    } finally {
      await ws.dispose();
    }
  });
});
