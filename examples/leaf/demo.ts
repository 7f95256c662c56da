/**
 * Leaf end to end: G episodes of each example task (examples/leaf/tasks.jsonl)
 * in the bubblewrap sandbox, graded with the hidden tests, turned into rewards,
 * advantages and rule-funnel findings, then a table on stdout and an HTML report.
 *
 *   npm run demo:leaf -- [--group G] [--concurrency N] [--out DIR]
 *   npx tsx --conditions=@frognano/source examples/leaf/demo.ts --help
 *
 * The policy is the scripted OpenAI-compatible model of examples/leaf/scriptedModel.ts
 * (its default mix of good / failing / hacking / wander / cutoff episodes, a
 * run-level limit of 30 turns so that wandering episodes truncate quickly)
 * unless FROGNANO_LLM_BASE_URL is set: then the model is that server's
 * FROGNANO_LLM_MODEL (`openAiChatModel()` reads the environment) with the
 * SPEC §12 limits. Rewards use the log-length penalty (budget 300 tokens, alpha 0.25).
 *
 * Writes DIR/rollouts.jsonl (one RolloutRecord a line, in task order) and
 * DIR/report.html (default DIR: runs/leaf-demo). Needs bubblewrap (`bwrap`).
 * Ctrl-C stops the run: finished tasks are still written, exit status 130.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isFrognanoError } from '../../src/errors/index.js';
import { createSandbox, type LeafRecordStats, loadLeafTasks, renderLeafReport, type RolloutProgress, type RolloutRecord, rolloutTasks, summarizeLeafRecords } from '../../src/leaf/index.js';
import { openAiChatModel } from '../../src/llm/index.js';
import { type ScriptedLeafModel, startScriptedLeafModel } from './scriptedModel.js';

const USAGE = `usage: npm run demo:leaf -- [--group G] [--concurrency N] [--out DIR]

Runs G Leaf episodes of each task of examples/leaf/tasks.jsonl in the bubblewrap
sandbox and writes DIR/rollouts.jsonl and DIR/report.html.

  --group G          episodes per task (default 4)
  --concurrency N    episodes run at once (default 4)
  --out DIR          output folder (default runs/leaf-demo)
  --unsafe-no-sandbox  run the commands without bubblewrap (UNSAFE: unisolated, on
                     this machine; only where bubblewrap cannot run)
  --help             this text

Model: the scripted model of examples/leaf/scriptedModel.ts (default mix, at most
30 turns an episode), unless FROGNANO_LLM_BASE_URL is set: then FROGNANO_LLM_MODEL
on that server (FROGNANO_LLM_API_KEY if needed), with the SPEC §12 limits.
Rewards: log-length penalty with budget 300 tokens, alpha 0.25.`;

/** The demo's settings. */
export interface LeafDemoArgs {
  group: number;
  concurrency: number;
  out: string;
  help: boolean;
  unsafe: boolean;
}

class UsageError extends Error {}

/** Parses `--group N`, `--concurrency N`, `--out DIR` (also `--flag=value`) and `--help`. */
export function parseLeafDemoArgs(argv: readonly string[]): LeafDemoArgs {
  const a: LeafDemoArgs = { group: 4, concurrency: 4, out: 'runs/leaf-demo', help: false, unsafe: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') {
      a.help = true;
      continue;
    }
    if (arg === '--unsafe-no-sandbox') {
      a.unsafe = true;
      continue;
    }
    const m = /^--(group|concurrency|out)(?:=(.*))?$/s.exec(arg);
    if (!m) throw new UsageError(`unknown argument ${JSON.stringify(arg)}`);
    const value = m[2] ?? argv[++i];
    if (value === undefined || value === '') throw new UsageError(`--${m[1]} needs a value`);
    if (m[1] === 'out') a.out = value;
    else {
      if (!/^\d+$/.test(value) || Number(value) < 1) throw new UsageError(`--${m[1]} must be an integer >= 1, got ${JSON.stringify(value)}`);
      a[m[1] as 'group' | 'concurrency'] = Number(value);
    }
  }
  return a;
}

const fmt = (v: number, digits: number): string => (Number.isFinite(v) ? v.toFixed(digits) : '-');
const pct = (s: LeafRecordStats): string => `${s.solved}/${s.episodes} (${(s.solveRate * 100).toFixed(Number.isInteger(s.solveRate * 100) ? 0 : 1)}%)`;
const counts = (c: Record<string, number>): string =>
  Object.entries(c)
    .map(([k, n]) => `${k} x${n}`)
    .join(', ');

/** The per-task table and the totals line, as printed on stdout. */
export function leafDemoTable(records: readonly RolloutRecord[]): string {
  const { totals, tasks } = summarizeLeafRecords(records);
  const head = ['task', 'solved', 'turns', 'tokens', 'truncated', 'errors', 'findings', 'reward'];
  const row = (name: string, s: LeafRecordStats): string[] => [
    name,
    pct(s),
    fmt(s.meanTurns, 1),
    fmt(s.meanAssistantTokens, 0),
    s.truncated ? `${s.truncated} (${counts(s.truncations)})` : '0',
    String(s.errors),
    Object.keys(s.findings).length ? counts(s.findings) : '-',
    fmt(s.meanReward, 3),
  ];
  const rows = tasks.map((t) => row(t.taskId, t));
  const total = row(`total (${totals.tasks} tasks)`, totals);
  const all = [head, ...rows, total];
  const width = head.map((_, c) => Math.max(...all.map((r) => r[c]!.length)));
  const right = new Set([1, 2, 3, 5, 7]);
  const line = (r: string[]): string =>
    r
      .map((cell, c) => (right.has(c) ? cell.padStart(width[c]!) : cell.padEnd(width[c]!)))
      .join('  ')
      .trimEnd();
  const rule = width.map((w) => '-'.repeat(w)).join('  ');
  return [
    line(head),
    rule,
    ...rows.map(line),
    rule,
    line(total),
    '',
    `episodes ${totals.episodes}, solved ${pct(totals)}, truncated ${totals.truncated}, errors ${totals.errors}, ` +
      `flagged by the rule funnel ${totals.flagged}, mean turns ${fmt(totals.meanTurns, 1)}, mean assistant tokens ${fmt(totals.meanAssistantTokens, 0)}`,
  ].join('\n');
}

/** Runs the demo; resolves to the process exit status. */
export async function runLeafDemo(argv: readonly string[]): Promise<number> {
  let args: LeafDemoArgs;
  try {
    args = parseLeafDemoArgs(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`${e.message}\n\n${USAGE}\n`);
    return 2;
  }
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }

  const tasksFile = fileURLToPath(new URL('./tasks.jsonl', import.meta.url));
  const tasks = await loadLeafTasks(tasksFile);
  const sandbox = createSandbox({ unsafeNoSandbox: args.unsafe }); // SANDBOX_UNAVAILABLE without bubblewrap, before anything starts
  if (args.unsafe) process.stderr.write('WARNING: --unsafe-no-sandbox: the commands run on this machine without isolation\n');

  const stop = new AbortController();
  let server: ScriptedLeafModel | undefined;
  let interrupts = 0;
  let firstInterrupt = 0;
  const onSigint = (): void => {
    // Under `npm run` / `npx`, one Ctrl-C arrives twice (from the terminal, and forwarded by npm): a repeat within 1 s is the same one
    if (interrupts > 0 && performance.now() - firstInterrupt < 1000) return;
    interrupts++;
    if (interrupts === 1) {
      firstInterrupt = performance.now();
      process.stderr.write('\ninterrupted: stopping the running episodes (Ctrl-C again to quit at once)\n');
      stop.abort();
      return;
    }
    const closing = server?.close() ?? Promise.resolve();
    void closing.finally(() => process.exit(130));
  };
  process.on('SIGINT', onSigint);

  try {
    const external = Boolean(process.env.FROGNANO_LLM_BASE_URL);
    let model: ReturnType<typeof openAiChatModel>;
    if (external) {
      model = openAiChatModel({ concurrency: args.concurrency });
    } else {
      server = await startScriptedLeafModel({ tasks });
      model = openAiChatModel({ baseUrl: server.baseUrl, model: server.model, concurrency: args.concurrency, env: {} });
    }
    const modelName = external ? model.endpoint.model : `${model.endpoint.model} (scripted, default mix)`;
    const limits = external ? undefined : { maxTurns: 30 };
    const shaping = { budget: 300, alpha: 0.25 };
    const total = tasks.length * args.group;
    process.stderr.write(
      `Leaf demo: ${tasks.length} tasks x G=${args.group} = ${total} episodes, concurrency ${args.concurrency}, model ${modelName}` +
        `${limits ? `, maxTurns ${limits.maxTurns}` : ''}, shaping budget ${shaping.budget} alpha ${shaping.alpha}\n`,
    );

    const tty = process.stderr.isTTY === true;
    let lastDone = -1;
    const progressLine = (p: RolloutProgress): string =>
      `[${p.done}/${p.total}] running ${p.running}, solved ${p.solved}, truncated ${p.truncated}, errors ${p.errors}`;
    const onProgress = (p: RolloutProgress): void => {
      if (tty) process.stderr.write(`\r\x1b[K${progressLine(p)}`);
      else if (p.done !== lastDone) process.stderr.write(`${progressLine(p)}\n`);
      lastDone = p.done;
    };
    const byTask = new Map<string, RolloutRecord[]>();
    const onRecords = (rs: RolloutRecord[]): void => {
      const taskId = rs[0]!.taskId;
      byTask.set(taskId, rs);
      const solved = rs.filter((r) => r.outcome?.success).length;
      const flagged = rs.filter((r) => r.hacking.length > 0).length;
      process.stderr.write(`${tty ? '\r\x1b[K' : ''}  ${taskId}: ${solved}/${rs.length} solved${flagged ? `, ${flagged} flagged` : ''}\n`);
    };

    const t0 = performance.now();
    const startedAt = new Date().toISOString();
    const summary = await rolloutTasks(tasks, {
      model,
      sandbox,
      group: args.group,
      concurrency: args.concurrency,
      limits,
      shaping,
      signal: stop.signal,
      onRecords,
      onProgress,
    });
    if (tty) process.stderr.write('\n');
    const seconds = (performance.now() - t0) / 1000;
    process.stderr.write(`${summary.stopped ? 'stopped' : 'done'} after ${seconds.toFixed(1)} s\n`);

    // task-file order, whatever order the groups finished in
    const records = tasks.flatMap((t) => byTask.get(t.id) ?? []);
    const out = resolve(args.out);
    mkdirSync(out, { recursive: true });
    const jsonl = join(out, 'rollouts.jsonl');
    const html = join(out, 'report.html');
    writeFileSync(jsonl, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
    writeFileSync(
      html,
      renderLeafReport(records, {
        title: `Leaf demo: ${tasks.length} tasks x G=${args.group}${summary.stopped ? ' (stopped)' : ''}`,
        model: modelName,
        generatedAt: `${startedAt} (${seconds.toFixed(1)} s)`,
      }),
    );

    if (records.length > 0) process.stdout.write(`${leafDemoTable(records)}\n\n`);
    if (summary.stopped) process.stdout.write(`stopped: ${byTask.size} of ${tasks.length} tasks finished\n`);
    process.stdout.write(`rollouts: ${jsonl}\nreport:   ${html}\n`);
    return summary.stopped || interrupts > 0 ? 130 : 0;
  } finally {
    process.off('SIGINT', onSigint);
    await server?.close();
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  runLeafDemo(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e: unknown) => {
      // expected failures (no bubblewrap, no model configured, a bad tasks file) say what to do: no stack
      process.stderr.write(`${isFrognanoError(e) ? e.message : e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exit(1);
    },
  );
}
