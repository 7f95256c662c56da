/**
 * The import graph of `src/`, read from the import statements of its `.ts`
 * files (no package, no type checker), and the module rules of
 * `docs/architecture.md`, read from its table. Used by `imports.test.ts`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** One relative import of a source file. */
export interface ImportEdge {
  /** The importing file, relative to the repository root (`src/cli/cli.ts`). */
  from: string;
  /** The imported file, relative to the repository root (`src/commands/index.ts`). */
  to: string;
  /** `import type` / `export type`: erased at run time (`import { type A }` is not: it stays a bare import). */
  typeOnly: boolean;
  /** `import('...')`: loaded only when the code runs. */
  dynamic: boolean;
}

/** Block comments and whole-line `//` comments removed (JSDoc examples hold import statements too). */
function stripComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

const STATIC = /^[ \t]*(import|export)\s+(type\s+)?(?:[^;'"]*?\s+from\s+)?['"]([^'"]+)['"]/gm;
const DYNAMIC = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/**
 * The relative imports of one file's text: static `import` / `export ... from`
 * (with whether they are type-only) and dynamic `import('...')`. A specifier
 * `./x.js` names the source file `./x.ts`. Package imports are left out.
 */
export function parseImports(from: string, text: string): ImportEdge[] {
  const code = stripComments(text);
  const out: ImportEdge[] = [];
  const target = (spec: string): string => join(dirname(from), spec.replace(/\.js$/, '.ts'));
  for (const m of code.matchAll(STATIC)) {
    const spec = m[3]!;
    if (spec.startsWith('.')) out.push({ from, to: target(spec), typeOnly: m[2] !== undefined, dynamic: false });
  }
  for (const m of code.matchAll(DYNAMIC)) {
    const spec = m[1]!;
    if (spec.startsWith('.')) out.push({ from, to: target(spec), typeOnly: false, dynamic: true });
  }
  return out;
}

/** Every `.ts` file under `dir` (tests left out), relative to `root`, sorted. */
export function sourceFiles(root: string, dir = 'src'): string[] {
  const files: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(resolve(root, d)).sort()) {
      const p = join(d, e);
      if (statSync(resolve(root, p)).isDirectory()) walk(p);
      else if (p.endsWith('.ts') && !p.endsWith('.test.ts') && !p.endsWith('.d.ts')) files.push(p);
    }
  };
  walk(dir);
  return files;
}

/** The imports of every source file under `src/` of `root`. */
export function importGraph(root: string): ImportEdge[] {
  return sourceFiles(root).flatMap((f) => parseImports(f, readFileSync(resolve(root, f), 'utf8')));
}

/** The module of a file: its first folder under `src/` (`src/cli/cli.ts` -> `cli`), or `.` for a file directly in `src/`. */
export function moduleOf(file: string): string {
  const parts = relative('src', file).split(/[\\/]/);
  return parts.length === 1 ? '.' : parts[0]!;
}

/**
 * The cycles of a directed graph: one per strongly connected component of
 * more than one node (or a node importing itself), each written as a closed
 * path `a -> b -> ... -> a` through the component (Tarjan's algorithm, then a
 * breadth-first path back to the start). Deterministic: nodes in sorted order.
 */
export function findCycles(edges: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const nodes = [...new Set([...edges.keys(), ...[...edges.values()].flatMap((s) => [...s])])].sort();
  const succ = (n: string): string[] => [...(edges.get(n) ?? [])].sort();
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let next = 0;
  // iterative Tarjan: each frame is a node and the position in its successor list
  for (const start of nodes) {
    if (index.has(start)) continue;
    const frames: { n: string; i: number; s: string[] }[] = [];
    const enter = (n: string): void => {
      index.set(n, next);
      low.set(n, next++);
      stack.push(n);
      onStack.add(n);
      frames.push({ n, i: 0, s: succ(n) });
    };
    enter(start);
    while (frames.length > 0) {
      const f = frames[frames.length - 1]!;
      if (f.i < f.s.length) {
        const m = f.s[f.i++]!;
        if (!index.has(m)) enter(m);
        else if (onStack.has(m)) low.set(f.n, Math.min(low.get(f.n)!, index.get(m)!));
        continue;
      }
      frames.pop();
      if (frames.length > 0) {
        const parent = frames[frames.length - 1]!.n;
        low.set(parent, Math.min(low.get(parent)!, low.get(f.n)!));
      }
      if (low.get(f.n) === index.get(f.n)) {
        const comp: string[] = [];
        let m: string;
        do {
          m = stack.pop()!;
          onStack.delete(m);
          comp.push(m);
        } while (m !== f.n);
        if (comp.length > 1 || succ(f.n).includes(f.n)) components.push(comp.sort());
      }
    }
  }
  return components.sort((a, b) => (a[0]! < b[0]! ? -1 : 1)).map((comp) => cycleThrough(comp, succ));
}

/** A shortest closed path from the component's first node back to it, inside the component. */
function cycleThrough(comp: readonly string[], succ: (n: string) => string[]): string[] {
  const inComp = new Set(comp);
  const start = comp[0]!;
  const prev = new Map<string, string>();
  const queue = [start];
  for (let k = 0; k < queue.length; k++) {
    const n = queue[k]!;
    for (const m of succ(n)) {
      if (!inComp.has(m)) continue;
      if (m === start) {
        const path = [n];
        for (let p = n; p !== start; ) path.push((p = prev.get(p)!));
        return [...path.reverse(), start];
      }
      if (!prev.has(m)) {
        prev.set(m, n);
        queue.push(m);
      }
    }
  }
  return [...comp, start];
}

/** What one module may import, per the table of `docs/architecture.md`. */
export interface ModuleRule {
  /** Modules it may import (any of their files). */
  modules: Set<string>;
  /** "the public module indexes": it may also import any module through that module's `index.ts`. */
  publicIndexes: boolean;
}

/**
 * The "Modules and who may import whom" table of `docs/architecture.md`, as
 * rules by module. The first column names the modules of a row (in
 * backticks; a module in two rows, like `curriculum`'s pure and loop parts,
 * gets both rows' allowances). The last column lists what they may import:
 * module names (a parenthetical narrows the use and is not checked),
 * `nothing`, `everything above` (every module of the rows above, and the
 * row's own modules one another: the loop parts `train`, `models`, `env` use
 * each other), and
 * `the public module indexes` (any module, through its `index.ts`). Packages
 * (`zod`, `@tensorflow/tfjs`) are not checked here.
 */
export function parseModuleRules(markdown: string): Map<string, ModuleRule> {
  const lines = markdown.split('\n');
  const head = lines.findIndex((l) => /^\|\s*module\s*\|\s*holds\s*\|\s*may import\s*\|/.test(l));
  if (head < 0) throw new Error('docs/architecture.md has no "| module | holds | may import |" table');
  const rows: { names: string[]; allowed: string }[] = [];
  for (let i = head + 2; i < lines.length && lines[i]!.startsWith('|'); i++) {
    const cells = lines[i]!.split('|').slice(1, -1).map((c) => c.trim());
    rows.push({ names: [...cells[0]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!), allowed: cells[cells.length - 1]! });
  }
  const known = new Set(rows.flatMap((r) => r.names));
  const rules = new Map<string, ModuleRule>();
  const above: string[] = [];
  for (const row of rows) {
    const text = row.allowed.replace(/\([^)]*\)/g, ' ');
    const modules = new Set<string>();
    if (/everything above/.test(text)) for (const m of [...above, ...row.names]) modules.add(m);
    for (const word of text.replace(/`/g, ' ').split(/[\s,;]+/)) if (known.has(word)) modules.add(word);
    for (const name of row.names) {
      const rule = rules.get(name) ?? { modules: new Set<string>(), publicIndexes: false };
      for (const m of modules) rule.modules.add(m);
      rule.publicIndexes ||= /the public module indexes/.test(text);
      rules.set(name, rule);
    }
    above.push(...row.names);
  }
  return rules;
}

/**
 * The imports that break a rule: a module without a row, or an import of
 * another module the row does not allow (through its index only, where the
 * row allows "the public module indexes"). Files directly in `src/` (the root
 * index) compose every module and are not checked.
 */
export function ruleViolations(graph: readonly ImportEdge[], rules: ReadonlyMap<string, ModuleRule>): string[] {
  const out = new Set<string>();
  for (const e of graph) {
    const a = moduleOf(e.from);
    const b = moduleOf(e.to);
    if (a === '.' || a === b) continue;
    const rule = rules.get(a);
    if (!rule) {
      out.add(`module \`${a}\` (src/${a}/) has no row in the table of docs/architecture.md`);
      continue;
    }
    if (rule.modules.has(b)) continue;
    if (rule.publicIndexes && b !== '.' && e.to === join('src', b, 'index.ts')) continue;
    const allowed = [...rule.modules].sort().join(', ') + (rule.publicIndexes ? '; any module through its index.ts' : '');
    out.add(`${e.from} imports ${e.to}${e.typeOnly ? ' (type only)' : ''}${e.dynamic ? ' (dynamic)' : ''}: \`${a}\` may import ${allowed || 'nothing'}`);
  }
  return [...out].sort();
}

/** `from -> {to}` of the edges that `keep` accepts, by `key` (a file or its module). */
export function adjacency(graph: readonly ImportEdge[], key: (file: string) => string, keep: (e: ImportEdge) => boolean): Map<string, Set<string>> {
  const adj = new Map<string, Set<string>>();
  for (const e of graph) {
    if (!keep(e)) continue;
    const a = key(e.from);
    const b = key(e.to);
    if (!adj.has(a)) adj.set(a, new Set());
    adj.get(a)!.add(b);
  }
  return adj;
}
