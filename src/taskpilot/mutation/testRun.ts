/**
 * One run of the snapshot's tests on a fresh copy (a leaf workspace), through the sandbox,
 * read per test with the log format's parser (SPEC §14, §15).
 * @module
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Sandbox } from '../../leaf/sandbox.js';
import { GRADING_ENV } from '../../leaf/runGradingTests.js';
import { TEST_LOG_PARSERS, type TestResult } from '../../leaf/testLogs/index.js';
import { createWorkspace } from '../../leaf/workspace.js';
import type { CommandResult } from '../../leaf/sandboxProcess.js';

/** The log formats `mutation` reads (those whose results come from the command's output). */
export const MUTATION_LOG_FORMATS = ['pytest', 'unittest', 'tap'] as const;
/** One of {@link MUTATION_LOG_FORMATS}. */
export type MutationLogFormat = (typeof MUTATION_LOG_FORMATS)[number];

/** Characters of the log kept for the parser. */
const LOG_CHARS = 16 * 1024 * 1024;

/** What one run gave. */
export interface SuiteRun {
  results: TestResult[];
  run: CommandResult;
}

/** Runs `command` on a copy (with `COLUMNS=1000`: pytest's short summary keeps whole messages) of `repoDir` with `overrides` (path -> content) written in, and parses its log. */
export async function runSuite(repoDir: string, overrides: Readonly<Record<string, string>>, o: { command: string; log: MutationLogFormat; sandbox: Sandbox; timeoutMs: number; signal?: AbortSignal; tmpDir?: string }): Promise<SuiteRun> {
  const ws = await createWorkspace(repoDir, { owner: o.sandbox.owner, parent: o.tmpDir, repoMB: o.sandbox.options?.repoMB });
  try {
    for (const [path, content] of Object.entries(overrides)) await writeFile(join(ws.repo, path), content);
    const run = await o.sandbox.run(ws.repo, o.command, { timeoutMs: o.timeoutMs, signal: o.signal, env: { ...GRADING_ENV, COLUMNS: '1000' }, maxOutputChars: LOG_CHARS });
    return { results: TEST_LOG_PARSERS[o.log](run.output), run };
  } finally {
    await ws.dispose();
  }
}

/** The ids whose status in `results` is one of `statuses`. */
export function idsWith(results: readonly TestResult[], statuses: readonly string[]): Set<string> {
  return new Set(results.filter((r) => statuses.includes(r.status)).map((r) => r.name));
}
