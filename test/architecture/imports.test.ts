import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { adjacency, findCycles, importGraph, moduleOf, parseImports, parseModuleRules, ruleViolations, type ImportEdge } from './importGraph.js';

/**
 * Issue 15: no import cycle in `src/`, and every module imports only what the
 * table of docs/architecture.md allows (the table is read from the doc, so the
 * doc and the code cannot drift apart silently). A failure lists every cycle
 * and every offending import with its file.
 */

const ROOT = resolve(import.meta.dirname, '../..');
const graph = importGraph(ROOT);
const rules = parseModuleRules(readFileSync(resolve(ROOT, 'docs/architecture.md'), 'utf8'));
const render = (cycles: string[][]): string[] => cycles.map((c) => c.join(' -> '));

describe('the import graph of src/', () => {
  it('reads the imports of every source file', () => {
    expect(graph.length).toBeGreaterThan(300);
    expect(graph).toContainEqual({ from: 'src/cli/main.ts', to: 'src/cli/cli.ts', typeOnly: false, dynamic: false });
  });

  it('has no cycle between files (imports that run at load time: not `import type`, not `import()`)', () => {
    const files = adjacency(graph, (f) => f, (e) => !e.typeOnly && !e.dynamic);
    expect(render(findCycles(files))).toEqual([]);
  });

  it('has no cycle between modules (every import counted, types and import() included)', () => {
    const modules = adjacency(graph, moduleOf, (e) => moduleOf(e.from) !== moduleOf(e.to));
    expect(render(findCycles(modules))).toEqual([]);
  });

  it('follows the "who may import whom" table of docs/architecture.md', () => {
    expect(ruleViolations(graph, rules)).toEqual([]);
  });

  it('cli and server do not import each other\'s internals: both go through `commands`', () => {
    const cross = graph.filter((e) => moduleOf(e.from) === 'server' && moduleOf(e.to) === 'cli');
    expect(cross).toEqual([]);
    // the one way from cli to server: `frognano serve`, loaded only when it runs
    const cliToServer = graph.filter((e) => moduleOf(e.from) === 'cli' && moduleOf(e.to) === 'server');
    expect(cliToServer.map((e) => [e.to, e.dynamic])).toEqual([['src/server/serveCommand.ts', true]]);
  });
});

describe('the readers behind the checks', () => {
  it('parseImports: static, type-only, re-exports, side effects and import(); comments and packages left out', () => {
    const text = [
      "import { z } from 'zod';",
      "import { a, type B } from './a.js';",
      "import type { C } from '../c/index.js';",
      'import {',
      '  d,',
      '  e,',
      "} from './d.js';",
      "export { f } from './f.js';",
      "export type { G } from './g.js';",
      "export * from './h.js';",
      "import './side.js';",
      "/** @example import { x } from './doc.js'; */",
      "// import { y } from './line.js';",
      "const m = await import('../m/lazy.js');",
    ].join('\n');
    const edges = parseImports('src/x/file.ts', text).map((e) => [e.to, e.typeOnly, e.dynamic]);
    expect(edges).toEqual([
      ['src/x/a.ts', false, false],
      ['src/c/index.ts', true, false],
      ['src/x/d.ts', false, false],
      ['src/x/f.ts', false, false],
      ['src/x/g.ts', true, false],
      ['src/x/h.ts', false, false],
      ['src/x/side.ts', false, false],
      ['src/m/lazy.ts', false, true],
    ]);
  });

  it('findCycles: each strongly connected component once, as a closed path; a self-import too', () => {
    const g = new Map<string, Set<string>>([
      ['a', new Set(['b'])],
      ['b', new Set(['c'])],
      ['c', new Set(['a', 'd'])],
      ['d', new Set(['e'])],
      ['e', new Set<string>()],
      ['s', new Set(['s'])],
      ['x', new Set(['y'])],
      ['y', new Set(['x'])],
    ]);
    expect(findCycles(g)).toEqual([
      ['a', 'b', 'c', 'a'],
      ['s', 's'],
      ['x', 'y', 'x'],
    ]);
    expect(findCycles(new Map([['a', new Set(['b'])]]))).toEqual([]);
  });

  it('parseModuleRules and ruleViolations: names, "everything above", "the public module indexes", parentheticals', () => {
    const doc = [
      '| module | holds | may import |',
      '| --- | --- | --- |',
      '| `errors` | errors | zod |',
      '| `a`, `b` (pure parts) | pure | errors |',
      '| `c` | c | a (`f` only), b |',
      '| `top`, `b` (loop parts) | loop | everything above |',
      '| `shell` | shell | `c`; the public module indexes |',
    ].join('\n');
    const r = parseModuleRules(doc);
    expect([...r.get('errors')!.modules]).toEqual([]);
    expect([...r.get('c')!.modules].sort()).toEqual(['a', 'b']);
    expect([...r.get('b')!.modules].sort()).toEqual(['a', 'b', 'c', 'errors', 'top']);
    expect(r.get('shell')!.publicIndexes).toBe(true);
    const edge = (from: string, to: string, typeOnly = false): ImportEdge => ({ from, to, typeOnly, dynamic: false });
    expect(
      ruleViolations(
        [
          edge('src/c/x.ts', 'src/a/f.ts'),
          edge('src/a/x.ts', 'src/c/y.ts', true),
          edge('src/shell/x.ts', 'src/top/index.ts'),
          edge('src/shell/x.ts', 'src/top/inner.ts'),
          edge('src/new/x.ts', 'src/errors/index.ts'),
          edge('src/index.ts', 'src/shell/index.ts'),
        ],
        r,
      ),
    ).toEqual([
      'module `new` (src/new/) has no row in the table of docs/architecture.md',
      'src/a/x.ts imports src/c/y.ts (type only): `a` may import errors',
      'src/shell/x.ts imports src/top/inner.ts: `shell` may import c; any module through its index.ts',
    ]);
  });
});
