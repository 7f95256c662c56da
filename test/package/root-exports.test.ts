/**
 * The root `frognano` exports a list that is decided, not grown (issue 15,
 * item 5): every name it exports, values and types, is pinned in
 * `root-exports.txt` (`name<TAB>value|type`, sorted). Adding or removing a name
 * fails here until the list is changed in the same commit, which makes the
 * growth of the public surface a reviewed decision.
 *
 * To accept a deliberate change: `FROGNANO_UPDATE_ROOT_EXPORTS=1 npx vitest run test/package/root-exports.test.ts`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as root from '../../src/index.js';

const repo = resolve(import.meta.dirname, '../..');
const listFile = resolve(import.meta.dirname, 'root-exports.txt');

/** Every export of `src/index.ts` with its kind, as the TypeScript checker sees it (types included). */
function rootExports(): string[] {
  const entry = resolve(repo, 'src/index.ts');
  const program = ts.createProgram([entry], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    noEmit: true,
    skipLibCheck: true,
    customConditions: ['@frognano/source'],
  });
  const checker = program.getTypeChecker();
  const moduleSymbol = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!;
  return checker
    .getExportsOfModule(moduleSymbol)
    .map((s) => {
      const target = s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s;
      return `${s.getName()}\t${target.flags & ts.SymbolFlags.Value ? 'value' : 'type'}`;
    })
    .sort();
}

describe('the root export list', () => {
  const actual = rootExports();
  if (process.env.FROGNANO_UPDATE_ROOT_EXPORTS === '1') writeFileSync(listFile, `${actual.join('\n')}\n`);
  const pinned = readFileSync(listFile, 'utf8').split('\n').filter(Boolean);

  it('equals the pinned list in test/package/root-exports.txt (names and kinds)', () => {
    const added = actual.filter((n) => !pinned.includes(n));
    const removed = pinned.filter((n) => !actual.includes(n));
    expect({ added, removed }, 'the root exports changed: update root-exports.txt in the same commit if it is deliberate').toEqual({ added: [], removed: [] });
  });

  it('the runtime module has exactly the pinned values (the checker and the loaded module agree)', () => {
    const values = pinned.filter((l) => l.endsWith('\tvalue')).map((l) => l.split('\t')[0]);
    expect(Object.keys(root).sort()).toEqual(values);
  });

  it('keeps option schemas, parsers and internals off the root', () => {
    const names = actual.map((l) => l.split('\t')[0]!);
    expect(names.filter((n) => /Schemas?$/.test(n))).toEqual([]);
    for (const n of ['parseShell', 'parseUnifiedDiff', 'classifyRepoPath', 'normalizeRepoPath', 'isTestRunCommand', 'yieldToEventLoop', 'createSemaphore', 'extractJson']) {
      expect(names, n).not.toContain(n);
    }
  });

  it('stays a surface one can hold in one\'s head: at most 320 names', () => {
    expect(actual.length).toBeLessThanOrEqual(320);
  });
});
