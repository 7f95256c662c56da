import type { ToolDefinition } from '../llm/toolChat.js';
import { SANDBOX_REPO_ROOT } from './sandbox.js';

/**
 * The five Leaf tools (FrogNano §2; SPEC §9): the names and argument schemas of
 * a small subset of Claude Code's tool set, as the paper's harness took them, their
 * descriptions naming `root`, where the repository is in the sandbox (the task's
 * `environment.workdir`, SPEC §14; default {@link SANDBOX_REPO_ROOT}).
 */
export function leafToolDefinitions(root: string = SANDBOX_REPO_ROOT): readonly ToolDefinition[] {
  return [
    {
      name: 'read',
      description: `Read a text file of the repository. Returns its lines numbered like cat -n. Paths are relative to the repository root or absolute under ${root}. offset is the 1-based line to start at, limit the number of lines (default 2000).`,
      parameters: {
        type: 'object',
        properties: {
          file_path: { type: 'string', description: 'The file to read.' },
          offset: { type: 'integer', minimum: 0, description: 'The line number to start reading from (1-based).' },
          limit: { type: 'integer', minimum: 0, description: 'The number of lines to read.' },
        },
        required: ['file_path'],
        additionalProperties: false,
      },
    },
    {
      name: 'write',
      description: 'Create a file or replace its whole content. Parent folders are created.',
      parameters: {
        type: 'object',
        properties: {
          file_path: { type: 'string', description: 'The file to write.' },
          content: { type: 'string', description: 'The complete new content of the file.' },
        },
        required: ['file_path', 'content'],
        additionalProperties: false,
      },
    },
    {
      name: 'edit',
      description: 'Replace one exact occurrence of old_string in a file with new_string. old_string must match the file exactly (whitespace included) and occur exactly once; include surrounding lines to make it unique.',
      parameters: {
        type: 'object',
        properties: {
          file_path: { type: 'string', description: 'The file to modify.' },
          old_string: { type: 'string', description: 'The exact text to replace.' },
          new_string: { type: 'string', description: 'The text to replace it with.' },
        },
        required: ['file_path', 'old_string', 'new_string'],
        additionalProperties: false,
      },
    },
    {
      name: 'glob',
      description: 'List the files matching a glob pattern (e.g. "**/*.py", "src/**/*.ts"), newest first.',
      parameters: {
        type: 'object',
        properties: {
          pattern: { type: 'string', description: 'The glob pattern.' },
          path: { type: 'string', description: 'The folder to search in (default: the repository root).' },
        },
        required: ['pattern'],
        additionalProperties: false,
      },
    },
    {
      name: 'bash',
      description: `Run a bash command in the repository root (${root}) and return its output (stdout and stderr) and exit code. Each call starts a fresh shell: cd and variables do not carry over. There is no network. Long outputs are cut.`,
      parameters: {
        type: 'object',
        properties: { command: { type: 'string', description: 'The command to run.' } },
        required: ['command'],
        additionalProperties: false,
      },
    },
  ];
}

/** {@link leafToolDefinitions} for the default repository root `/repo`. */
export const LEAF_TOOL_DEFINITIONS: readonly ToolDefinition[] = leafToolDefinitions();

/**
 * Leaf's short system prompt (FrogNano §2: the paper omits planning modes,
 * permission dialogs, reminders, user-specific context and auxiliary tools), naming
 * `root`, where the repository is in the sandbox (default {@link SANDBOX_REPO_ROOT}).
 * The structural termination rule is stated once: an answer without a tool call ends the episode.
 */
export function leafSystemPrompt(root: string = SANDBOX_REPO_ROOT): string {
  return `You are a software engineering agent working in a code repository at ${root}. Resolve the issue the user describes by changing the repository's files.

You have five tools: read, write, edit, glob and bash. Call them as needed; their results come back to you. Investigate the code, make the change, and check it (for example by running the tests).

When you are done, reply with a short summary of your change and no tool call: a reply without a tool call ends the task, and the repository is then graded by hidden tests.`;
}

/** {@link leafSystemPrompt} for the default repository root `/repo`. */
export const LEAF_SYSTEM_PROMPT = leafSystemPrompt();
