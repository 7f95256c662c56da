import { mkdtemp, rm, writeFile, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFrognanoError, expectFrognanoErrorAsync } from '../../test/helpers/expectError.js';
import { hasBwrap } from '../../test/helpers/system.js';
import { findBwrap } from './bwrap.js';
import { capOutput } from './capOutput.js';
import { createSandbox } from './sandbox.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'frognano-sandbox-test-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('capOutput', () => {
  it('keeps short output whole', () => expect(capOutput('abc', 200)).toEqual({ text: 'abc', truncated: false }));
  it('keeps the head and the tail of long output with a note giving the omitted count', () => {
    const r = capOutput('a'.repeat(150) + 'b'.repeat(150), 200);
    expect(r.truncated).toBe(true);
    expect(r.text).toBe(`${'a'.repeat(100)}\n[... 100 characters of output omitted; narrow the command (head, tail, grep) to see them ...]\n${'b'.repeat(100)}`);
  });
  it('appends the kill note even to short output', () => expect(capOutput('x', 200, '\n[killed]')).toEqual({ text: 'x\n[killed]', truncated: true }));
});

describe('findBwrap', () => {
  it('an explicit path must be executable', async () => {
    const fake = join(dir, 'bwrap');
    await writeFile(fake, '#!/bin/sh\n');
    expect(findBwrap(fake)).toBeNull();
    await chmod(fake, 0o755);
    expect(findBwrap(fake)).toBe(fake);
  });
  it('FROGNANO_BWRAP wins over PATH; an empty PATH finds only the standard locations', () => {
    expect(findBwrap(undefined, { FROGNANO_BWRAP: '/nonexistent/bwrap', PATH: '/usr/bin' })).toBeNull();
    expect(findBwrap(undefined, { PATH: dir })).toBe(join(dir, 'bwrap'));
  });
});

describe('createSandbox', () => {
  it('without bubblewrap: SANDBOX_UNAVAILABLE naming the package and the unsafe override', () => {
    const e = expectFrognanoError(() => createSandbox({ bwrapPath: '/nonexistent/bwrap' }), 'SANDBOX_UNAVAILABLE', 'bubblewrap', 'apt-get install bubblewrap', '--unsafe-no-sandbox');
    expect(e.fn).toBe('createSandbox');
  });
  it('rejects an unknown option', () => expectFrognanoError(() => createSandbox({ memoryMb: 10 } as never), 'INVALID_TYPE', 'memoryMb'));
  it('rejects maxProcesses below 8', () => expectFrognanoError(() => createSandbox({ maxProcesses: 2 }), 'OUT_OF_RANGE', 'opts.maxProcesses'));
  it('rejects uid 0 for the sandbox user', () => expectFrognanoError(() => createSandbox({ uid: 0 }), 'OUT_OF_RANGE', 'opts.uid'));
});

describe('the unsafe sandbox (--unsafe-no-sandbox): no isolation, but the same time and output limits', () => {
  const sb = () => createSandbox({ unsafeNoSandbox: true, killAfterOutputBytes: 65536, maxOutputChars: 1000 });
  it('runs bash -c in the folder with a minimal environment', async () => {
    const r = await sb().run(dir, 'pwd; echo "[$FROGNANO_LLM_API_KEY]"; exit 3', { timeoutMs: 5000 });
    expect(r.exitCode).toBe(3);
    expect(r.output).toBe(`${dir}\n[]\n`);
    expect(sb().kind).toBe('none');
    expect(sb().owner).toBeNull();
  });
  it('kills the whole process group at the time limit, children included', async () => {
    const t0 = performance.now();
    const r = await sb().run(dir, "trap '' TERM; sleep 20 & sleep 20", { timeoutMs: 300 });
    expect(performance.now() - t0).toBeLessThan(3000);
    expect(r).toMatchObject({ exitCode: null, timedOut: true });
  });
  it('a background process does not hold the call open', async () => {
    const t0 = performance.now();
    const r = await sb().run(dir, 'sleep 20 & echo bg', { timeoutMs: 10_000 });
    expect(performance.now() - t0).toBeLessThan(3000);
    expect(r.output).toBe('bg\n');
  });
  it('kills endless output past the limit', async () => {
    const r = await sb().run(dir, 'yes', { timeoutMs: 10_000 });
    expect(r).toMatchObject({ exitCode: null, outputLimitKilled: true, outputTruncated: true });
    expect(r.output).toContain('[killed: the command wrote more than 65536 bytes of output]');
  });
  it('an aborted signal kills the command', async () => {
    const ctrl = new AbortController();
    setTimeout(() => ctrl.abort(), 100);
    const r = await sb().run(dir, 'sleep 20', { timeoutMs: 10_000, signal: ctrl.signal });
    expect(r).toMatchObject({ exitCode: null, aborted: true, timedOut: false });
  });
});

describe('Sandbox.run: per-command options (rejected before anything runs)', () => {
  const sb = () => createSandbox({ unsafeNoSandbox: true });
  it('rejects a timeoutMs of 0: OUT_OF_RANGE naming opts.timeoutMs', async () => {
    const e = await expectFrognanoErrorAsync(() => sb().run(dir, 'true', { timeoutMs: 0 }), 'OUT_OF_RANGE', 'opts.timeoutMs');
    expect(e.fn).toBe('sandbox.run');
  });
  it('rejects a NaN timeoutMs: NON_FINITE', () => expectFrognanoErrorAsync(() => sb().run(dir, 'true', { timeoutMs: NaN }), 'NON_FINITE', 'opts.timeoutMs'));
  it('rejects a missing timeoutMs: INVALID_TYPE', () => expectFrognanoErrorAsync(() => sb().run(dir, 'true', {} as never), 'INVALID_TYPE', 'opts.timeoutMs'));
  it('rejects a signal that is not an AbortSignal', () => expectFrognanoErrorAsync(() => sb().run(dir, 'true', { timeoutMs: 100, signal: {} as never }), 'INVALID_TYPE', 'opts.signal', 'must be an AbortSignal'));
  it('rejects an unknown option', () => expectFrognanoErrorAsync(() => sb().run(dir, 'true', { timeoutMs: 100, timeout: 100 } as never), 'INVALID_TYPE', '"timeout"'));
});

describe.skipIf(!hasBwrap())('the bubblewrap sandbox', () => {
  // run as root, the sandbox is an unprivileged user that must reach the folder (createWorkspace chowns it)
  beforeAll(() => chmod(dir, 0o777));
  it('runs as an unprivileged user in /repo with its own hostname, no capabilities, a cleared environment', async () => {
    const sb = createSandbox();
    const r = await sb.run(dir, 'echo "$(pwd) $(hostname) $HOME"; grep CapEff /proc/self/status; env | sort | cut -d= -f1 | tr "\\n" " "', { timeoutMs: 10_000 });
    expect(r.exitCode).toBe(0);
    expect(r.output).toMatch(/^\/repo leaf \/tmp\nCapEff:\s+0000000000000000\n/);
    expect(r.output).toContain('GIT_PAGER HOME LANG LEAF_CALL PAGER PATH PWD PYTHONDONTWRITEBYTECODE PYTHONPYCACHEPREFIX SHLVL TERM');
    if (process.getuid?.() === 0) expect(sb.owner).toEqual({ uid: 65534, gid: 65534 });
  });
  it('env adds variables inside; a bwrap that cannot bind its folder is SANDBOX_UNAVAILABLE', async () => {
    const sb = createSandbox({ env: { FOO: 'bar' } });
    expect((await sb.run(dir, 'echo $FOO', { timeoutMs: 10_000 })).output).toBe('bar\n');
    await expect(sb.run(join(dir, 'missing'), 'true', { timeoutMs: 10_000 })).rejects.toMatchObject({ code: 'SANDBOX_UNAVAILABLE' });
  });
});
