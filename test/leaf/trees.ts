import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { scratchDir } from '../helpers/leafTask.js';

// Trees of files for the repoDiff and applyUnifiedDiff tests.

/** A fresh folder holding `files` (relative path -> content). */
export async function tree(files: Record<string, string | Buffer>): Promise<string> {
  const d = await scratchDir('frognano-diff-');
  for (const [p, c] of Object.entries(files)) {
    await mkdir(dirname(join(d, p)), { recursive: true });
    await writeFile(join(d, p), c);
  }
  return d;
}

/** Nine numbered lines, each ending in a newline. */
export const NINE = 'l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\n';
