/**
 * `--out FILE` by what FILE is (src/cli/outputFile.ts): a regular file or a new
 * path is replaced atomically and keeps its mode; a symlink stays a link and
 * its target gets the records; a FIFO or a character device is written
 * directly, as shell redirection does; a directory or a socket is bad usage
 * (exit 2) before any record is read. A signal leaves no temporary file.
 *
 * These tests run as root on the CI machine: the only system file they touch
 * is /dev/null, and only to check that it is still a character device.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createReadStream, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync, chmodSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openOutputFile } from '../../src/cli/outputFile.js';
import { CLI_ARGS, jsonl, ROOT, runFrognano, runInProcess } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'frognano-out-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
/** A fresh folder inside the test's temporary folder. */
function sub(): string {
  const d = join(dir, `case-${++n}`);
  execFileSync('mkdir', ['-p', d]);
  return d;
}

const INPUT = jsonl([{ id: 'a', rewards: [1, 0, 0, 1] }, { id: 'b', rewards: [1, 1, 0] }]);
const tmpFiles = (d: string): string[] => readdirSync(d).filter((f) => f.includes('.tmp-'));

/** The records `advantages` prints for INPUT. */
async function expected(): Promise<string> {
  const r = await runInProcess(['advantages'], INPUT);
  expect(r.code).toBe(0);
  return r.stdout;
}

describe('--out by file type', () => {
  /** A clone of /dev/null (`mknod c 1 3`) in the temp folder, where the system allows it; undefined otherwise. */
  function nullClone(): string | undefined {
    const path = join(sub(), 'null');
    try {
      execFileSync('mknod', [path, 'c', '1', '3'], { stdio: 'ignore' });
      writeFileSync(path, 'probe'); // a nodev mount refuses to open it
      return path;
    } catch {
      return undefined;
    }
  }

  it('a character device is written through and stays a character device: a clone of /dev/null, then /dev/null itself (spawned binary, run as root here)', async () => {
    // Guards first, so that a regression replaces at most a clone, never the system's /dev/null.
    const probe = await openOutputFile('/dev/null', { atomic: true });
    const how = probe.how;
    if (how === 'atomic') await probe.abort(); // deletes only the temporary file
    else await probe.commit();
    expect(how).toBe('direct');
    expect(statSync('/dev/null').isCharacterDevice()).toBe(true);
    const clone = nullClone();
    if (clone !== undefined) {
      const c = await runFrognano(['advantages', '--out', clone], INPUT);
      expect(c.code, c.stderr).toBe(0);
      expect(lstatSync(clone).isCharacterDevice()).toBe(true);
    }

    const before = statSync('/dev/null');
    const r = await runFrognano(['advantages', '--out', '/dev/null'], INPUT);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    const after = lstatSync('/dev/null');
    expect(statSync('/dev/null').isCharacterDevice()).toBe(true);
    expect(after.isCharacterDevice()).toBe(true);
    expect(after.rdev).toBe(before.rdev);
    expect(after.ino).toBe(before.ino);
    expect(tmpFiles('/dev')).toEqual([]);
  });

  it('a FIFO is opened and written directly: a concurrent reader gets every record, the FIFO stays a FIFO', async () => {
    const d = sub();
    const fifo = join(d, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const read = new Promise<string>((resolve, reject) => {
      let text = '';
      createReadStream(fifo, 'utf8')
        .on('data', (c) => (text += String(c)))
        .on('end', () => resolve(text))
        .on('error', reject);
    });
    const r = await runFrognano(['advantages', '--out', fifo], INPUT);
    expect(r.code, r.stderr).toBe(0);
    expect(await read).toBe(await expected());
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(tmpFiles(d)).toEqual([]);
  });

  it('a symlink stays a link; its target gets the records (and keeps its mode)', async () => {
    const d = sub();
    const target = join(d, 'target.jsonl');
    writeFileSync(target, 'old\n');
    chmodSync(target, 0o640);
    const link = join(d, 'link.jsonl');
    symlinkSync('target.jsonl', link);
    const r = await runInProcess(['advantages', '--out', link], INPUT);
    expect(r.code, r.stderr).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe('target.jsonl');
    expect(readFileSync(target, 'utf8')).toBe(await expected());
    expect(statSync(target).mode & 0o777).toBe(0o640);
    expect(tmpFiles(d)).toEqual([]);
  });

  it('a chain of symlinks, and a dangling one: the final target is written, every link stays a link', async () => {
    const d = sub();
    execFileSync('mkdir', ['-p', join(d, 'real')]);
    symlinkSync('real', join(d, 'realdir'));
    symlinkSync('realdir/t.jsonl', join(d, 'l1'));
    symlinkSync(join(d, 'l1'), join(d, 'l2'));
    // dangling: real/t.jsonl does not exist yet
    const r1 = await runInProcess(['advantages', '--out', join(d, 'l2')], INPUT);
    expect(r1.code, r1.stderr).toBe(0);
    expect(lstatSync(join(d, 'l1')).isSymbolicLink()).toBe(true);
    expect(lstatSync(join(d, 'l2')).isSymbolicLink()).toBe(true);
    expect(lstatSync(join(d, 'real/t.jsonl')).isFile()).toBe(true);
    expect(readFileSync(join(d, 'real/t.jsonl'), 'utf8')).toBe(await expected());
    // now it exists: replaced again, atomically, in real/
    const r2 = await runInProcess(['advantages', '--out', join(d, 'l2')], jsonl([{ rewards: [0, 1] }]));
    expect(r2.code, r2.stderr).toBe(0);
    expect(readFileSync(join(d, 'real/t.jsonl'), 'utf8')).toBe((await runInProcess(['advantages'], jsonl([{ rewards: [0, 1] }]))).stdout);
    expect([...tmpFiles(d), ...tmpFiles(join(d, 'real'))]).toEqual([]);
  });

  it('a symlink to /dev/null is written through: the link and the device stay as they are', async () => {
    const d = sub();
    const link = join(d, 'null');
    symlinkSync('/dev/null', link);
    const r = await runInProcess(['advantages', '--out', link], INPUT);
    expect(r.code, r.stderr).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(statSync('/dev/null').isCharacterDevice()).toBe(true);
  });

  it('an existing regular file is replaced atomically (a new inode) and keeps its mode 0640', async () => {
    const d = sub();
    const out = join(d, 'out.jsonl');
    writeFileSync(out, 'old\n');
    chmodSync(out, 0o640);
    const ino = statSync(out).ino;
    const r = await runInProcess(['advantages', '--out', out], INPUT);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(await expected());
    const st = statSync(out);
    expect(st.mode & 0o7777).toBe(0o640);
    expect(st.ino).not.toBe(ino);
    expect(tmpFiles(d)).toEqual([]);
  });

  it('other modes are kept too (0600, 0755), and a new file gets the usual 0666 minus the umask', async () => {
    const d = sub();
    for (const mode of [0o600, 0o755, 0o444]) {
      const out = join(d, `m${mode.toString(8)}.jsonl`);
      writeFileSync(out, '');
      chmodSync(out, mode);
      const r = await runInProcess(['advantages', '--out', out], INPUT);
      expect(r.code, r.stderr).toBe(0);
      expect(statSync(out).mode & 0o7777, mode.toString(8)).toBe(mode);
    }
    const fresh = join(d, 'fresh.jsonl');
    expect((await runInProcess(['advantages', '--out', fresh], INPUT)).code).toBe(0);
    const umask = process.umask();
    expect(statSync(fresh).mode & 0o777).toBe(0o666 & ~umask);
  });

  it('invalid input leaves an existing file untouched and no temporary file (exit 1)', async () => {
    const d = sub();
    const out = join(d, 'out.jsonl');
    writeFileSync(out, 'keep\n');
    const r = await runInProcess(['advantages', '--out', out], '{"rewards":[1,0]}\n{"rewards":"x"}\n');
    expect(r.code).toBe(1);
    expect(readFileSync(out, 'utf8')).toBe('keep\n');
    expect(tmpFiles(d)).toEqual([]);
  });

  it('a directory is bad usage (exit 2) before any record is read or computed', async () => {
    const d = sub();
    // an invalid record would give exit 1 if it were read; a valid one exit 3 (rename onto a directory) if computed
    for (const input of ['{"rewards":"x"}\n', INPUT]) {
      const r = await runInProcess(['advantages', '--out', d], input);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`cannot write --out ${d}: it is a directory`);
      expect(r.stdout).toBe('');
    }
    symlinkSync(d, join(dir, `dirlink-${n}`));
    const viaLink = await runInProcess(['advantages', '--out', join(dir, `dirlink-${n}`)], INPUT);
    expect(viaLink.code).toBe(2);
    expect(viaLink.stderr).toContain('it is a directory');
    expect(readdirSync(d)).toEqual([]);
    expect(tmpFiles(dir)).toEqual([]);
  });

  it('the spawned binary: --out DIR exits 2 with the message, and nothing is written', async () => {
    const d = sub();
    const r = await runFrognano(['advantages', '--out', d], INPUT);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('it is a directory');
    expect(readdirSync(d)).toEqual([]);
    expect(tmpFiles(dir)).toEqual([]);
  });

  it('a socket is bad usage (exit 2) and stays a socket', async () => {
    const d = sub();
    const path = join(d, 'sock');
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(path, resolve));
    try {
      const r = await runInProcess(['advantages', '--out', path], INPUT);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`cannot write --out ${path}: it is a socket`);
      expect(lstatSync(path).isSocket()).toBe(true);
      expect(tmpFiles(d)).toEqual([]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('a folder that does not exist is bad usage (exit 2)', async () => {
    const r = await runInProcess(['advantages', '--out', join(dir, 'no/such/dir/out.jsonl')], INPUT);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('cannot write --out');
  });
});

/** Spawns the CLI on a stdin it keeps open; resolves when it has exited. */
function spawnOpen(args: readonly string[]): { child: ReturnType<typeof spawn>; exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> } {
  const child = spawn(process.execPath, [...CLI_ARGS, ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdout!.resume();
  child.stdin!.on('error', () => {});
  const timer = setTimeout(() => child.kill('SIGKILL'), 25_000);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr });
    }),
  );
  return { child, exited };
}

async function until(cond: () => boolean, ms = 20_000): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('--out and signals: no temporary file is left behind', () => {
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    it(`${sig} in the middle of a run (records read, more to come): the process dies of ${sig}, no .tmp- file, the old file intact`, async () => {
      const d = sub();
      const out = join(d, 'out.jsonl');
      writeFileSync(out, 'old\n');
      const { child, exited } = spawnOpen(['advantages', '--out', out]);
      // a slow input: some records now, the rest never comes
      child.stdin!.write(jsonl(Array.from({ length: 2000 }, (_, i) => ({ id: i, rewards: [1, 0, i % 3] }))));
      await until(() => tmpFiles(d).length === 1);
      await new Promise((r) => setTimeout(r, 300)); // let it read and compute what it has
      child.kill(sig);
      const r = await exited;
      expect(r.signal ?? r.code, r.stderr).toBe(sig);
      expect(tmpFiles(d)).toEqual([]);
      expect(readFileSync(out, 'utf8')).toBe('old\n');
    });
  }

  it('SIGINT with a new output path: neither the file nor a temporary file exists afterwards', async () => {
    const d = sub();
    const out = join(d, 'new.jsonl');
    const { child, exited } = spawnOpen(['advantages', '--out', out]);
    child.stdin!.write(jsonl([{ rewards: [1, 0] }]));
    await until(() => tmpFiles(d).length === 1);
    child.kill('SIGINT');
    const r = await exited;
    expect(r.signal ?? r.code).toBe('SIGINT');
    expect(readdirSync(d)).toEqual([]);
    expect(existsSync(out)).toBe(false);
  });
});

describe('openOutputFile', () => {
  it('atomic: the destination appears only on commit; abort deletes the temporary file', async () => {
    const d = sub();
    const out = join(d, 'a.jsonl');
    const o = await openOutputFile(out, { atomic: true });
    expect(o.how).toBe('atomic');
    o.stream.write('x\n');
    expect(existsSync(out)).toBe(false);
    await o.commit();
    expect(readFileSync(out, 'utf8')).toBe('x\n');
    const o2 = await openOutputFile(out, { atomic: true });
    o2.stream.write('y\n');
    await o2.abort();
    expect(readFileSync(out, 'utf8')).toBe('x\n');
    expect(tmpFiles(d)).toEqual([]);
  });

  it('direct (rollout): a regular file is truncated in place (same inode, same mode); a directory is refused', async () => {
    const d = sub();
    const out = join(d, 'r.jsonl');
    writeFileSync(out, 'old old old\n');
    chmodSync(out, 0o640);
    const ino = statSync(out).ino;
    const o = await openOutputFile(out, { atomic: false });
    expect(o.how).toBe('direct');
    o.stream.write('new\n');
    await o.commit();
    expect(readFileSync(out, 'utf8')).toBe('new\n');
    expect(statSync(out).ino).toBe(ino);
    expect(statSync(out).mode & 0o777).toBe(0o640);
    await expect(openOutputFile(d, { atomic: false })).rejects.toThrow(/it is a directory/);
  });

  it('leaves no SIGINT / SIGTERM / SIGHUP listener behind after commit or abort', async () => {
    const before = ['SIGINT', 'SIGTERM', 'SIGHUP'].map((s) => process.listenerCount(s));
    const d = sub();
    const a = await openOutputFile(join(d, 'x'), { atomic: true });
    expect(process.listenerCount('SIGINT')).toBe(before[0]! + 1);
    await a.commit();
    const b = await openOutputFile(join(d, 'y'), { atomic: true });
    await b.abort();
    expect(['SIGINT', 'SIGTERM', 'SIGHUP'].map((s) => process.listenerCount(s))).toEqual(before);
  });
});

describe('frognano rollout --out uses the same rules', () => {
  const TASKS = join(ROOT, 'examples/leaf/tasks.jsonl');
  const model = ['--unsafe-no-sandbox', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm'];

  it('a directory or a socket is bad usage (exit 2) before any episode runs', async () => {
    const d = sub();
    const r = await runFrognano(['rollout', '--tasks', TASKS, ...model, '--out', d]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`cannot write --out ${d}: it is a directory`);
    expect(readdirSync(d)).toEqual([]);
    const path = join(d, 'sock');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(path, resolve));
    try {
      const s = await runFrognano(['rollout', '--tasks', TASKS, ...model, '--out', path]);
      expect(s.code, s.stderr).toBe(2);
      expect(s.stderr).toContain('it is a socket');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
