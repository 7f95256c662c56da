import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { scratchDir } from '../../test/helpers/leafTask.js';
import { findExecutable, isExecutable } from './findExecutable.js';

let dir: string;
/** `dir/<folder>/<name>`, executable unless `plain`. */
async function program(folder: string, name: string, plain = false): Promise<string> {
  await mkdir(join(dir, folder), { recursive: true });
  const p = join(dir, folder, name);
  await writeFile(p, '#!/bin/sh\n');
  if (!plain) await chmod(p, 0o755);
  return p;
}

beforeAll(async () => {
  dir = await scratchDir('frognano-findexec-');
});

describe('findExecutable', () => {
  it('isExecutable: a regular executable file only (not a plain file, a folder or a missing path)', async () => {
    expect(isExecutable(await program('x', 'yes'))).toBe(true);
    expect(isExecutable(await program('x', 'no', true))).toBe(false);
    expect(isExecutable(join(dir, 'x'))).toBe(false);
    expect(isExecutable(join(dir, 'missing'))).toBe(false);
  });
  it('names are tried in order, each over every PATH folder', async () => {
    await program('p1', 'second');
    const first = await program('p2', 'first');
    const env = { PATH: `${join(dir, 'p1')}:${join(dir, 'p2')}` };
    expect(findExecutable(['first', 'second'], { envVar: 'X_BIN', env })).toBe(first);
  });
  it('an explicit path or the variable is never replaced by a search', async () => {
    const env = { PATH: join(dir, 'p2'), X_BIN: join(dir, 'missing') };
    expect(findExecutable(['first'], { envVar: 'X_BIN', env })).toBeNull();
    expect(findExecutable(['first'], { envVar: 'X_BIN', env: { PATH: env.PATH }, explicit: join(dir, 'missing') })).toBeNull();
  });
  it('the fallbacks come after PATH', async () => {
    const fallback = await program('fb', 'tool');
    expect(findExecutable(['tool'], { envVar: 'X_BIN', env: { PATH: '' }, fallbacks: [join(dir, 'missing'), fallback] })).toBe(fallback);
    expect(findExecutable(['tool'], { envVar: 'X_BIN', env: {} })).toBeNull();
  });
});
