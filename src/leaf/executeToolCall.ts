import { errorFromZodIssue } from '../errors/errorFromZodIssue.js';
import { isFrognanoError } from '../errors/FrognanoError.js';
import { LeafToolArgumentSchemas, LEAF_TOOLS, type LeafTool } from '../schema/trajectory.js';
import { editTool, type FileToolContext, globTool, type LeafToolArgs, readTool, type ToolOutput, writeTool } from './fileTools.js';
import type { Sandbox } from './sandbox.js';

/** Everything a tool call needs: the file tools' context, the sandbox and the time left. */
export interface ToolRunContext extends FileToolContext {
  /** Runs bash calls. */
  sandbox: Sandbox;
  /** Time limit of this bash call in milliseconds (`commandSeconds`, or less when the episode's time runs out). */
  commandTimeoutMs: number;
  /** Kills a running command when aborted. */
  signal?: AbortSignal;
}

/** A tool call's result: the `tool` message text plus what the harness records about it. */
export interface ToolCallResult extends ToolOutput {
  /** bash: the exit code (null when killed). */
  exitCode?: number | null;
  /** bash: killed at its time limit. */
  timedOut?: boolean;
  /** Wall time of the call in milliseconds. */
  durationMs: number;
}

const isLeafTool = (name: string): name is LeafTool => (LEAF_TOOLS as readonly string[]).includes(name);

/**
 * Runs one tool call of the agent (FrogNano §2; SPEC §12) and returns the
 * text of its `tool` message. A failing call never throws: an unknown tool,
 * arguments that are not a JSON object or miss a field, a path outside the
 * repository, a missing file, or an `edit` whose `old_string` is absent or not
 * unique all give a result starting with `Error:`, and the episode goes on. A
 * bash call reports its output (stdout and stderr interleaved, capped) and exit
 * code; one killed at its time limit says so in an `Error:` result.
 *
 * @param name - the tool name the model called
 * @param args - the parsed arguments, or a string explaining why they could not be parsed
 */
export async function executeToolCall(ctx: ToolRunContext, name: string, args: Record<string, unknown> | string): Promise<ToolCallResult> {
  const t0 = performance.now();
  const done = (r: ToolOutput & { exitCode?: number | null; timedOut?: boolean }): ToolCallResult => ({ ...r, durationMs: performance.now() - t0 });
  if (!isLeafTool(name)) return done({ content: `Error: unknown tool ${JSON.stringify(name)}; the tools are ${LEAF_TOOLS.join(', ')}`, isError: true });
  if (typeof args === 'string') return done({ content: `Error: the arguments of ${name} are not a JSON object: ${args}`, isError: true });
  const parsed = LeafToolArgumentSchemas[name].safeParse(args);
  // the issue worded as every frognano boundary words it (`file_path is required (a string)`)
  if (!parsed.success) return done({ content: `Error: invalid arguments for ${name}: ${errorFromZodIssue(parsed.error.issues[0]!, args).message}`, isError: true });
  try {
    switch (name) {
      case 'read':
        return done(await readTool(ctx, parsed.data as LeafToolArgs<'read'>));
      case 'write':
        return done(await writeTool(ctx, parsed.data as LeafToolArgs<'write'>));
      case 'edit':
        return done(await editTool(ctx, parsed.data as LeafToolArgs<'edit'>));
      case 'glob':
        return done(await globTool(ctx, parsed.data as LeafToolArgs<'glob'>));
      case 'bash': {
        const { command } = parsed.data as LeafToolArgs<'bash'>;
        if (command.trim() === '') return done({ content: 'Error: the command is empty', isError: true });
        if (command.includes('\0')) return done({ content: 'Error: the command contains a NUL character', isError: true });
        const r = await ctx.sandbox.run(ctx.root.host, command, { timeoutMs: ctx.commandTimeoutMs, signal: ctx.signal });
        if (r.timedOut) {
          const secs = Math.round(ctx.commandTimeoutMs / 100) / 10;
          return done({ content: `Error: the command timed out after ${secs} s and was killed with every process it started.\n${r.output}`, isError: true, exitCode: null, timedOut: true });
        }
        if (r.aborted) return done({ content: 'Error: the command was stopped (the run is shutting down)', isError: true, exitCode: null });
        const body = r.output === '' ? '(no output)\n' : r.output.endsWith('\n') ? r.output : `${r.output}\n`;
        return done({ content: `${body}[exit code: ${r.exitCode ?? 'killed'}]`, isError: false, exitCode: r.exitCode, timedOut: false });
      }
    }
  } catch (e) {
    // a sandbox that cannot run is the harness's failure, not the agent's: it stops the run
    if (isFrognanoError(e, 'SANDBOX_UNAVAILABLE') || !(e instanceof Error)) throw e;
    // anything else the call provoked (a file-system error on a path the agent made) is its result
    const code = (e as NodeJS.ErrnoException).code;
    return done({ content: `Error: ${name} failed: ${typeof code === 'string' ? `${code} (${e.message})` : e.message}`, isError: true });
  }
}
