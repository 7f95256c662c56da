/**
 * playwright-core is an optional peer dependency: importing frognano (the root,
 * every subpath, `frognano/webjudge` included) must not load it; only launching
 * a browser does. Checked in a fresh Node process from the sources: after the
 * imports, no module of playwright-core is in the CommonJS cache (where Node puts
 * the package, which is CommonJS, also when ESM imports it), and the control
 * import does put it there.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
/** Every module folder with an index (the package's subpaths and the internal shared ones). */
const SUBPATHS = readdirSync(resolve(ROOT, 'src'), { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(resolve(ROOT, 'src', d.name, 'index.ts')))
  .map((d) => d.name);

function loadedAfter(imports: string[]): string {
  const script = [
    "import { createRequire } from 'node:module';",
    'const require = createRequire(import.meta.url);',
    ...imports.map((p) => `await import(${JSON.stringify(p)});`),
    "console.log(JSON.stringify(Object.keys(require.cache).filter((k) => k.includes('playwright-core'))));",
  ].join('\n');
  return execFileSync(process.execPath, ['--conditions=@frognano/source', '--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 }).trim();
}

describe('playwright-core loads lazily', () => {
  it('importing the root and every subpath (webjudge included) does not load it; importing it does', () => {
    expect(SUBPATHS).toContain('webjudge');
    const all = ['./src/index.ts', ...SUBPATHS.map((n) => `./src/${n}/index.ts`)];
    expect(JSON.parse(loadedAfter(all))).toEqual([]);
    const control = JSON.parse(loadedAfter(['./src/webjudge/index.ts', 'playwright-core'])) as string[];
    expect(control.length).toBeGreaterThan(0);
  }, 120_000);
});
