import { lstat, readdir, readFile } from 'node:fs/promises';
import { extname, join, relative } from 'node:path';
import { clipText } from './text.js';

/** Extensions read as source (lower case). */
export const SOURCE_EXTENSIONS: ReadonlySet<string> = new Set([
  '.html', '.htm', '.css', '.scss', '.sass', '.less', '.js', '.mjs', '.cjs', '.jsx', '.ts', '.tsx', '.vue', '.svelte',
  '.json', '.svg', '.md', '.txt', '.py', '.go', '.rb', '.php', '.sh', '.toml', '.yaml', '.yml',
]);
/** Folders never read: dependencies, VCS data, caches. */
const SKIP_DIRS = new Set(['node_modules', '.git', '.hg', '.svn', '__pycache__', '.cache', '.next', '.venv', 'venv']);

/** The app's sources as the judge sees them, and what was left out. */
export interface AppSources {
  /** `### path` headers and contents, capped. */
  text: string;
  /** Files shown (possibly clipped). */
  shown: string[];
  /** Files left out (over the total cap or the file count). */
  omitted: string[];
  /** Characters cut from files that were shown. */
  cutChars: number;
}

/**
 * Reads the app's source files for the judge (Verification Horizon §3.2: the
 * judge sees the recording "together with the source code"): files with a
 * {@link SOURCE_EXTENSIONS} extension below `dir` (symbolic links not followed;
 * `node_modules`, `.git` and caches skipped), `index.html` first, then by path;
 * each file clipped to `maxFileChars` (head and tail, with a note), and files
 * added until `maxChars` is reached; a closing note lists what was left out.
 */
export async function readAppSources(dir: string, maxChars: number, maxFileChars: number, maxFiles = 400): Promise<AppSources> {
  const files: string[] = [];
  const walk = async (d: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(d, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (files.length >= maxFiles) return;
      const p = join(d, e.name);
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name) && !e.name.startsWith('.')) await walk(p);
      } else if (e.isFile() && SOURCE_EXTENSIONS.has(extname(e.name).toLowerCase()) && !e.name.startsWith('.')) {
        files.push(p);
      }
    }
  };
  const st = await lstat(dir).catch(() => null);
  if (st?.isDirectory()) await walk(dir);
  const rel = files.map((f) => relative(dir, f));
  const order = rel.map((_, i) => i).sort((a, b) => Number(rel[b] === 'index.html') - Number(rel[a] === 'index.html') || (rel[a]! < rel[b]! ? -1 : 1));
  const parts: string[] = [];
  const shown: string[] = [];
  const omitted: string[] = [];
  let used = 0;
  let cutChars = 0;
  for (const i of order) {
    const name = rel[i]!;
    if (used >= maxChars) {
      omitted.push(name);
      continue;
    }
    let body: string;
    try {
      body = await readFile(files[i]!, 'utf8');
    } catch {
      continue;
    }
    const budget = Math.max(200, Math.min(maxFileChars, maxChars - used));
    const clipped = clipText(body, budget);
    if (clipped.length < body.length) cutChars += body.length - budget;
    parts.push(`### ${name}\n${clipped}`);
    shown.push(name);
    used += clipped.length;
  }
  const notes: string[] = [];
  if (cutChars > 0) notes.push(`${cutChars} characters were cut from long files (marked in place)`);
  if (omitted.length > 0) notes.push(`${omitted.length} more file(s) not shown: ${omitted.slice(0, 20).join(', ')}${omitted.length > 20 ? ', ...' : ''}`);
  if (files.length >= maxFiles) notes.push(`only the first ${maxFiles} files were listed`);
  const text = parts.length ? parts.join('\n\n') + (notes.length ? `\n\n[source cut: ${notes.join('; ')}]` : '') : '(no source files found)';
  return { text, shown, omitted, cutChars };
}
