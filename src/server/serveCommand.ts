import { createWriteStream } from 'node:fs';
import type { Writable } from 'node:stream';
import { isFrognanoError } from '../errors/index.js';
import type { ShapeRewardOptions } from '../rewards/index.js';
import { type CliIo, enumFlag, ExitCode, type FlagSpec, flagLines, intFlag, packageVersion, type ParsedFlags, parseFlags, rewardsCommand, sizeFlag, UsageError } from '../commands/index.js';
import { createLogger, type LogLevel } from './logger.js';
import { availableParallelism } from 'node:os';
import { poolVerifier, RewardEngine, type Verifier } from './rewardEngine.js';
import { FrognanoServer } from './server.js';
import { DEFAULT_MAX_BODY_BYTES } from './serverOptions.js';
import { VerifierPool } from './verifierPool.js';
import { ComputePool } from './computePool.js';

/** The flags of `frognano serve`. */
export const SERVE_FLAGS: Readonly<Record<string, FlagSpec>> = {
  port: { type: 'string', value: 'N', description: 'port to listen on; 0 picks a free one (logged). Default 8000' },
  host: { type: 'string', value: 'ADDR', description: 'address to bind. Default 127.0.0.1 (loopback only); beyond loopback, use --token (a warning is logged without it)' },
  token: { type: 'string', value: 'T', description: 'require "Authorization: Bearer T" on every route but /health (else 401). Default: FROGNANO_TOKEN, else none' },
  'reward-module': { type: 'string', value: 'FILE', description: 'JS module whose default export scores (prompt, response, label); default: labels carry outcome JSON' },
  workers: { type: 'string', value: 'N', description: 'worker threads that run the reward module. Default: the number of cores' },
  'compute-workers': { type: 'string', value: 'N', description: 'worker threads that parse and compute the other requests (built-in shaper, /v1/...). Default: the number of cores' },
  budget: { type: 'string', value: 'N', description: 'assistant-token budget of the length penalty (with --alpha)' },
  alpha: { type: 'string', value: 'A', description: 'length-penalty strength (with --budget). Without both: no length penalty' },
  'truncated-reward': { type: 'string', value: 'R', description: 'reward of a truncated success. Default 0.5' },
  'no-length-penalty': { type: 'boolean', description: 'completed successes get 1' },
  floor: { type: 'string', value: 'F', description: 'lower bound of the penalised reward. Default -inf' },
  'max-body': { type: 'string', value: 'SIZE', description: 'largest request body (bytes, or 64MiB, 1GiB); larger -> 413. Default 128MiB' },
  'max-body-bytes': { type: 'string', value: 'N', description: 'the same as --max-body, in bytes (kept for old scripts)' },
  'timeout-ms': { type: 'string', value: 'MS', description: 'per-request time limit; later -> 504 (a reward module still running is terminated). Default 30000' },
  'max-concurrency': { type: 'string', value: 'N', description: 'requests computed at once. Default 64' },
  'max-queue': { type: 'string', value: 'N', description: 'requests waiting for a slot; beyond -> 503. Default 1024' },
  'shutdown-timeout-ms': { type: 'string', value: 'MS', description: 'on SIGTERM/SIGINT, how long to wait for in-flight requests. Default 30000' },
  'drain-ms': { type: 'string', value: 'MS', description: 'on SIGTERM/SIGINT, how long open connections get 503 + Connection: close before they are closed. Default 2000' },
  'max-connections': { type: 'string', value: 'N', description: 'open TCP connections at most; beyond, new ones are closed. Default 1000' },
  'log-file': { type: 'string', value: 'FILE', description: 'append the JSON log lines to FILE (default: stderr)' },
  'log-level': { type: 'string', value: 'debug|info|warn|error', description: 'least severe level logged. Default info (one line per request)' },
  help: { type: 'boolean', description: 'this help' },
};

/** `frognano serve --help`. */
export function serveHelp(): string {
  return [
    'frognano serve: the reward and advantage service (HTTP, JSON)',
    '',
    'Usage: frognano serve --port N [--host 127.0.0.1] [--token T] [--reward-module FILE [--workers N]] [flags]',
    '',
    'Endpoints:',
    '  GET  /health               200 {"status":"ok"} (503 while shutting down)',
    '  POST /openrlhf/reward      OpenRLHF remote reward: {query[], prompts[], labels[]} -> {rewards, scores, extra_logs}',
    '  POST /slime/reward         slime remote_rm: {prompt, response, label} -> a number (?format=object: an object)',
    '  POST /verl/reward          verl compute_score body {data_source, solution_str, ground_truth, extra_info} -> {score, raw}',
    '  POST /v1/advantages        one `frognano advantages` line, or {groups: [...]}',
    '  POST /v1/<subcommand>      one record of rewards, gagar, gagar-coefficients, gagar-score, dppo-mask,',
    '                             pass-at-k, tinker-datums; /v1/metrics takes {tasks, theta?}',
    '',
    'Rewards (OpenRLHF, slime, verl): without --reward-module each label is the outcome JSON',
    '  {"success":true,"truncated":false,"assistantTokens":1234}, shaped with --budget/--alpha/...;',
    '  with --reward-module, its function gets {protocol, prompt, response, label, query?, metadata?,',
    '  responseLength?, finishReason?} and returns a number (the reward) or an outcome (shaped). It runs in',
    '  --workers worker threads; past --timeout-ms its worker is terminated and replaced (504 VERIFIER_TIMEOUT).',
    '  An outcome without assistantTokens / truncated takes the request\'s response_length / finish_reason.',
    '',
    'Answers write rewards, scores and advantages as JSON floats (1.0), so Python reads float.',
    'Authentication: with --token T (or FROGNANO_TOKEN) every route but GET /health needs',
    '  "Authorization: Bearer T"; without it, keep the service on 127.0.0.1.',
    '',
    'Flags:',
    ...flagLines(SERVE_FLAGS),
    '',
    'Example:',
    '  $ frognano serve --port 8000 --budget 6000 --alpha 0.25 &',
    `  $ curl -s localhost:8000/openrlhf/reward -d '{"query":["q a"],"prompts":["q "],"labels":["{\\"success\\":true,\\"truncated\\":false,\\"assistantTokens\\":12000}"]}'`,
    '  {"rewards":[0.8267132048600137],"scores":[1.0],"extra_logs":{"success":[1.0],"budget_truncated":[0.0],"assistant_tokens":[12000.0]}}',
    '',
    'Logs: one JSON object per line on stderr (or --log-file): listening, request (method, path, status, durationMs), stopping.',
    'Signals: SIGTERM / SIGINT stop accepting, finish the requests in flight, exit 0; a second signal exits at once (1).',
    '',
    'Exit codes: 0 stopped gracefully, 1 forced stop, 2 bad usage (bad flag, module that cannot load, port in use).',
    '',
  ].join('\n');
}

/** Exit code of a forced stop: a second signal, or requests still in flight after --shutdown-timeout-ms (not an input error). */
const FORCED_STOP = 1;

/** The bearer token: `--token`, else FROGNANO_TOKEN, else none. A token must be non-empty, printable and without spaces. */
function tokenFrom(flags: ParsedFlags): string | undefined {
  const given = flags.token as string | undefined;
  const env = process.env.FROGNANO_TOKEN;
  const t = given ?? (env === '' ? undefined : env);
  if (t === undefined) return undefined;
  if (!/^[\x21-\x7e]+$/.test(t)) throw new UsageError(`${given !== undefined ? '--token' : 'FROGNANO_TOKEN'} must be printable ASCII without spaces (it travels in an HTTP header)`);
  return t;
}

/** True for an address only this machine can reach. */
function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\./.test(host);
}

/** The service's shaping from the shaping flags as given (`frognano rewards`' defaults): without --budget and --alpha, no length penalty. */
function serviceShaping(given: Partial<ShapeRewardOptions>): ShapeRewardOptions {
  if ((given.budget === undefined) !== (given.alpha === undefined)) throw new UsageError('--budget and --alpha go together');
  // No budget: the log-length penalty is off; budget/alpha are placeholders the shaper never reads.
  return given.budget === undefined ? { ...given, budget: 1, alpha: 0, lengthPenalty: false } : (given as ShapeRewardOptions);
}

/**
 * Shaping options of the service from its flags: without --budget and --alpha,
 * no length penalty. The flags are read as `frognano rewards` reads them.
 */
export function shapingFromFlags(flags: ParsedFlags): ShapeRewardOptions {
  return serviceShaping(rewardsCommand.configure(flags));
}

/**
 * `frognano serve`: starts the service and resolves with the exit code once it
 * has stopped (after SIGTERM / SIGINT).
 */
export async function runServe(argv: readonly string[], io: CliIo): Promise<number> {
  const flags = parseFlags(argv, SERVE_FLAGS);
  if (flags.help) {
    io.stdout.write(serveHelp());
    return ExitCode.OK;
  }
  const port = intFlag(flags, 'port', 0, 65535) ?? 8000;
  const host = (flags.host as string | undefined) ?? '127.0.0.1';
  const level = enumFlag(flags, 'log-level', ['debug', 'info', 'warn', 'error'] as const) ?? ('info' as LogLevel);
  // The shaping flags as given are also the defaults of POST /v1/rewards (a body's opts override them).
  const rewardDefaults = rewardsCommand.configure(flags);
  const shaping = serviceShaping(rewardDefaults);
  const maxBodyBytes = sizeFlag(flags, 'max-body') ?? intFlag(flags, 'max-body-bytes', 1);
  const token = tokenFrom(flags);
  const options = {
    host,
    port,
    maxBodyBytes,
    timeoutMs: intFlag(flags, 'timeout-ms', 1),
    maxConcurrency: intFlag(flags, 'max-concurrency', 1),
    maxQueue: intFlag(flags, 'max-queue', 0),
    shutdownTimeoutMs: intFlag(flags, 'shutdown-timeout-ms', 0),
    drainMs: intFlag(flags, 'drain-ms', 0),
    maxConnections: intFlag(flags, 'max-connections', 1),
    ...(token === undefined ? {} : { token }),
  };
  const modulePath = flags['reward-module'] as string | undefined;
  const workers = intFlag(flags, 'workers', 1, 1024);
  const computeWorkers = intFlag(flags, 'compute-workers', 1, 1024) ?? availableParallelism();
  if (workers !== undefined && modulePath === undefined) throw new UsageError('--workers needs --reward-module (the built-in shaper runs in the service itself)');

  let logStream: Writable = io.stderr;
  if (typeof flags['log-file'] === 'string') {
    const file = flags['log-file'];
    const s = createWriteStream(file, { flags: 'a' });
    try {
      await new Promise<void>((resolve, reject) => {
        s.once('open', () => resolve());
        s.once('error', reject);
      });
    } catch (e) {
      throw new UsageError(`cannot open --log-file ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    logStream = s;
  }
  const logger = createLogger(logStream, level);

  let pool: VerifierPool | undefined;
  let verifier: Verifier | undefined;
  if (modulePath !== undefined) {
    try {
      pool = await VerifierPool.start({ modulePath, workers: workers ?? availableParallelism() });
    } catch (e) {
      throw new UsageError(`cannot load --reward-module ${modulePath}: ${e instanceof Error ? e.message : String(e)}`);
    }
    verifier = poolVerifier(pool);
  }
  let engine: RewardEngine;
  try {
    engine = new RewardEngine(verifier, shaping);
  } catch (e) {
    await pool?.close();
    if (isFrognanoError(e)) throw new UsageError(`bad shaping flag: ${e.message}`);
    throw e;
  }

  let computePool: ComputePool;
  try {
    computePool = await ComputePool.start({ workers: computeWorkers, shaping, rewardDefaults });
  } catch (e) {
    await pool?.close();
    throw e;
  }
  const closePools = (): Promise<unknown> => Promise.all([pool?.close(), computePool.close()]);
  const server = new FrognanoServer({ ...options, engine, logger, rewardDefaults, computePool, version: packageVersion() });
  let address: { port: number; url: string; host: string };
  try {
    address = await server.listen();
  } catch (e) {
    await closePools();
    throw new UsageError(`cannot listen on ${host}:${port}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  logger.info('listening', {
    ...address,
    pid: process.pid,
    version: packageVersion(),
    rewardModule: modulePath ?? null,
    workers: pool?.workers ?? 0,
    computeWorkers,
    auth: token === undefined ? 'none' : 'bearer',
    maxBodyBytes: maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    shaping: {
      ...rewardDefaults,
      ...(rewardDefaults.budget === undefined ? { lengthPenalty: false } : {}),
      ...(shaping.floor === undefined ? {} : { floor: String(shaping.floor) }),
    },
  });
  if (token === undefined && !isLoopback(host)) {
    logger.warn('listening beyond loopback without authentication: anyone who can reach this port can use the service; pass --token (or FROGNANO_TOKEN)', { host });
  }
  if (!pool && shaping.lengthPenalty === false && flags['no-length-penalty'] !== true) {
    logger.warn('no --budget/--alpha: the log-length penalty is off (completed successes get 1)');
  }

  return new Promise<number>((resolve) => {
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals): void => {
      if (stopping) {
        logger.warn('second signal: closing every connection now', { signal, inFlight: server.pending });
        server.forceClose();
        void closePools();
        finish(FORCED_STOP);
        return;
      }
      stopping = true;
      logger.info('stopping', { signal, inFlight: server.pending });
      void server.shutdown().then(async (graceful) => {
        await closePools();
        if (graceful) logger.info('stopped', { graceful });
        else logger.warn('stopped', { graceful, note: `requests still in flight after --shutdown-timeout-ms` });
        finish(graceful ? ExitCode.OK : FORCED_STOP);
      });
    };
    const finish = (code: number): void => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      const done = (): void => {
        resolve(code);
        // A reward module may hold timers or sockets; do not let them keep a stopped service alive.
        setTimeout(() => process.exit(code), 1000).unref();
      };
      if (logStream !== io.stderr) (logStream as Writable).end(done);
      else done();
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}
