import { readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';

// The process bookkeeping of the Leaf sandbox, read from /proc: how many processes a uid has
// (the leaf bench), and which processes belong to a call (to kill all of them). Linux only, as bubblewrap.

/** Processes owned by `uid` now (the owners of `/proc/<pid>`), uncached. @internal */
export function countUserProcesses(uid: number): number {
  let n = 0;
  try {
    for (const d of readdirSync('/proc')) {
      if (d.charCodeAt(0) < 48 || d.charCodeAt(0) > 57) continue;
      try {
        if (statSync(`/proc/${d}`).uid === uid) n++;
      } catch {
        // the process ended meanwhile
      }
    }
  } catch {
    return 0;
  }
  return n;
}

/** The pids whose command line contains `token` (a bwrap and the copy of itself it forks before the sandbox starts). @internal */
export function pidsWithArgument(token: string): number[] {
  const out: number[] = [];
  try {
    for (const d of readdirSync('/proc')) {
      if (d.charCodeAt(0) < 48 || d.charCodeAt(0) > 57) continue;
      try {
        if (readFileSync(`/proc/${d}/cmdline`, 'latin1').includes(token)) out.push(Number(d));
      } catch {
        // the process ended meanwhile
      }
    }
  } catch {
    return [];
  }
  return out;
}

/** The pids of `root`'s descendants (from the parent links in `/proc/<pid>/stat`), parents before children. @internal */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  try {
    for (const d of readdirSync('/proc')) {
      if (d.charCodeAt(0) < 48 || d.charCodeAt(0) > 57) continue;
      try {
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        const list = children.get(ppid);
        if (list) list.push(Number(d));
        else children.set(ppid, [Number(d)]);
      } catch {
        // the process ended meanwhile
      }
    }
  } catch {
    return [];
  }
  const out: number[] = [];
  for (let i = -1, pid = root; ; pid = out[++i]!) {
    out.push(...(children.get(pid) ?? []));
    if (i + 1 >= out.length) break;
  }
  return out;
}

/** The pid namespace of a process (`pid:[4026532...]`), or null when it is gone. @internal */
export function pidNamespaceOf(pid: number): string | null {
  try {
    return readlinkSync(`/proc/${pid}/ns/pid`);
  } catch {
    return null;
  }
}

/**
 * The pids living in the pid namespace `ns` (as {@link pidNamespaceOf} names it),
 * looking only at processes owned by `uid` when given. A process cannot leave
 * its pid namespace nor forge this link, so this finds every process a sandboxed
 * call left behind, whatever it did to its name, session or parent. @internal
 */
export function pidsInNamespace(ns: string, uid?: number): number[] {
  const out: number[] = [];
  try {
    for (const d of readdirSync('/proc')) {
      if (d.charCodeAt(0) < 48 || d.charCodeAt(0) > 57) continue;
      try {
        if (uid !== undefined && statSync(`/proc/${d}`).uid !== uid) continue;
        if (readlinkSync(`/proc/${d}/ns/pid`) === ns) out.push(Number(d));
      } catch {
        // the process ended meanwhile
      }
    }
  } catch {
    return [];
  }
  return out;
}
