/**
 * `frognano rollout --resume --out FILE`: the task groups an interrupted run
 * already wrote to FILE are kept and not run again.
 *
 * The rule. A task's group is complete in FILE when FILE holds exactly G lines
 * of its id, one per episode 0..G-1, each with the `provenance.taskHash` of
 * the task's record in the tasks file now (a task whose record changed since,
 * or a line written before frognano had provenance, is run again). FILE is
 * rewritten, atomically (a temporary file renamed over it), with only the lines
 * of complete groups, in their order, byte for byte; every other line (a
 * partial group, a changed task, a task no longer in the tasks file, a last
 * line cut short by a kill) is dropped. The tasks without a complete group
 * then run, and their groups are appended. A line that is not a rollout record
 * (not JSON, no `taskId` or `episode`) stops the run before anything is changed:
 * FILE may not be a rollout output at all; only the last line, when FILE does
 * not end with `\n`, may be a cut one (a whole record there is kept, its `\n`
 * added). A FILE that does not exist yet is an empty one.
 * @module
 */
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { RecordError, UsageError } from '../commands/index.js';
import type { LoadedLeafTask } from '../leaf/index.js';
import { openAppendFile, openOutputFile, type OutputFile } from './outputFile.js';
import { numberedLines, parseRolloutLine, ResumeLineSchema } from './rolloutLines.js';
import { InvalidInputError } from './run.js';

/** What `--resume` kept of FILE and what is left to run. */
export interface ResumePlan {
  /** The tasks without a complete group in FILE, in the tasks file's order. */
  todo: LoadedLeafTask[];
  /** Task groups kept. */
  keptGroups: number;
  /** Lines kept (keptGroups x G). */
  keptLines: number;
  /** Lines dropped from FILE. */
  droppedLines: number;
}

/** One line of FILE as `--resume` reads it. */
interface SeenLine {
  line: number;
  taskId: string;
  episode: number;
  taskHash: string | undefined;
}

/** The length of FILE's part that ends with its last `\n` (0 when it has none): what follows was cut, or never ended. */
async function terminatedLength(path: string, size: number): Promise<number> {
  const handle = await open(path, 'r');
  try {
    const chunk = Buffer.alloc(1 << 16);
    for (let end = size; end > 0; ) {
      const start = Math.max(0, end - chunk.length);
      const { bytesRead } = await handle.read(chunk, 0, end - start, start);
      const nl = chunk.subarray(0, bytesRead).lastIndexOf(0x0a);
      if (nl >= 0) return start + nl + 1;
      end = start;
    }
    return 0;
  } finally {
    await handle.close();
  }
}

/** An empty byte stream. */
async function* nothing(): AsyncGenerator<Buffer> {}

/** The lines of FILE's first `length` bytes (each ended by `\n`), numbered from 1. */
function headLines(path: string, length: number): AsyncGenerator<{ line: number; text: string }> {
  return numberedLines(length > 0 ? createReadStream(path, { start: 0, end: length - 1 }) : nothing(), path);
}

/** FILE's bytes after its last `\n`, as text, or undefined when they are not UTF-8 (a character cut in two). */
async function tailText(path: string, from: number, size: number): Promise<string | undefined> {
  const handle = await open(path, 'r');
  try {
    const bytes = Buffer.alloc(size - from);
    await handle.read(bytes, 0, bytes.length, from);
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (e) {
    if ((e as { code?: unknown }).code === 'ERR_ENCODING_INVALID_ENCODED_DATA') return undefined;
    throw e;
  } finally {
    await handle.close();
  }
}

/** The line number {@link scan} gives FILE's last line when it has no `\n` (it is written after every other kept line). */
const TAIL = 0;

/** What `--resume` reads of FILE: its rollout lines, and its unterminated last line (kept when it is a whole record, else cut). */
async function scan(path: string, size: number): Promise<{ lines: SeenLine[]; tail: string | undefined; cut: boolean; head: number }> {
  const head = await terminatedLength(path, size);
  const lines: SeenLine[] = [];
  const seen = (line: number, text: string): SeenLine => {
    const r = parseRolloutLine(ResumeLineSchema, text);
    return { line, taskId: r.taskId, episode: r.episode, taskHash: r.provenance?.taskHash };
  };
  for await (const { line, text } of headLines(path, head)) {
    try {
      lines.push(seen(line, text));
    } catch (e) {
      if (!(e instanceof RecordError)) throw e;
      throw new InvalidInputError(`${path} line ${line}: ${e.message} (--resume keeps the complete groups of an earlier rollout's --out; this line is not one of its records)`);
    }
  }
  if (head === size) return { lines, tail: undefined, cut: false, head };
  const raw = await tailText(path, head, size);
  const text = head === 0 ? raw?.replace(/^\uFEFF/, '') : raw; // a BOM only at the file's start
  if (text === undefined) return { lines, tail: undefined, cut: true, head };
  if (text.trim() === '') return { lines, tail: undefined, cut: false, head };
  try {
    lines.push(seen(TAIL, text));
    return { lines, tail: text, cut: false, head };
  } catch (e) {
    if (!(e instanceof RecordError)) throw e;
    return { lines, tail: undefined, cut: true, head }; // a write cut short by a kill
  }
}

/** The line numbers of the complete groups (see the module comment), and the ids of their tasks. */
function completeLines(lines: readonly SeenLine[], tasks: readonly LoadedLeafTask[], group: number): { keep: Set<number>; done: Set<string> } {
  const byTask = new Map<string, SeenLine[]>();
  for (const l of lines) byTask.set(l.taskId, [...(byTask.get(l.taskId) ?? []), l]);
  const keep = new Set<number>();
  const done = new Set<string>();
  for (const t of tasks) {
    const ls = byTask.get(t.id) ?? [];
    const episodes = new Set(ls.map((l) => l.episode));
    const complete = ls.length === group && episodes.size === group && ls.every((l) => l.episode < group && t.recordHash !== undefined && l.taskHash === t.recordHash);
    if (!complete) continue;
    done.add(t.id);
    for (const l of ls) keep.add(l.line);
  }
  return { keep, done };
}

/** Writes `text` to `stream`, waiting for it to be taken. */
function write(stream: NodeJS.WritableStream, text: string): Promise<void> {
  return new Promise((resolve, reject) => stream.write(text, (e) => (e ? reject(e) : resolve())));
}

/** Rewrites FILE atomically with only the lines numbered in `keep`, each as it was (and `tail`, FILE's unterminated last line, when kept). */
async function rewrite(path: string, head: number, keep: ReadonlySet<number>, tail: string | undefined): Promise<void> {
  const out = await openOutputFile(path, { atomic: true });
  try {
    // the rename replaces FILE only on commit, so reading FILE while the temporary file fills is safe
    for await (const { line, text } of headLines(path, head)) if (keep.has(line)) await write(out.stream, `${text}\n`);
    if (tail !== undefined && keep.has(TAIL)) await write(out.stream, `${tail}\n`);
    await out.commit();
  } catch (e) {
    await out.abort();
    throw e;
  }
}

/**
 * Prepares `--resume` on FILE (see the module comment): keeps the complete
 * groups of `tasks` (G = `group`), drops the other lines, and opens FILE to
 * append the groups still to run.
 * @throws UsageError when FILE is not a regular file; InvalidInputError naming
 *   `FILE line N` for a line that is not a rollout record
 */
export async function resumeRollout(path: string, tasks: readonly LoadedLeafTask[], group: number): Promise<{ plan: ResumePlan; out: OutputFile }> {
  const st = await stat(path).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return null;
    throw new UsageError(`cannot read --out ${path}: ${e.code ?? e.message}`);
  });
  if (st === null) return { plan: { todo: [...tasks], keptGroups: 0, keptLines: 0, droppedLines: 0 }, out: await openOutputFile(path, { atomic: false }) };
  if (!st.isFile()) throw new UsageError(`--resume needs --out to be a regular file (or a new one); ${path} is not`);
  const { lines, tail, cut, head } = await scan(path, st.size);
  const { keep, done } = completeLines(lines, tasks, group);
  const droppedLines = lines.length - keep.size + (cut ? 1 : 0);
  if (droppedLines > 0 || head < st.size) await rewrite(path, head, keep, tail);
  return { plan: { todo: tasks.filter((t) => !done.has(t.id)), keptGroups: done.size, keptLines: keep.size, droppedLines }, out: await openAppendFile(path) };
}
