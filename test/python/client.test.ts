/**
 * The Python client (python/frognano_client.py) against the real service: starts
 * two `frognano serve` processes from source (a plain one and one with
 * `--token`), both `--budget 1000 --alpha 0.5`, and runs the unittest suite of
 * python/tests with Debian's python3 (standard library only):
 *
 *   python3 -m unittest discover -s python/tests -t python -v
 *
 * The suite must pass, run exactly EXPECTED_TESTS tests (a suite that lost
 * tests fails), and skip only tests marked optional (torch, numpy not installed).
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, startService, type ServiceHandle } from '../cli/helpers.js';
import { hasPython } from '../helpers/system.js';

/** The number of tests in python/tests: update it when adding or removing one. */
const EXPECTED_TESTS = 63;
const TOKEN = 'secret-token';
const SHAPING = ['--budget', '1000', '--alpha', '0.5'];

interface Run {
  code: number | null;
  output: string;
}

function runPython(args: readonly string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<Run> {
  return new Promise((done, reject) => {
    const child = spawn('/usr/bin/python3', args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, output });
    });
  });
}

describe.skipIf(!hasPython())('python/frognano_client.py against the real service (python3 -m unittest)', () => {
  let plain: ServiceHandle;
  let auth: ServiceHandle;

  beforeAll(async () => {
    [plain, auth] = await Promise.all([startService(SHAPING), startService(['--token', TOKEN, ...SHAPING])]);
  }, 30_000);

  afterAll(async () => {
    await Promise.all([plain?.stop(), auth?.stop()]);
  });

  it('every test of python/tests passes', async () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      FROGNANO_URL: plain.url,
      FROGNANO_AUTH_URL: auth.url,
      FROGNANO_AUTH_TOKEN: TOKEN,
      PYTHONDONTWRITEBYTECODE: '1',
      PYTHONUNBUFFERED: '1',
    };
    for (const k of ['FROGNANO_TOKEN', 'FROGNANO_RETRIES', 'FROGNANO_TIMEOUT', 'FROGNANO_TIMEOUT_S', 'FROGNANO_BACKOFF', 'FROGNANO_BACKOFF_MAX', 'FROGNANO_PARALLEL']) {
      delete env[k];
    }
    const run = await runPython(['-m', 'unittest', 'discover', '-s', 'python/tests', '-t', 'python', '-v'], env, 60_000);
    const report = `python3 -m unittest discover -s python/tests -t python -v (exit ${run.code}):\n${run.output}`;
    expect(run.code, report).toBe(0);

    const ran = /^Ran (\d+) tests? in /m.exec(run.output);
    expect(ran, report).not.toBeNull();
    expect(Number(ran![1]), `the number of Python tests changed; update EXPECTED_TESTS if that is intended\n${report}`).toBe(EXPECTED_TESTS);

    const skips = [...run.output.matchAll(/ \.\.\. skipped '(.*)'$/gm)].map((m) => m[1]!);
    expect(
      skips.filter((reason) => !reason.startsWith('optional:')),
      `only optional tests may be skipped\n${report}`,
    ).toEqual([]);
  }, 90_000);
});
