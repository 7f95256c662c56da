import { lchown, lstat, mkdir, open, readFile, stat } from 'node:fs/promises';
import { constants } from 'node:fs';
import { dirname, join } from 'node:path';
import type { z } from 'zod';
import type { LeafToolArgumentSchemas } from '../schema/trajectory.js';
import { compileGlob } from './globPattern.js';
import { walkGlob } from './globWalk.js';
import { quotePath } from './quotePath.js';
import { isBinary } from './repoDiff.js';
import { type RepoRoot, resolveRepoPath } from './repoPath.js';

/** What a file tool returns: the text of the `tool` message, and whether it is an error (`Error: ...`). */
export interface ToolOutput {
  /** The tool message's content. Errors start with `Error:`. */
  content: string;
  /** True for an `Error:` result. */
  isError: boolean;
}

/** The arguments of Leaf tool `T`, as its schema (SPEC §9) admits them. */
export type LeafToolArgs<T extends keyof typeof LeafToolArgumentSchemas> = z.output<(typeof LeafToolArgumentSchemas)[T]>;

/** Where the file tools act and the limits of their answers. */
export interface FileToolContext {
  /** The repo copy and its names. */
  root: RepoRoot;
  /** Owner for files and folders the tools create (the sandbox's user when frognano runs as root), or null. */
  owner: { uid: number; gid: number } | null;
  /** Characters of a tool answer kept (the rest is cut with a note). */
  maxOutputChars: number;
}

/** Lines `read` returns by default, and the longest line it shows whole (Claude Code's Read). */
export const READ_DEFAULT_LIMIT = 2000;
const READ_MAX_LINE = 2000;
/** Paths `glob` lists at most. */
export const GLOB_MAX_RESULTS = 200;
/**
 * Directory entries (files and folders, at any depth) `glob` looks at before it
 * stops with a note: bounds its time and memory in a tree of millions of files
 * (a normal repo checkout, its `.git` and `node_modules` aside, is far below).
 */
export const GLOB_MAX_ENTRIES = 100_000;
/** Milliseconds `glob` walks at most before it stops with a note (a slow disk, a costly pattern). */
export const GLOB_MAX_MS = 5_000;
/** Largest file `read` / `edit` open, in bytes. */
const MAX_FILE_BYTES = 10 * 1024 * 1024;

const err = (content: string): ToolOutput => ({ content: `Error: ${content}`, isError: true });
const ok = (content: string): ToolOutput => ({ content, isError: false });

function cap(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n[... output cut at ${max} characters; use offset/limit to read further ...]`;
}

/** Creates the missing folders of `dir` below the repo root, handing each to `owner`. */
async function mkdirs(ctx: FileToolContext, dir: string): Promise<void> {
  const first = await mkdir(dir, { recursive: true });
  if (first !== undefined && ctx.owner) {
    for (let d = dir; d.length >= first.length && d.startsWith(ctx.root.host); d = dirname(d)) await lchown(d, ctx.owner.uid, ctx.owner.gid);
  }
}

/** Writes `data` to the resolved host path without following a link at the last step. */
async function writeNoFollow(ctx: FileToolContext, host: string, data: string): Promise<void> {
  await mkdirs(ctx, dirname(host));
  const fh = await open(host, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o644);
  try {
    await fh.writeFile(data, 'utf8');
    if (ctx.owner) await fh.chown(ctx.owner.uid, ctx.owner.gid);
  } finally {
    await fh.close();
  }
}

async function readText(host: string, shown: string): Promise<string | ToolOutput> {
  const st = await stat(host);
  if (st.isDirectory()) return err(`${shown} is a directory; use glob or bash ls to list it`);
  if (!st.isFile()) return err(`${shown} is not a regular file`);
  if (st.size > MAX_FILE_BYTES) return err(`${shown} is ${st.size} bytes, larger than ${MAX_FILE_BYTES}; inspect it with bash (head, grep)`);
  const data = await readFile(host);
  if (isBinary(data)) return err(`${shown} is a binary file`);
  return data.toString('utf8');
}

/**
 * `read { file_path, offset?, limit? }`: the file's lines numbered as `cat -n`
 * (`     1\t...`), from line `offset` (1-based; 0 and 1 both mean the first
 * line) for `limit` lines (default 2000), lines over 2000 characters cut.
 */
export async function readTool(ctx: FileToolContext, args: LeafToolArgs<'read'>): Promise<ToolOutput> {
  const r = await resolveRepoPath(ctx.root, args.file_path);
  if (!r.ok) return err(r.reason);
  if (!r.exists) return err(`${args.file_path} does not exist`);
  const text = await readText(r.host, args.file_path);
  if (typeof text !== 'string') return text;
  if (text === '') return ok(`(${args.file_path} is empty)`);
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const from = Math.max(1, args.offset ?? 1);
  const limit = args.limit ?? READ_DEFAULT_LIMIT;
  if (from > lines.length) return err(`offset ${from} is past the end of ${args.file_path} (${lines.length} lines)`);
  const shown = lines.slice(from - 1, from - 1 + limit).map((l, i) => {
    const line = l.length > READ_MAX_LINE ? `${l.slice(0, READ_MAX_LINE)}[... line cut ...]` : l;
    return `${String(from + i).padStart(6)}\t${line}`;
  });
  const more = from - 1 + limit < lines.length ? `[... ${lines.length - (from - 1 + limit)} more lines; read with offset ${from + limit} ...]` : '';
  return ok(cap([...shown, ...(more ? [more] : [])].join('\n'), ctx.maxOutputChars));
}

/** `write { file_path, content }`: creates or replaces the file (and its folders). */
export async function writeTool(ctx: FileToolContext, args: LeafToolArgs<'write'>): Promise<ToolOutput> {
  const r = await resolveRepoPath(ctx.root, args.file_path);
  if (!r.ok) return err(r.reason);
  if (r.rel === '') return err(`${args.file_path} is the repository root, not a file`);
  if (r.exists && (await lstat(r.host)).isDirectory()) return err(`${args.file_path} is a directory`);
  await writeNoFollow(ctx, r.host, args.content);
  const lines = args.content === '' ? 0 : args.content.split('\n').length - (args.content.endsWith('\n') ? 1 : 0);
  return ok(`${r.exists ? 'Wrote' : 'Created'} ${args.file_path} (${lines} lines, ${Buffer.byteLength(args.content)} bytes)`);
}

/** `edit { file_path, old_string, new_string }`: replaces the one occurrence of `old_string`. */
export async function editTool(ctx: FileToolContext, args: LeafToolArgs<'edit'>): Promise<ToolOutput> {
  const r = await resolveRepoPath(ctx.root, args.file_path);
  if (!r.ok) return err(r.reason);
  if (!r.exists) return err(`${args.file_path} does not exist (use write to create a file)`);
  if (args.old_string === '') return err('old_string is empty; give the exact text to replace (use write to create a file)');
  if (args.old_string === args.new_string) return err('old_string and new_string are the same; nothing to change');
  const text = await readText(r.host, args.file_path);
  if (typeof text !== 'string') return text;
  const at = text.indexOf(args.old_string);
  if (at === -1) return err(`old_string was not found in ${args.file_path}; read the file and copy the text exactly, whitespace included`);
  const again = text.indexOf(args.old_string, at + 1);
  if (again !== -1) {
    let count = 2;
    for (let i = text.indexOf(args.old_string, again + 1); i !== -1; i = text.indexOf(args.old_string, i + 1)) count++;
    return err(`old_string occurs ${count} times in ${args.file_path}; include more surrounding lines so that it is unique`);
  }
  await writeNoFollow(ctx, r.host, text.slice(0, at) + args.new_string + text.slice(at + args.old_string.length));
  const line = text.slice(0, at).split('\n').length;
  return ok(`Edited ${args.file_path}: replaced 1 occurrence at line ${line}`);
}

/**
 * `glob { pattern, path? }`: files below `path` (default the repo root) matching
 * `pattern`, newest first (equal times in path order), skipping `.git` and
 * `node_modules` folders and never entering linked folders. Names are read as
 * bytes: a path that holds a control byte (a newline), DEL, `"`, `\` or bytes
 * that are not UTF-8 is listed C-quoted as git quotes it (`"src/caf\351.txt"`,
 * see {@link quotePath}), so it stays one unambiguous line, and is matched by
 * its UTF-8 decoding (an undecodable byte is U+FFFD, which `?` and `*` match).
 * A subfolder that cannot be read (gone meanwhile, unreadable, a path too long)
 * is left out; the other files are listed.
 *
 * Bounded for any tree the agent can make (see {@link walkGlob}): it looks at
 * most {@link GLOB_MAX_ENTRIES} entries and runs at most {@link GLOB_MAX_MS},
 * keeps only the {@link GLOB_MAX_RESULTS} newest matches in memory, and yields
 * to the event loop as it goes. When a bound stops it, the answer lists what
 * it kept and ends with one line saying so,
 * `[stopped after 100000 entries: narrow the pattern or the path]` (the match
 * counts then cover only the part walked). `limits` is for tests.
 */
export async function globTool(
  ctx: FileToolContext,
  args: LeafToolArgs<'glob'>,
  limits: { maxEntries: number; maxMs: number } = { maxEntries: GLOB_MAX_ENTRIES, maxMs: GLOB_MAX_MS },
): Promise<ToolOutput> {
  const matches = compileGlob(args.pattern);
  if (matches === null) return err(`invalid glob pattern ${JSON.stringify(args.pattern.slice(0, 100))}`);
  const r = await resolveRepoPath(ctx.root, args.path ?? '.');
  if (!r.ok) return err(r.reason);
  if (!r.exists) return err(`${args.path} does not exist`);
  if (!(await stat(r.host)).isDirectory()) return err(`${args.path} is not a directory`);
  const prefix = Buffer.from(r.rel === '' ? '' : `${r.rel}/`);
  const walk = await walkGlob(Buffer.from(r.host), matches, (rel) => quotePath(Buffer.concat([prefix, rel])), { keep: GLOB_MAX_RESULTS, ...limits });
  const stop =
    walk.stopped === null
      ? ''
      : `\n[stopped after ${walk.stopped === 'entries' ? `${walk.entries} entries` : `${limits.maxMs / 1000} s (${walk.entries} entries)`}: narrow the pattern or the path]`;
  if (walk.matched === 0) return ok(`No files match ${args.pattern}${stop}`);
  const shown = walk.hits.map((f) => f.shown);
  const more = walk.matched > GLOB_MAX_RESULTS ? `\n[... ${walk.matched - GLOB_MAX_RESULTS} more; narrow the pattern ...]` : '';
  return ok(cap(shown.join('\n') + more, ctx.maxOutputChars) + stop);
}
