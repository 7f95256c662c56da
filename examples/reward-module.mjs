/**
 * An example reward module for `frognano serve --reward-module examples/reward-module.mjs`.
 *
 * frognano calls the default export once per rollout, in one of its worker
 * threads (`--workers N`), with
 *   { protocol: 'openrlhf' | 'slime' | 'verl', prompt, response, label, query?, metadata?, dataSource?,
 *     responseLength?, finishReason? }
 * and expects (or awaits) either
 *   - a number: used as the reward as is (OpenRLHF `scores` / slime `raw` = the same number), or
 *   - an outcome { success, truncated, assistantTokens }: shaped by frognano's shapeReward with the
 *     service's --budget / --alpha / --truncated-reward / --floor (0 on failure, 0.5 on a truncated
 *     success, the log-length reward on a completed success), the raw outcome (1 / 0) reported next to it.
 * A function that throws answers 500 for that request only; one that runs past --timeout-ms is
 * terminated with its worker (504 VERIFIER_TIMEOUT). The service keeps serving either way.
 *
 * This verifier grades a JavaScript function. The label is JSON
 *   {"entry":"add","tests":[{"args":[2,3],"expect":5}]}
 * and the response holds the code in a ```js fenced block.
 *
 * The answer is untrusted model output, so it runs in the Leaf sandbox (bubblewrap: no network,
 * no view of the host's files beyond read-only /usr and /etc, an unprivileged user, memory, process
 * and time limits), in a fresh process per answer. Only the test ARGUMENTS enter the sandbox; the
 * expected values stay here, and the comparison runs here, in code the answer never touches. An
 * answer can therefore not pass by patching JSON.stringify or by reading the expected values, and
 * its patches die with its process. A fake verdict line gains nothing: the line holds values, which
 * are compared here, so it passes only with the expected values, as hard-coding them would (a
 * test-based verifier is as strong as its tests). (`node:vm` is not a sandbox: code in a vm
 * context can reach the host's realm, and an earlier version of this example was fooled that way.)
 *
 * Without bubblewrap (Debian package `bubblewrap`) the module refuses to load: it never falls back
 * to running answers unsandboxed.
 *
 * truncated: the trainer's finish reason when it sends one ('length' = cut at the token limit),
 * else a response with an opening fence and no closing one. assistantTokens: the trainer's real
 * count (responseLength) when it sends one, else metadata.assistantTokens, else characters / 4
 * (an estimate: send the real count for real training; python/frognano_client.py does).
 */
import { chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSandbox } from 'frognano/leaf';

const FENCE = /```(?:js|javascript)?\n([\s\S]*?)```/;
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
/** Wall-clock limit of one answer's test run, start-up included. */
const RUN_MS = 5000;
/** The marker of the harness's one result line. */
const MARK = 'FROGNANO_OUTPUTS ';

const sandbox = createSandbox({ memoryMB: 2048, maxProcesses: 32, tmpMB: 16, maxFileMB: 16, maxOutputChars: 200_000 });

/**
 * Runs inside the sandbox: loads the answer, calls the entry on each argument list and prints
 * what it returned. It never sees the expected values.
 */
const HARNESS = `
import { readFileSync } from 'node:fs';
const { entry, args } = JSON.parse(readFileSync('args.json', 'utf8'));
const src = readFileSync('answer.js', 'utf8');
const print = console.log.bind(console);
const stringify = JSON.stringify;
let fn;
try {
  fn = new Function(src + '\\n;return typeof ' + entry + " === 'function' ? " + entry + ' : undefined;')();
} catch {
  fn = undefined;
}
const outputs = args.map((a) => {
  if (typeof fn !== 'function') return { ok: false };
  try {
    return { ok: true, value: fn(...a) };
  } catch {
    return { ok: false };
  }
});
print(${JSON.stringify(MARK)} + stringify(outputs));
`;

/** Parses the label; a bad label is the dataset's bug, so it throws (500 naming it). */
function testsOf(label) {
  const spec = typeof label === 'string' ? JSON.parse(label) : label;
  if (!spec || typeof spec.entry !== 'string' || !IDENTIFIER.test(spec.entry) || !Array.isArray(spec.tests) || spec.tests.some((t) => !Array.isArray(t?.args))) {
    throw new Error('label must be JSON {"entry": identifier, "tests": [{"args": [...], "expect": ...}]}');
  }
  return spec;
}

/** Runs the answer on every test's arguments in the sandbox; returns the outputs, or null when it produced none. */
async function runAnswer(code, entry, args) {
  const dir = await mkdtemp(join(tmpdir(), 'frognano-verify-'));
  try {
    await writeFile(join(dir, 'answer.js'), code);
    await writeFile(join(dir, 'args.json'), JSON.stringify({ entry, args }));
    await writeFile(join(dir, 'harness.mjs'), HARNESS);
    if (sandbox.owner) {
      // the sandbox runs as an unprivileged user: it must be able to read its copy
      for (const f of ['', 'answer.js', 'args.json', 'harness.mjs']) await chown(join(dir, f), sandbox.owner.uid, sandbox.owner.gid);
    }
    const r = await sandbox.run(dir, 'node harness.mjs', { timeoutMs: RUN_MS });
    if (r.exitCode !== 0) return null;
    // the last result line: an answer that prints a line of its own does not know the expected values
    const line = r.output.split('\n').reverse().find((l) => l.startsWith(MARK));
    if (line === undefined) return null;
    const outputs = JSON.parse(line.slice(MARK.length));
    return Array.isArray(outputs) && outputs.length === args.length ? outputs : null;
  } catch {
    return null;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export default async function reward({ response, label, metadata, responseLength, finishReason }) {
  const spec = testsOf(label);
  const assistantTokens = Number.isInteger(responseLength)
    ? responseLength
    : Number.isInteger(metadata?.assistantTokens)
      ? metadata.assistantTokens
      : Math.ceil(response.length / 4);
  const block = FENCE.exec(response);
  const truncated = typeof finishReason === 'string' ? finishReason === 'length' : block === null && response.includes('```');
  if (block === null) return { success: false, truncated, assistantTokens };

  const outputs = await runAnswer(block[1], spec.entry, spec.tests.map((t) => t.args));
  // compared here, with this realm's own JSON, which the answer never ran in
  const success = outputs !== null && spec.tests.every((t, i) => outputs[i]?.ok === true && JSON.stringify(outputs[i].value) === JSON.stringify(t.expect));
  return { success, truncated, assistantTokens };
}
