/**
 * A tiny root filesystem folder built from host files, for the tests of the
 * sandbox over an image (SPEC §14): `/bin/busybox` (busybox-static) with its
 * applets as links, `/bin/bash` (bash-static), a marker `/etc/image-release`,
 * empty mount points `/proc /dev /tmp /repo`; with `python`, the host's
 * `/usr/bin/python3` with the libraries `ldd` lists and its standard library.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { needsPackage } from './system.js';

/** The host files an image root is made of. */
const BUSYBOX = '/bin/busybox';
const BASH = '/bin/bash-static';
const PYTHON = '/usr/bin/python3';

/** The applets linked to busybox in `/bin`. */
export const IMAGE_APPLETS = ['sh', 'ls', 'cat', 'echo', 'mkdir', 'rm', 'grep', 'env', 'id', 'test', '[', 'touch', 'wc', 'sleep', 'head', 'tail', 'printf', 'true', 'false', 'pwd', 'sed', 'cp', 'mv', 'stat', 'readlink', 'hostname'];

/** The marker file's content (`/etc/image-release`). */
export const IMAGE_RELEASE = 'frognano-test-image 1\n';

/** Options of {@link buildImageRoot}. */
export interface ImageRootOptions {
  /** Folder to make the root in (a new `frognano-image-XXXX` inside). Default the OS temporary folder. */
  parent?: string;
  /** Add the host's python3 (binary, the libraries `ldd` lists, its standard library). Default false. */
  python?: boolean;
  /** Extra files: path inside the image -> content. Default none. */
  files?: Record<string, string>;
  /** Leave out the mount points (`/proc /dev /tmp /repo`). Default false. */
  noMountPoints?: boolean;
  /** Leave out bash. Default false. */
  noBash?: boolean;
}

/** True when busybox-static and bash-static are installed (else the image tests are skipped, naming the package). */
export const hasImageTools = (): boolean => needsPackage('busybox-static', existsSync(BUSYBOX), 'the image sandbox tests') && needsPackage('bash-static', existsSync(BASH), 'the image sandbox tests');

/** True when the host's python3 can be copied into an image (`ldd` lists its libraries). */
export const canCopyPython = (): boolean => existsSync(PYTHON) && spawnSync('ldd', [PYTHON]).status === 0;

/** Copies host file `src` to `dst` inside `root` (folders made, mode kept). */
function copyInto(root: string, src: string, dst = src): void {
  const to = join(root, dst);
  mkdirSync(dirname(to), { recursive: true });
  copyFileSync(src, to);
  chmodSync(to, 0o755);
}

/** The host's python3 into `root`: its binary at the same path, each library `ldd` lists (loader included), `/usr/lib/python3.X`. */
function addPython(root: string): void {
  copyInto(root, realpathSync(PYTHON), PYTHON);
  const ldd = execFileSync('ldd', [PYTHON], { encoding: 'utf8' });
  for (const m of ldd.matchAll(/(\/\S+)\s+\(0x/g)) {
    const lib = m[1]!;
    // at the path the binary asks for (the loader's /lib64/... link included), as a plain file
    copyInto(root, realpathSync(lib), lib);
  }
  const version = execFileSync(PYTHON, ['-c', 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")'], { encoding: 'utf8' }).trim();
  const stdlib = `/usr/lib/python${version}`;
  cpSync(stdlib, join(root, stdlib), { recursive: true, verbatimSymlinks: true, filter: (p) => !p.includes('__pycache__') && !p.endsWith('/site-packages') && !p.endsWith('/dist-packages') && !p.includes('/test/') });
  symlinkSync('python3', join(root, 'usr/bin/python'));
}

/**
 * Builds a root filesystem folder (readable by every user, so that a root-started
 * sandbox running as nobody can bind it) and returns its path.
 */
export function buildImageRoot(opts: ImageRootOptions = {}): string {
  const root = mkdtempSync(join(opts.parent ?? tmpdir(), 'frognano-image-'));
  chmodSync(root, 0o755);
  copyInto(root, BUSYBOX, '/bin/busybox');
  for (const a of IMAGE_APPLETS) symlinkSync('busybox', join(root, 'bin', a));
  if (!opts.noBash) copyInto(root, BASH, '/bin/bash');
  mkdirSync(join(root, 'etc'), { mode: 0o755 });
  writeFileSync(join(root, 'etc/image-release'), IMAGE_RELEASE);
  mkdirSync(join(root, 'usr/bin'), { recursive: true, mode: 0o755 });
  if (!opts.noMountPoints) for (const d of ['proc', 'dev', 'tmp', 'repo']) mkdirSync(join(root, d), { mode: 0o755 });
  if (opts.python) addPython(root);
  for (const [p, content] of Object.entries(opts.files ?? {})) {
    mkdirSync(dirname(join(root, p)), { recursive: true, mode: 0o755 });
    writeFileSync(join(root, p), content);
  }
  return root;
}
