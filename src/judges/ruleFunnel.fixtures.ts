import type { Trajectory } from '../schema/trajectory.js';
import { ruleFunnel } from './ruleFunnel.js';

/**
 * Shared fixtures of the rule-funnel tests (`ruleFunnel.test.ts` and one test file per
 * rule family: `ruleGitHistory`, `ruleFileWrites`, `ruleSolutionRetrieval`, `ruleDiff`):
 * a SPEC §9 trajectory built from tool calls and a final diff, and the findings of one
 * bash command or of one diff. Test-only: excluded from the build (`tsconfig.build.json`).
 */

export type Call = { name: string; arguments: Record<string, unknown> };
export const traj = (calls: Call[], diff?: string): Trajectory => ({
  id: 't',
  task: { id: 'task', statement: 'Fix the bug.' },
  messages: [
    { role: 'system', content: 'You are Leaf.' },
    { role: 'user', content: 'Fix the bug.' },
    ...calls.flatMap((c, i) => [
      { role: 'assistant' as const, content: '', toolCalls: [{ id: `c${i}`, name: c.name, arguments: c.arguments }] },
      { role: 'tool' as const, content: 'ok', toolCallId: `c${i}` },
    ]),
    { role: 'assistant', content: 'Done.' },
  ],
  ...(diff === undefined ? {} : { diff }),
});
export const bash = (command: string): Call => ({ name: 'bash', arguments: { command } });
/** [code, evidence] pairs for one bash command (message index 2). */
export const fire = (command: string) => ruleFunnel(traj([bash(command)])).map((f) => [f.code, f.evidence]);

/** A diff with one file section. */
export const fileDiff = (path: string, lines: string[]) => {
  const old = lines.filter((l) => !l.startsWith('+')).length;
  const neu = lines.filter((l) => !l.startsWith('-')).length;
  return `diff --git a/${path} b/${path}\n--- a/${path}\n+++ b/${path}\n@@ -1,${old} +1,${neu} @@\n${lines.join('\n')}\n`;
};
export const diffFindings = (diff: string, calls: Call[] = []) => ruleFunnel(traj(calls, diff)).map((f) => [f.code, f.evidence, f.messageIndex]);
