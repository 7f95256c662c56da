/**
 * `frognano taskpilot`: FrogNano §3's TaskPilot on a repository (SPEC §15): candidates
 * from the generator model or `mutation`, validated, estimated against the policy,
 * refined, written as a Leaf tasks file. Loaded only when the subcommand runs.
 * @module
 */
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type CliIo, defined, ExitCode, type FlagSpec, flagLines, intFlag, numberFlag, parseFlags, positiveFlag, UsageError } from '../../commands/index.js';
import { isFrognanoError } from '../../errors/index.js';
import { createSandbox, type Sandbox, TEST_LOG_FORMATS, type TestLogFormat } from '../../leaf/index.js';
import { type ChatModel, openAiChatModel } from '../../llm/index.js';
import {
  DEFAULT_PILOT_BAND, doneIds, formatBand, generatorSource, mutationSource, openPilotOutputs, parseBand, pilotRefine, type PilotDiscardLine, type PilotProgress,
  type PilotTaskLine, readJsonLines, reestimatePool, renderPilotReport, runRepoTaskPilot, targetBand,
} from '../../taskpilot/index.js';
import { withSignals } from '../signals.js';

/** The flags of `frognano taskpilot`. */
export const TASKPILOT_FLAGS: Readonly<Record<string, FlagSpec>> = {
  repo: { type: 'string', value: 'DIR', description: 'the repository snapshot (never modified). Required unless --pool' },
  tests: { type: 'string', value: 'CMD', description: 'its test command, run in the repo root. Required unless --pool' },
  log: { type: 'string', value: 'FORMAT', description: 'how the test log is read: pytest (default), unittest, tap or junit-xml' },
  source: { type: 'string', value: 'generator|mutation', description: 'where candidates come from: the generator model (FROGNANO_GENERATOR_*) or one injected bug each. Required unless --pool' },
  candidates: { type: 'string', value: 'N', description: 'candidates to make (default 8)' },
  rollouts: { type: 'string', value: 'N', description: 'policy episodes per p-hat estimate (default 8)' },
  band: { type: 'string', value: 'INTERVAL', description: 'accepted p-hat band in interval notation, ( ) exclusive, [ ] inclusive (default "(0,1)")' },
  target: { type: 'string', value: 'T', description: 'instead of --band: [T - 1/N, T + 1/N] (one rollout of tolerance), inclusive' },
  rounds: { type: 'string', value: 'R', description: 'refinement rounds at most (default 3)' },
  concurrency: { type: 'string', value: 'C', description: 'episodes at once (default 1)' },
  seed: { type: 'string', value: 'S', description: 'seed of the sources and the episodes (default 0)' },
  out: { type: 'string', value: 'FILE', description: 'the tasks file (JSONL), with FILE.discarded.jsonl, FILE.rollouts.jsonl, <FILE>-repos/ and <FILE>.report.html. Required' },
  resume: { type: 'boolean', description: 'keep FILE and its side files, skip the candidates whose id they hold, append' },
  pool: { type: 'string', value: 'FILE', description: 're-estimate the tasks of an earlier pilot FILE against the current policy (saturated ones leave) into --out' },
  image: { type: 'string', value: 'PATH', description: 'the task environment (SPEC §14) of every run: an image archive (docker save, OCI), an OCI layout or a root folder; the written tasks carry it' },
  workdir: { type: 'string', value: 'DIR', description: 'with --image: where the repo is mounted (default the image\'s WorkingDir, else /repo)' },
  repeat: { type: 'string', value: 'K', description: 'validation runs per side; a test whose status changes is flaky (default 2)' },
  'timeout-seconds': { type: 'string', value: 'S', description: 'time limit of one validation test run (default 120)' },
  'base-url': { type: 'string', value: 'URL', description: 'the policy\'s OpenAI-compatible API (default FROGNANO_LLM_BASE_URL)' },
  model: { type: 'string', value: 'NAME', description: 'the policy model (default FROGNANO_LLM_MODEL; key FROGNANO_LLM_API_KEY)' },
  temperature: { type: 'string', value: 'T', description: 'the policy\'s sampling temperature' },
  'max-tokens': { type: 'string', value: 'N', description: 'token limit of one policy reply' },
  'max-turns': { type: 'string', value: 'N', description: 'assistant turns per episode (default 150)' },
  'command-seconds': { type: 'string', value: 'S', description: 'wall time of one bash call (default 120)' },
  'unsafe-no-sandbox': { type: 'boolean', description: 'UNSAFE: run commands without bubblewrap (only for trusted models where bwrap cannot run)' },
  'no-progress': { type: 'boolean', description: 'print nothing on stderr but warnings and the summary' },
  help: { type: 'boolean', description: 'this help' },
};

/** `frognano taskpilot --help`. */
export function taskpilotHelp(): string {
  return [
    'frognano taskpilot: TaskPilot on a repository (FrogNano §3): candidate tasks calibrated to the policy',
    '',
    'Usage: frognano taskpilot --repo DIR --tests CMD [--log pytest] --source generator|mutation [--candidates N]',
    '         [--rollouts 8] [--band "(0,1)" | --target 0.5] [--rounds 3] [--concurrency C] [--seed S] --out FILE [--resume]',
    '       frognano taskpilot --pool FILE --out FILE2 [--rollouts 8] [--band ... | --target ...]',
    'Calls: runRepoTaskPilot (validateCandidate, estimatePHat, classifyResolveRate), generatorCandidates / mutationCandidates, reestimatePool',
    '',
    'Each candidate (statement, gold patch, hidden tests) is validated: its tests run before and after the gold',
    'patch; fail-to-pass / pass-to-pass ids are found; discarded as patch-does-not-apply, tests-already-pass,',
    'tests-fail-after, p2p-broken or flaky. p-hat = the mean success of N policy episodes; inside the band it is',
    'accepted, else its statement is refined (easier when too hard, harder when too easy) and estimated again,',
    'up to --rounds, then discarded out-of-band. The policy comes from FROGNANO_LLM_*; the generator (proposals',
    'and refinement) from FROGNANO_GENERATOR_BASE_URL / _MODEL / _API_KEY. Without a generator, mutation refines',
    'by its statement levels.',
    '',
    'Output: FILE, one Leaf task per accepted candidate plus "pilot": {pHat, rollouts, round, source, category,',
    '  parent?, pHatHistory}; its repo in <FILE without extension>-repos/<id> (one commit); FILE.discarded.jsonl,',
    '  the candidate plus reason and pHatHistory; FILE.rollouts.jsonl, every episode (RL data); the HTML report',
    '  <FILE without extension>.report.html. --pool: in band -> kept (round 0), saturated -> leaves (out-of-band),',
    '  below the band -> kept with pilot.status "too-hard", above it -> kept with "too-easy".',
    '',
    'Flags:',
    ...flagLines(TASKPILOT_FLAGS),
    '',
    'Exit codes: 0 done; 2 bad usage (flags, no model, bubblewrap missing); 4 some candidates could not be',
    '  estimated (the model unavailable; --resume retries them); 130/143 interrupted (lines written are whole).',
    '',
  ].join('\n');
}

function policyModel(flags: Record<string, unknown>, concurrency: number): ChatModel & Parameters<typeof runRepoTaskPilot>[0]['estimate']['model'] {
  try {
    return openAiChatModel(defined({ baseUrl: flags['base-url'] as string | undefined, model: flags.model as string | undefined, concurrency, temperature: numberFlag(flags as never, 'temperature') })) as never;
  } catch (e) {
    if (isFrognanoError(e)) throw new UsageError(`the policy: ${e.message}`);
    throw e;
  }
}

function generatorModel(): ChatModel | null {
  const baseUrl = process.env.FROGNANO_GENERATOR_BASE_URL;
  const model = process.env.FROGNANO_GENERATOR_MODEL;
  if (!baseUrl || !model) return null;
  return openAiChatModel({ baseUrl, model, apiKey: process.env.FROGNANO_GENERATOR_API_KEY ?? '' });
}

/** One stderr line per progress event. */
function progressLine(p: PilotProgress): string {
  switch (p.kind) {
    case 'generated': return `${p.candidates} candidates generated (${p.discarded} discarded by the source, ${p.skipped} done already)`;
    case 'validated': return `${p.id}: ${p.ok ? 'valid' : `invalid: ${p.reason}${p.detail ? ` (${p.detail})` : ''}`}`;
    case 'estimated': return `${p.id}: round ${p.round}: p-hat ${p.pHat === null ? 'unknown' : p.pHat.toFixed(3)}${p.decision ? ` -> ${p.decision}` : ''}${p.errors ? `, ${p.errors} episode errors` : ''}`;
    case 'refined': return `${p.id}: refined ${p.direction} from ${p.parent} (round ${p.round})`;
    case 'accepted': return `${p.id}: accepted (p-hat ${p.pHat.toFixed(3)}, round ${p.round})`;
    case 'discarded': return `${p.id}: discarded: ${p.reason}${p.detail ? ` (${p.detail})` : ''}`;
  }
}

/** Runs `frognano taskpilot <argv>`. */
export async function runTaskpilot(argv: readonly string[], io: CliIo): Promise<number> {
  const flags = parseFlags(argv, TASKPILOT_FLAGS);
  if (flags.help) {
    io.stdout.write(taskpilotHelp());
    return ExitCode.OK;
  }
  if (typeof flags.out !== 'string') throw new UsageError('--out FILE is required');
  const pool = typeof flags.pool === 'string' ? flags.pool : undefined;
  if (pool === undefined) {
    for (const f of ['repo', 'tests', 'source']) if (typeof flags[f] !== 'string') throw new UsageError(`--${f} is required`);
    if (flags.source !== 'generator' && flags.source !== 'mutation') throw new UsageError(`--source ${String(flags.source)}: one of generator, mutation`);
    if (!(await stat(flags.repo as string).catch(() => null))?.isDirectory()) throw new UsageError(`cannot read --repo ${String(flags.repo)}: not a folder`);
  } else if (!(await stat(pool).catch(() => null))?.isFile()) throw new UsageError(`cannot read --pool ${pool}: not a file`);
  if (pool !== undefined && resolve(pool) === resolve(flags.out)) throw new UsageError('--pool and --out must be different files');
  const log = flags.log as string | undefined;
  if (log !== undefined && (log === 'exit-code' || !(TEST_LOG_FORMATS as readonly string[]).includes(log))) throw new UsageError(`--log ${log}: one of pytest, unittest, tap, junit-xml`);
  const rollouts = intFlag(flags, 'rollouts', 1) ?? 8;
  const count = intFlag(flags, 'candidates', 1) ?? 8;
  const rounds = intFlag(flags, 'rounds', 0) ?? 3;
  const concurrency = intFlag(flags, 'concurrency', 1) ?? 1;
  const repeat = intFlag(flags, 'repeat', 1) ?? 2;
  const seed = numberFlag(flags, 'seed') ?? 0;
  if (!Number.isInteger(seed)) throw new UsageError(`--seed must be an integer, got ${String(flags.seed)}`);
  if (flags.band !== undefined && flags.target !== undefined) throw new UsageError('--band and --target exclude each other');
  let band = DEFAULT_PILOT_BAND;
  try {
    if (typeof flags.band === 'string') band = parseBand(flags.band);
    if (flags.target !== undefined) {
      const t = numberFlag(flags, 'target');
      band = targetBand(t as number, rollouts);
    }
  } catch (e) {
    if (isFrognanoError(e)) throw new UsageError(`--${flags.target !== undefined ? 'target' : 'band'}: ${e.message.replace(/^\w+: /, '')}`);
    throw e;
  }
  const timeoutSeconds = positiveFlag(flags, 'timeout-seconds');
  const model = policyModel(flags, concurrency);
  const generator = generatorModel();
  if (pool === undefined && flags.source === 'generator' && generator === null) throw new UsageError('--source generator needs FROGNANO_GENERATOR_BASE_URL and FROGNANO_GENERATOR_MODEL');
  let sandbox: Sandbox;
  try {
    sandbox = createSandbox({ unsafeNoSandbox: flags['unsafe-no-sandbox'] === true, protectedPaths: [resolve(flags.out), tmpdir(), ...(pool ? [resolve(pool)] : [])] });
  } catch (e) {
    if (isFrognanoError(e, 'SANDBOX_UNAVAILABLE')) throw new UsageError(e.message);
    throw e;
  }
  if (sandbox.kind === 'none') io.stderr.write('frognano taskpilot: WARNING: --unsafe-no-sandbox: the model\'s commands run on this machine without isolation\n');
  const say = (line: string): void => {
    if (!flags['no-progress']) io.stderr.write(`frognano taskpilot: ${line}\n`);
  };
  const outs = await openPilotOutputs(flags.out, { resume: flags.resume === true && pool === undefined });
  const episode = { limits: defined({ maxTurns: intFlag(flags, 'max-turns', 1), commandSeconds: positiveFlag(flags, 'command-seconds') }), ...defined({ maxTokens: intFlag(flags, 'max-tokens', 1) }) };
  const estimate = { model, sandbox, rollouts, concurrency, seed, episode };
  const writeReport = async (): Promise<void> => {
    const tasks = await readJsonLines<PilotTaskLine>(outs.paths.file);
    const discarded = await readJsonLines<PilotDiscardLine>(outs.paths.discarded);
    await writeFile(outs.paths.report, renderPilotReport(tasks, discarded, { band: formatBand(band), rollouts }));
    say(`${tasks.length} accepted, ${discarded.length} discarded; report ${outs.paths.report}`);
  };

  if (pool !== undefined) {
    const lines = await readJsonLines<PilotTaskLine>(pool);
    const { value, interrupted } = await withSignals((signal) => reestimatePool(lines, { ...estimate, signal, poolFile: pool, outFile: flags.out as string, band, onRecords: (rs) => outs.records(rs) }));
    for (const l of value.kept) await outs.taskLine(l);
    for (const d of value.left) await writeFile(outs.paths.discarded, `${JSON.stringify(d)}\n`, { flag: 'a' });
    say(`--pool: ${value.kept.length} kept, ${value.left.length} left (saturated), ${value.unestimated.length} not estimated`);
    await writeReport();
    if (interrupted) return interrupted === 'SIGTERM' ? 143 : 130;
    return value.unestimated.length ? 4 : ExitCode.OK;
  }

  const repoDir = resolve(flags.repo as string);
  const tests = { command: flags.tests as string, ...(log ? { log: log as TestLogFormat } : {}) };
  const workDir = await mkdtemp(join(tmpdir(), 'frognano-taskpilot-'));
  const environment = typeof flags.image === 'string' ? { image: resolve(flags.image), ...(typeof flags.workdir === 'string' ? { workdir: flags.workdir } : {}) } : undefined;
  try {
    const skip = flags.resume ? await doneIds(outs.paths) : undefined;
    const source = flags.source === 'generator'
      ? generatorSource({ repoDir, tests, model: generator!, count, seed, ...defined({ environment }) })
      : mutationSource({ repoDir, tests, sandbox, count, seed, workDir, ...defined({ timeoutSeconds, environment }), onRejected: (n) => say(`mutation: ${n} sites rejected`) });
    const { value, interrupted } = await withSignals((signal) =>
      runRepoTaskPilot({
        source, estimate: { ...estimate, signal }, validateConcurrency: concurrency, validation: { repeat, ...defined({ timeoutSeconds }) }, band, rounds, refine: pilotRefine(generator),
        ...(skip ? { skip } : {}), signal,
        onAccepted: (a) => outs.accepted(a), onDiscarded: (d) => outs.discarded(d), onRecords: (rs) => outs.records(rs), onProgress: (p) => say(progressLine(p)),
      }),
    );
    await writeReport();
    if (interrupted) return interrupted === 'SIGTERM' ? 143 : 130;
    return value.unestimated.length ? 4 : ExitCode.OK;
  } catch (e) {
    if (isFrognanoError(e, 'SANDBOX_UNAVAILABLE')) throw new UsageError(e.message);
    throw e;
  } finally {
    // mutation's candidate repos: every accepted one was copied into <FILE>-repos
    await rm(workDir, { recursive: true, force: true });
  }
}
