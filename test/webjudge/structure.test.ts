/**
 * How the web judge's source is written (issue #14): zod schemas are built once
 * at module level, never inside a function (per call); the `signal` option uses
 * the one shared `AbortSignalSchema` of `src/errors/validate.ts`; no
 * `as unknown as` cast. Read from the source with the TypeScript parser.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { AbortSignalSchema } from '../../src/errors/validate.js';
import { RunActionsOptionsSchema } from '../../src/webjudge/runOptions.js';
import { PlanAndRunOptionsSchema, WebJudgeOptionsSchema } from '../../src/webjudge/webJudge.js';
import { WebJudgeRewardOptionsSchema } from '../../src/webjudge/webJudgeReward.js';

const ROOT = resolve(import.meta.dirname, '../..');
const DIR = join(ROOT, 'src/webjudge');
const FILES = [...readdirSync(DIR).filter((f) => f.endsWith('.ts')).map((f) => join(DIR, f)), join(ROOT, 'src/cli/commands/webJudge.ts')];

/** `z.<name>(...)` calls that sit inside a function body (built per call), as `file:line z.name`. */
function zodCallsInFunctions(file: string, text: string): string[] {
  const src = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const out: string[] = [];
  const visit = (node: ts.Node, inFunction: boolean): void => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      ts.isIdentifier(node.expression.expression) &&
      node.expression.expression.text === 'z' &&
      inFunction
    ) {
      out.push(`${file.slice(ROOT.length + 1)}:${src.getLineAndCharacterOfPosition(node.getStart()).line + 1} z.${node.expression.name.text}`);
    }
    const fnLike = ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node) || ts.isArrowFunction(node) || ts.isMethodDeclaration(node) || ts.isGetAccessor(node) || ts.isConstructorDeclaration(node);
    node.forEachChild((c) => visit(c, inFunction || fnLike));
  };
  visit(src, false);
  return out;
}

describe('web judge source (issue #14)', () => {
  it('the reader finds a zod call inside a function (positive control)', () => {
    const text = "const A = z.object({ a: z.string() });\nexport function f(x: unknown) {\n  return z.array(A).parse(x);\n}\nconst g = () => z.number();\n";
    expect(zodCallsInFunctions(join(ROOT, 'x.ts'), text)).toEqual(['x.ts:3 z.array', 'x.ts:5 z.number']);
  });

  it('builds no zod schema inside a function: every schema is built once, at module level', () => {
    const found = FILES.flatMap((f) => zodCallsInFunctions(f, readFileSync(f, 'utf8')));
    expect(found).toEqual([]);
  });

  it('has no `as unknown as` cast', () => {
    const found = FILES.filter((f) => /\bas unknown as\b/.test(readFileSync(f, 'utf8'))).map((f) => f.slice(ROOT.length + 1));
    expect(found).toEqual([]);
  });

  it('defines no AbortSignal schema of its own: `signal` is the shared AbortSignalSchema of src/errors/validate.ts', () => {
    const own = FILES.filter((f) => /z\.custom<AbortSignal>/.test(readFileSync(f, 'utf8'))).map((f) => f.slice(ROOT.length + 1));
    expect(own).toEqual([]);
    for (const schema of [RunActionsOptionsSchema, PlanAndRunOptionsSchema, WebJudgeOptionsSchema, WebJudgeRewardOptionsSchema]) {
      expect(schema.shape.signal.unwrap()).toBe(AbortSignalSchema);
    }
  });
});
