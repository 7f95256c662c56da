/**
 * Which files of a snapshot are source and which are tests, by simple path rules
 * (SPEC §15 `mutation`):
 * - never entered: `.git`, `node_modules`, any folder starting with `.` (`.venv`, `.tox`),
 *   `venv`, `__pycache__`, `site-packages`, `vendor`, `vendored`, `third_party`, `dist`, `build`;
 * - a test file: under a folder named `test`, `tests`, `testing`, `__tests__` or `spec`, or
 *   named `test_*.py`, `*_test.py`, `conftest.py`, `*.test.<ext>`, `*.spec.<ext>`;
 * - a source file: any other file `languageOf` reads (`.py`, `.js`, `.mjs`, `.cjs`, `.jsx`,
 *   `.ts`, `.mts`, `.cts`, `.tsx`; not `.d.ts`), at most 256 KiB (larger ones are
 *   generated or minified), other than `setup.py`.
 * @module
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { languageOf } from './parser.js';

const SKIPPED_DIRS = new Set(['node_modules', 'venv', '__pycache__', 'site-packages', 'vendor', 'vendored', 'third_party', 'dist', 'build']);
const TEST_DIRS = new Set(['test', 'tests', 'testing', '__tests__', 'spec']);
const MAX_SOURCE_BYTES = 256 * 1024;

/** True when the relative path `rel` (`/`-separated) is a test file by the rules above. */
export function isTestPath(rel: string): boolean {
  const parts = rel.split('/');
  const name = parts[parts.length - 1]!;
  if (parts.slice(0, -1).some((p) => TEST_DIRS.has(p))) return true;
  return /^test_.*\.py$|_test\.py$|^conftest\.py$|\.(test|spec)\.[a-z]+$/.test(name);
}

/** The snapshot's files split into source and test files (relative paths, sorted). */
export async function listRepoFiles(repoDir: string): Promise<{ source: string[]; tests: string[] }> {
  const source: string[] = [];
  const tests: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    const entries = await readdir(join(repoDir, rel), { withFileTypes: true });
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const path = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (!e.name.startsWith('.') && !SKIPPED_DIRS.has(e.name)) await walk(path);
      } else if (e.isFile() && languageOf(path) !== null) {
        if (isTestPath(path)) tests.push(path);
        else if (e.name !== 'setup.py' && (await stat(join(repoDir, path))).size <= MAX_SOURCE_BYTES) source.push(path);
      }
    }
  };
  await walk('');
  return { source, tests };
}
