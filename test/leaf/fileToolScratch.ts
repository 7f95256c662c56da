import { spawnSync } from 'node:child_process';
import type { FileToolContext, ToolOutput } from '../../src/leaf/fileTools.js';
import { scratchDir } from '../helpers/leafTask.js';

// The setup shared by the file tools' tests (src/leaf/fileTools.*.test.ts).

/** A fresh repo folder and a file-tool context on it (`/repo` and the host path as its names, no owner). */
export async function fileToolScratch(): Promise<{ host: string; ctx: FileToolContext }> {
  const host = await scratchDir('frognano-filetools-');
  return { host, ctx: { root: { host, aliases: ['/repo', host] }, owner: null, maxOutputChars: 30000 } };
}

/** A successful tool answer. */
export const ok = (content: string): ToolOutput => ({ content, isError: false });
/** An `Error:` tool answer. */
export const error = (content: string): ToolOutput => ({ content: `Error: ${content}`, isError: true });
/** Whether `mkfifo` is here (the FIFO cases are skipped without it). */
export const hasMkfifo = spawnSync('mkfifo', ['--version']).status === 0;
