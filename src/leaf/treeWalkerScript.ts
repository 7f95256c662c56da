/**
 * The JavaScript source of the tree walker's child process (see `treeWalker.ts`),
 * run as `node --input-type=module -e WALKER_SCRIPT`, so that it runs the same
 * from the TypeScript sources (vitest, tsx) and from `dist/`.
 *
 * Why a child process: Node has no `openat()`, and a path longer than PATH_MAX
 * (4096 bytes) cannot be opened by name, so a tree the agent made deeper than
 * that would be unreadable; and a walk of 100,000 entries done on frognano's main
 * thread stalls every concurrent episode. The child walks by changing its working
 * directory one folder at a time (opened with `O_DIRECTORY | O_NOFOLLOW`, entered
 * through `/proc/self/fd/N`, which works for any name bytes, and left by `..`,
 * each step checked against the folder's device and inode), so every name it
 * opens is relative to the cwd and short; it uses only synchronous calls (its cwd
 * is its whole state), and it never follows a symbolic link (every name is
 * `lstat`ed; files are opened with `O_NOFOLLOW`). Names are bytes throughout.
 *
 * Protocol. The parent writes one JSON command per line on stdin; the child
 * answers each with frames on stdout, `[u32 BE length][u8 type][payload]`:
 *
 * - `{ op: 'walk', root, skipTop, maxEntries, maxPathBytes, deadline }`:
 *   one `E` frame per regular file and symbolic link, in git's path order (a
 *   folder sorts as its name followed by `/`, so the order is the byte order of
 *   the whole relative paths), then `D` `{ entries }`. An `E` payload is
 *   `[u8 kind: 0 file, 1 link][u8 executable][f64 BE size][u32 path length][path]
 *   [u32 aux length][aux]`, aux being the file's SHA-256 or the link's target.
 *   Folders named in `skipTop` at the top level are not walked. A missing root
 *   is an empty tree (`D` `{ entries: 0, missing: true }`).
 * - `{ op: 'read', root, path (hex), max }`: a `C` frame with the first `max`
 *   bytes of that regular file (no component may be a link).
 * - `{ op: 'restore', root, deadline }`: adds the owner's `rwx` to every folder
 *   and `rw` to every regular file below `root` (and `root`), links untouched;
 *   `D` `{ entries, failed, first? }`.
 *
 * A command that cannot finish answers `X` `{ kind, path?, count?, code?, message? }`,
 * kind one of `too-many` (more than `maxEntries` entries: `count` is the exact number,
 * or a lower bound with `partial` when counting reached the deadline), `path-bytes`
 * (the relative paths add up to more than `maxPathBytes`), `time` (past
 * `deadline`, epoch ms), `unreadable` (an `lstat`, `readdir`, `open` or `read`
 * failed: `code`), `changed` (a folder was swapped during the walk) or `internal`.
 * Paths in `X` are hex. End of stdin ends the child.
 */
export const WALKER_SCRIPT = String.raw`
import { chmodSync, closeSync, constants as C, existsSync, fstatSync, lstatSync, openSync, readSync, readdirSync, readlinkSync, statSync, writeSync } from 'node:fs';
import { createHash } from 'node:crypto';

const SLASH = Buffer.from('/');
const EMPTY = Buffer.alloc(0);
const PROC = existsSync('/proc/self/fd');
const CHUNK = Buffer.allocUnsafe(1 << 20);

class Stop { constructor(info) { this.info = info; } }

let out = [];
let outLen = 0;
function flush() {
  if (outLen === 0) return;
  const b = out.length === 1 ? out[0] : Buffer.concat(out, outLen);
  out = [];
  outLen = 0;
  for (let off = 0; off < b.length; ) {
    try {
      off += writeSync(1, b, off, b.length - off);
    } catch (e) {
      if (e.code !== 'EAGAIN') throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
    }
  }
}
function frame(type, payload) {
  const h = Buffer.allocUnsafe(5);
  h.writeUInt32BE(payload.length, 0);
  h[4] = type.charCodeAt(0);
  out.push(h, payload);
  outLen += 5 + payload.length;
  if (outLen >= 1 << 18) flush();
}
const json = (type, v) => frame(type, Buffer.from(JSON.stringify(v)));
const join = (prefix, name) => (prefix.length === 0 ? name : Buffer.concat([prefix, SLASH, name]));
const unreadable = (path, e) => new Stop({ kind: 'unreadable', path: path.toString('hex'), code: e.code || 'EIO', message: String(e.message || e) });
const changed = (path) => new Stop({ kind: 'changed', path: path.toString('hex') });
const same = (a, b) => a.ino === b.ino && a.dev === b.dev;

/** Enters the folder 'name' of the cwd (lstat 'st'), never through a link. */
function enter(name, st, path) {
  try {
    if (PROC) {
      const fd = openSync(name, C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW | C.O_NONBLOCK);
      try {
        if (!same(fstatSync(fd), st)) throw changed(path);
        process.chdir('/proc/self/fd/' + fd);
      } finally {
        closeSync(fd);
      }
    } else {
      const s = name.toString('utf8');
      if (!Buffer.from(s, 'utf8').equals(name)) throw Object.assign(new Error('a folder name that is not UTF-8 needs /proc/self/fd'), { code: 'ENOTSUP' });
      process.chdir(s);
    }
  } catch (e) {
    throw e instanceof Stop ? e : unreadable(path, e);
  }
  if (!same(lstatSync('.'), st)) throw changed(path);
}
/** Back to the parent folder, checked to be the one we came from. */
function leave(parentSt, path) {
  process.chdir('..');
  if (!same(lstatSync('.'), parentSt)) throw changed(path);
}

/** Goes to 'root' (followed if a link: the caller chose it); null when it does not exist. */
function enterRoot(root) {
  try {
    process.chdir(root);
    return lstatSync('.');
  } catch (e) {
    if (e.code === 'ENOENT') return null;
    throw unreadable(EMPTY, e);
  }
}

/** Opens the regular file 'name' of the cwd (lstat 'st') without following a link. */
function openFile(name, st, path) {
  let fd;
  try {
    fd = openSync(name, C.O_RDONLY | C.O_NOFOLLOW | C.O_NONBLOCK);
  } catch (e) {
    throw unreadable(path, e);
  }
  const f = fstatSync(fd);
  if (!f.isFile() || !same(f, st)) {
    closeSync(fd);
    throw changed(path);
  }
  return fd;
}

function walk(cmd) {
  const { maxEntries, maxPathBytes, deadline } = cmd;
  const skip = new Set(cmd.skipTop);
  const rootSt = enterRoot(cmd.root);
  if (rootSt === null) return json('D', { entries: 0, missing: true });
  let count = 0;
  let pathBytes = 0;
  const list = (prefix, atTop) => {
    let names;
    try {
      names = readdirSync('.', { encoding: 'buffer' });
    } catch (e) {
      throw unreadable(prefix, e);
    }
    const items = [];
    for (const name of names) {
      let st;
      try {
        st = lstatSync(name);
      } catch (e) {
        throw unreadable(join(prefix, name), e);
      }
      const dir = st.isDirectory();
      if (dir && atTop && skip.has(name.toString('latin1'))) continue;
      if (++count > maxEntries) throw new Stop({ kind: 'too-many' });
      if ((count & 255) === 0 && Date.now() > deadline) throw new Stop({ kind: 'time', path: prefix.toString('hex') });
      if (dir) items.push({ name, key: Buffer.concat([name, SLASH]), st, dir: true });
      else if (st.isFile() || st.isSymbolicLink()) items.push({ name, key: name, st, dir: false });
      // sockets, FIFOs and devices are not repository content
    }
    items.sort((x, y) => Buffer.compare(x.key, y.key));
    return items;
  };
  const stack = [{ prefix: EMPTY, items: list(EMPTY, true), i: 0, st: rootSt }];
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    if (top.i >= top.items.length) {
      stack.pop();
      if (stack.length > 0) leave(stack[stack.length - 1].st, top.prefix);
      continue;
    }
    const it = top.items[top.i++];
    const path = join(top.prefix, it.name);
    pathBytes += path.length;
    if (pathBytes > maxPathBytes) throw new Stop({ kind: 'path-bytes', path: path.subarray(0, 256).toString('hex') });
    if (Date.now() > deadline) throw new Stop({ kind: 'time', path: path.toString('hex') });
    if (it.dir) {
      enter(it.name, it.st, path);
      stack.push({ prefix: path, items: list(path, false), i: 0, st: it.st });
      continue;
    }
    let kind, exec, size, aux;
    if (it.st.isSymbolicLink()) {
      try {
        aux = readlinkSync(it.name, { encoding: 'buffer' });
      } catch (e) {
        throw unreadable(path, e);
      }
      kind = 1;
      exec = 0;
      size = aux.length;
    } else {
      const fd = openFile(it.name, it.st, path);
      const h = createHash('sha256');
      size = 0;
      try {
        for (let n; (n = readSync(fd, CHUNK, 0, CHUNK.length, null)) > 0; ) {
          h.update(CHUNK.subarray(0, n));
          size += n;
          if (Date.now() > deadline) throw new Stop({ kind: 'time', path: path.toString('hex') });
        }
      } catch (e) {
        throw e instanceof Stop ? e : unreadable(path, e);
      } finally {
        closeSync(fd);
      }
      aux = h.digest();
      kind = 0;
      exec = it.st.mode & 0o111 ? 1 : 0;
    }
    const head = Buffer.allocUnsafe(14);
    head[0] = kind;
    head[1] = exec;
    head.writeDoubleBE(size, 2);
    head.writeUInt32BE(path.length, 10);
    const mid = Buffer.allocUnsafe(4);
    mid.writeUInt32BE(aux.length, 0);
    frame('E', Buffer.concat([head, path, mid, aux]));
  }
  json('D', { entries: count });
}

/** Counts every entry below the root (after a walk found too many), until 'deadline' or an unreadable folder (then 'partial'). */
function countAll(cmd) {
  const c = { count: 0, partial: true };
  try {
    countInto(cmd, c);
  } catch {
    // an unreadable folder: what was counted is a lower bound
  }
  return c;
}
function countInto(cmd, c) {
  const skip = new Set(cmd.skipTop);
  const rootSt = enterRoot(cmd.root);
  if (rootSt === null) return;
  const list = (atTop) => {
    const dirs = [];
    for (const d of readdirSync('.', { withFileTypes: true, encoding: 'buffer' })) {
      let dir = d.isDirectory();
      if (!dir && !d.isFile() && !d.isSymbolicLink() && !d.isFIFO() && !d.isSocket() && !d.isCharacterDevice() && !d.isBlockDevice()) dir = lstatSync(d.name).isDirectory();
      if (dir && atTop && skip.has(d.name.toString('latin1'))) continue;
      c.count++;
      if (dir) dirs.push(d.name);
    }
    return dirs;
  };
  const stack = [{ dirs: list(true), i: 0, st: rootSt }];
  while (stack.length > 0) {
    if (Date.now() > cmd.deadline) return;
    const top = stack[stack.length - 1];
    if (top.i >= top.dirs.length) {
      stack.pop();
      if (stack.length > 0) leave(stack[stack.length - 1].st, EMPTY);
      continue;
    }
    const name = top.dirs[top.i++];
    const st = lstatSync(name);
    if (!st.isDirectory()) continue;
    enter(name, st, EMPTY);
    stack.push({ dirs: list(false), i: 0, st });
  }
  c.partial = false;
}

/** The read cursor: the folder the cwd is in (root and path components), kept between reads. */
let cursor = null;
function read(cmd) {
  const parts = Buffer.from(cmd.path, 'hex');
  const names = [];
  for (let i = 0; i <= parts.length; ) {
    let j = parts.indexOf(0x2f, i);
    if (j === -1) j = parts.length;
    names.push(parts.subarray(i, j));
    i = j + 1;
  }
  const file = names.pop();
  if (cursor === null || cursor.root !== cmd.root) {
    const st = enterRoot(cmd.root);
    if (st === null) throw unreadable(EMPTY, Object.assign(new Error('the root does not exist'), { code: 'ENOENT' }));
    cursor = { root: cmd.root, names: [], sts: [st] };
  }
  let common = 0;
  while (common < cursor.names.length && common < names.length && cursor.names[common].equals(names[common])) common++;
  while (cursor.names.length > common) {
    cursor.names.pop();
    cursor.sts.pop();
    leave(cursor.sts[cursor.sts.length - 1], parts);
  }
  for (let k = common; k < names.length; k++) {
    let st;
    try {
      st = lstatSync(names[k]);
    } catch (e) {
      throw unreadable(parts, e);
    }
    if (!st.isDirectory()) throw changed(parts);
    enter(names[k], st, parts);
    cursor.names.push(names[k]);
    cursor.sts.push(st);
  }
  let st;
  try {
    st = lstatSync(file);
  } catch (e) {
    throw unreadable(parts, e);
  }
  if (!st.isFile()) throw changed(parts);
  const fd = openFile(file, st, parts);
  try {
    const want = Math.min(cmd.max, st.size);
    const buf = Buffer.allocUnsafe(want);
    let got = 0;
    for (let n; got < want && (n = readSync(fd, buf, got, want - got, null)) > 0; ) got += n;
    frame('C', buf.subarray(0, got));
  } catch (e) {
    throw unreadable(parts, e);
  } finally {
    closeSync(fd);
  }
}

function restore(cmd) {
  let entries = 0;
  let failed = 0;
  let first;
  const fail = (path, e) => {
    failed++;
    if (first === undefined) first = { path: path.toString('hex'), code: e.code || 'EIO' };
  };
  const fix = (name, st, bits, path) => {
    if ((st.mode & bits) === bits) return true;
    try {
      chmodSync(name, (st.mode & 0o7777) | bits);
      return true;
    } catch (e) {
      fail(path, e);
      return false;
    }
  };
  let rootSt;
  try {
    const s = statSync(cmd.root);
    if (!s.isDirectory()) return json('D', { entries: 0, failed: 0 });
    fix(cmd.root, s, 0o700, EMPTY);
    rootSt = enterRoot(cmd.root);
  } catch (e) {
    if (e.code === 'ENOENT') return json('D', { entries: 0, failed: 0 });
    throw e instanceof Stop ? e : unreadable(EMPTY, e);
  }
  const list = (prefix) => {
    let names;
    try {
      names = readdirSync('.', { encoding: 'buffer' });
    } catch (e) {
      fail(prefix, e);
      return [];
    }
    const dirs = [];
    for (const name of names) {
      if ((++entries & 255) === 0 && Date.now() > cmd.deadline) throw new Stop({ kind: 'time', path: prefix.toString('hex') });
      const path = join(prefix, name);
      let st;
      try {
        st = lstatSync(name);
      } catch (e) {
        fail(path, e);
        continue;
      }
      if (st.isDirectory()) dirs.push({ name, st, path, fixed: fix(name, st, 0o700, path) });
      else if (st.isFile()) fix(name, st, 0o600, path);
    }
    return dirs;
  };
  const stack = [{ dirs: list(EMPTY), i: 0, st: rootSt, prefix: EMPTY }];
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    if (top.i >= top.dirs.length) {
      stack.pop();
      if (stack.length > 0) leave(stack[stack.length - 1].st, top.prefix);
      continue;
    }
    const d = top.dirs[top.i++];
    try {
      enter(d.name, d.st, d.path);
    } catch (e) {
      if (!(e instanceof Stop) || e.info.kind !== 'unreadable') throw e;
      if (d.fixed) fail(d.path, { code: e.info.code });
      continue;
    }
    stack.push({ dirs: list(d.path), i: 0, st: d.st, prefix: d.path });
  }
  json('D', first === undefined ? { entries, failed } : { entries, failed, first });
}

function handle(cmd) {
  if (cmd.op !== 'read') cursor = null;
  try {
    if (cmd.op === 'walk') {
      try {
        walk(cmd);
      } catch (e) {
        if (!(e instanceof Stop) || e.info.kind !== 'too-many') throw e;
        const c = countAll(cmd);
        throw new Stop({ kind: 'too-many', count: c.count, partial: c.partial });
      }
    } else if (cmd.op === 'read') read(cmd);
    else if (cmd.op === 'restore') restore(cmd);
    else throw new Error('unknown op ' + cmd.op);
  } catch (e) {
    cursor = null;
    json('X', e instanceof Stop ? e.info : { kind: 'internal', message: String((e && e.stack) || e) });
  } finally {
    if (cursor === null) {
      try {
        process.chdir('/');
      } catch {}
    }
    flush();
  }
}

let pending = EMPTY;
process.stdin.on('data', (chunk) => {
  pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
  for (let nl; (nl = pending.indexOf(10)) !== -1; ) {
    const line = pending.subarray(0, nl).toString('utf8');
    pending = pending.subarray(nl + 1);
    handle(JSON.parse(line));
  }
});
process.stdin.on('end', () => process.exit(0));
`;
