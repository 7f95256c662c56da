/**
 * System packages some tests need (SPEC conventions): a test group that needs
 * one runs where it exists; where it does not, it is skipped with one visible
 * line naming the package, except under `FROGNANO_REQUIRE_SYSTEM=1` (set by
 * `.ci/run`, which installs them), where a missing package fails the run.
 */
import { spawnSync } from 'node:child_process';
import { findBwrap } from '../../src/leaf/sandbox.js';

const warned = new Set<string>();

/** True when `available`; otherwise warns once (or throws under FROGNANO_REQUIRE_SYSTEM=1) and returns false. */
export function needsPackage(pkg: string, available: boolean, what: string): boolean {
  if (available) return true;
  if (process.env.FROGNANO_REQUIRE_SYSTEM === '1') {
    throw new Error(`FROGNANO_REQUIRE_SYSTEM=1 but the Debian package ${pkg} is missing: ${what} cannot run (apt-get install ${pkg})`);
  }
  if (!warned.has(pkg)) {
    warned.add(pkg);
    console.warn(`[frognano tests] skipping ${what}: install the Debian package ${pkg} to run them`);
  }
  return false;
}

/** bubblewrap is installed (the Leaf sandbox's tests). */
export const hasBwrap = (): boolean => needsPackage('bubblewrap', findBwrap() !== null, 'the Leaf sandbox tests');

/** python3 is on PATH (and /usr/bin/python3 for the sandboxed Python tasks). */
export const hasPython = (): boolean => needsPackage('python3', spawnSync('/usr/bin/python3', ['--version']).status === 0, 'the tests that run Python');
/** pytest for Debian's python3 (the hardening suites grade pytest tasks). */
export const hasPytest = (): boolean => needsPackage('python3-pytest', spawnSync('/usr/bin/python3', ['-c', 'import pytest']).status === 0, 'the tests that grade pytest tasks');
