/**
 * What the TaskPilot generator is shown of a repository snapshot (SPEC §15): a
 * bounded file listing and a bounded selection of file contents, deterministic
 * for a given tree.
 * @module
 */
import { lstat, open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../../errors/FrognanoError.js';
import { parseOptions } from '../../errors/validate.js';
import { gitignoreOf } from '../../leaf/gitignoreRules.js';
import { isTestPath } from '../mutation/repoFiles.js';

/** Folders never listed (besides what the snapshot's `.gitignore` files ignore). */
export const REPO_VIEW_SKIPPED_DIRS: readonly string[] = Object.freeze(['.git', 'node_modules']);

/** Options of {@link repoView}. */
export const RepoViewOptionsSchema = z
  .object({
    /** The most paths listed (integer >= 1); the rest are counted in `unlisted`. Default 500. */
    maxListed: z.number().int().min(1).default(500),
    /** The byte budget of all shown contents together (integer >= 0). Default 48000. */
    maxBytes: z.number().int().min(0).default(48_000),
    /** A file larger than this is never shown (integer >= 0). Default 8000. */
    maxFileBytes: z.number().int().min(0).default(8_000),
    /** Respect the snapshot's `.gitignore` files (default `true`). */
    gitignore: z.boolean().default(true),
  })
  .strict();
/** Options of {@link repoView} (the input type of {@link RepoViewOptionsSchema}). */
export type RepoViewOptions = z.input<typeof RepoViewOptionsSchema>;

/** A file whose content is shown. */
export interface RepoViewFile {
  /** Relative POSIX path. */
  path: string;
  /** Its UTF-8 text. */
  content: string;
}

/** What {@link repoView} returns. */
export interface RepoView {
  /** The snapshot folder (as given). */
  repoDir: string;
  /** Relative POSIX paths of the listed files, sorted (code-unit order), at most `maxListed`. */
  files: string[];
  /** Files found but left out of `files` (over `maxListed`). */
  unlisted: number;
  /** The files whose contents are shown, sorted by path. */
  contents: RepoViewFile[];
  /** Files not shown: too large, binary, or over the byte budget. */
  omitted: number;
  /** Bytes of the shown contents. */
  bytes: number;
}

const SOURCE_EXT = /\.(py|pyi|[cm]?[jt]sx?|go|rs|java|kt|rb|php|c|h|cc|cpp|hpp|cs|swift|scala|sh|lua|r|jl|ex|exs|hs|ml|clj)$/i;

/** The test-file rule of the mutation source (one definition for both sources). */
export { isTestPath };

/**
 * The generator's view of the snapshot at `repoDir`.
 *
 * Listing: every regular file below `repoDir` (symbolic links and special files
 * left out), skipping {@link REPO_VIEW_SKIPPED_DIRS} and, by default, what the
 * snapshot's `.gitignore` files ignore; sorted by path, at most `maxListed`.
 *
 * Contents, a documented rule: among the listed files of at most `maxFileBytes`
 * bytes that are text (valid UTF-8, no NUL byte), source files (by extension:
 * `.py`, `.js`, `.ts`, ..., tests included) come first, then the other text files
 * (README, configs); within each group the smaller file first, ties by path.
 * Files are taken in that order while they fit the remaining `maxBytes` (a file
 * that does not fit is skipped and smaller ones after it may still be taken).
 * The same tree always gives the same view.
 *
 * @throws FrognanoError `INVALID_TYPE` when `repoDir` is not a folder (or for a bad option); `OUT_OF_RANGE` for an option out of range
 */
export async function repoView(repoDir: string, opts?: RepoViewOptions): Promise<RepoView> {
  const fn = 'repoView';
  const o = parseOptions(fn, RepoViewOptionsSchema, opts);
  if (typeof repoDir !== 'string' || repoDir === '') throw new FrognanoError(ErrorCode.INVALID_TYPE, 'repoDir must be a non-empty string', { fn, field: 'repoDir' });
  const st = await lstat(repoDir).catch(() => null);
  if (!st?.isDirectory()) throw new FrognanoError(ErrorCode.INVALID_TYPE, `repoDir must be a folder, got ${JSON.stringify(repoDir)}`, { fn, field: 'repoDir' });
  const ignored = o.gitignore ? await gitignoreOf(repoDir) : () => false;
  const all: { path: string; size: number }[] = [];
  const walk = async (rel: string): Promise<void> => {
    const entries = await readdir(join(repoDir, rel), { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const p = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (REPO_VIEW_SKIPPED_DIRS.includes(e.name) || ignored(`${p}/`)) continue;
        await walk(p);
      } else if (e.isFile() && !ignored(p)) {
        all.push({ path: p, size: (await lstat(join(repoDir, p))).size });
      }
    }
  };
  await walk('');
  all.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const listed = all.slice(0, o.maxListed);
  const order = listed
    .filter((f) => f.size <= o.maxFileBytes)
    .sort((a, b) => Number(!SOURCE_EXT.test(a.path)) - Number(!SOURCE_EXT.test(b.path)) || a.size - b.size || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const contents: RepoViewFile[] = [];
  let bytes = 0;
  for (const f of order) {
    if (bytes + f.size > o.maxBytes) continue;
    const text = await readText(join(repoDir, f.path), f.size);
    if (text === null) continue;
    contents.push({ path: f.path, content: text });
    bytes += f.size;
  }
  contents.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { repoDir, files: listed.map((f) => f.path), unlisted: all.length - listed.length, contents, omitted: listed.length - contents.length, bytes };
}

/** The file's text, or null when binary (a NUL byte, or not valid UTF-8). */
async function readText(file: string, size: number): Promise<string | null> {
  const h = await open(file, 'r');
  try {
    const buf = Buffer.alloc(size);
    const { bytesRead } = await h.read(buf, 0, size, 0);
    const b = buf.subarray(0, bytesRead);
    if (b.includes(0)) return null;
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(b);
    } catch {
      return null;
    }
  } finally {
    await h.close();
  }
}

/** Renders a view as prompt text: the listing, then each shown file in a fenced block headed by its path. */
export function renderRepoView(view: RepoView): string {
  const lines = ['Files of the repository:', ...view.files.map((f) => `  ${f}`)];
  if (view.unlisted > 0) lines.push(`  ... and ${view.unlisted} more file(s)`);
  lines.push('', `Contents of ${view.contents.length} file(s)${view.omitted > 0 ? ` (${view.omitted} listed file(s) not shown)` : ''}:`);
  for (const f of view.contents) {
    const fence = f.content.includes('```') ? '~~~~' : '```';
    lines.push('', `--- ${f.path}`, fence, f.content.endsWith('\n') ? f.content.slice(0, -1) : f.content, fence);
  }
  return lines.join('\n');
}
