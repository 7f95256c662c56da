import { describe, expect, it } from 'vitest';
import { fileToolScratch } from '../../test/leaf/fileToolScratch.js';
import { executeToolCall, type ToolRunContext } from './executeToolCall.js';
import type { Sandbox } from './sandbox.js';

/** A context whose sandbox must not be reached: these calls fail before any command runs. */
async function context(): Promise<ToolRunContext> {
  const { ctx } = await fileToolScratch();
  const sandbox = { run: () => Promise.reject(new Error('the sandbox was called')) } as unknown as Sandbox;
  return { ...ctx, sandbox, commandTimeoutMs: 1000 };
}

describe('executeToolCall: calls that fail before running', () => {
  it('an unknown tool', async () => {
    const r = await executeToolCall(await context(), 'search', {});
    expect(r).toMatchObject({ content: 'Error: unknown tool "search"; the tools are read, write, edit, glob, bash', isError: true });
  });
  it('arguments that are not a JSON object', async () => {
    const r = await executeToolCall(await context(), 'read', 'malformed JSON (x)');
    expect(r).toMatchObject({ content: 'Error: the arguments of read are not a JSON object: malformed JSON (x)', isError: true });
  });
  it('a missing argument, worded as every frognano boundary words a zod issue', async () => {
    const r = await executeToolCall(await context(), 'read', {});
    expect(r).toMatchObject({ content: 'Error: invalid arguments for read: file_path is required (a string)', isError: true });
  });
  it('an argument of the wrong type', async () => {
    const r = await executeToolCall(await context(), 'bash', { command: 7 });
    expect(r).toMatchObject({ content: 'Error: invalid arguments for bash: command must be a string, got 7', isError: true });
  });
  it('a fractional line offset', async () => {
    const r = await executeToolCall(await context(), 'read', { file_path: 'a.txt', offset: 1.5 });
    expect(r).toMatchObject({ content: 'Error: invalid arguments for read: offset must be an integer, got 1.5', isError: true });
  });
  it('an empty bash command', async () => {
    const r = await executeToolCall(await context(), 'bash', { command: '  ' });
    expect(r).toMatchObject({ content: 'Error: the command is empty', isError: true });
  });
});
