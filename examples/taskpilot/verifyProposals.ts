/**
 * Checks every scripted proposal of `proposals.json` against the bundled repository
 * with the real tools (python3 -m pytest, node --test, git apply), as validation
 * would: on a fresh copy of `repo/`,
 *
 * 1. the snapshot's own suite passes (the test command exits 0);
 * 2. with the hidden F2P files written in, the command fails (the new tests catch the bug);
 * 3. with the gold patch applied (`git apply`) as well, the command passes again.
 *
 * ```sh
 * npx tsx --conditions=@frognano/source examples/taskpilot/verifyProposals.ts
 * ```
 * Exits 1 when a proposal fails a check.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ScriptedProposalSet } from './scriptedGenerator.js';

const here = dirname(fileURLToPath(import.meta.url));

const sh = (cmd: string, cwd: string, input?: string) => spawnSync('bash', ['-c', cmd], { cwd, input, encoding: 'utf8', env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' } });

/** Runs the three checks of one proposal; returns the problems found (empty: ok). */
export function verifyProposal(repo: string, command: string, p: { goldPatch: string; tests: { files: Record<string, string> } }): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'taskpilot-verify-'));
  const problems: string[] = [];
  try {
    cpSync(repo, dir, { recursive: true });
    if (sh(command, dir).status !== 0) problems.push('the snapshot suite fails');
    for (const [path, content] of Object.entries(p.tests.files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), content);
    }
    if (sh(command, dir).status === 0) problems.push('the hidden tests already pass on the snapshot');
    const applied = sh('git apply --unsafe-paths -', dir, p.goldPatch);
    if (applied.status !== 0) problems.push(`the gold patch does not apply: ${applied.stderr.trim()}`);
    else {
      const after = sh(command, dir);
      if (after.status !== 0) problems.push(`the tests fail with the gold patch:\n${after.stdout.slice(-2000)}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return problems;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const sets = JSON.parse(readFileSync(join(here, 'proposals.json'), 'utf8')) as Record<string, ScriptedProposalSet>;
  const repo = join(here, 'repo');
  let bad = 0;
  for (const [lang, set] of Object.entries(sets)) {
    for (const p of set.proposals) {
      const problems = verifyProposal(repo, set.tests.command, p);
      console.log(`${problems.length === 0 ? 'ok  ' : 'FAIL'} ${lang} ${p.name}${problems.length ? `: ${problems.join('; ')}` : ''}`);
      if (problems.length) bad++;
    }
  }
  process.exit(bad ? 1 : 0);
}
