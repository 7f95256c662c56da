/**
 * The mutation kinds of the `mutation` source (SPEC §15; SWE-smith's procedural bug
 * kinds): each one is a small pure function that looks at ONE syntax node and returns
 * the edits it would make there (none when the node is not one of its sites).
 *
 * | kind | sites | replacement |
 * | --- | --- | --- |
 * | `flip-comparison` | a comparison operator | SWE-smith's flip: `<`↔`>`, `<=`↔`>=`, `==`↔`!=`, `===`↔`!==`, Python `is`↔`is not`, `in`↔`not in` |
 * | `flip-boolean` | `and`/`or`, `&&`/`\|\|`, a `True`/`False` (`true`/`false`) literal | the other one |
 * | `invert-condition` | the condition of an `if` / `elif` / `while` | Python `not (c)`, JS/TS `(!(c))` |
 * | `shift-bound` | an integer literal that is an operand of a comparison, a slice bound or a `range(...)` argument (Python) | `n + 1` |
 * | `swap-arguments` | a call with at least two positional arguments (no splats, no keywords) whose first two differ | the first two swapped |
 * | `remove-statement` | an expression statement (assignments included; not a docstring) alone on its lines, in a block of more than one statement | the lines deleted |
 * | `remove-return` | `return <expr>` (not already `return None` / `return;`) | Python `return None`, JS/TS `return;` |
 * | `change-constant` | a decimal integer literal not already a `shift-bound` site; a plain string literal (not a docstring, f-string or template) | `n + 1`; the string with `x` appended to its content |
 *
 * Offsets (`startByte`, `endByte`) are tree-sitter's `startIndex` / `endIndex` in
 * web-tree-sitter: UTF-16 code units of the file's text (bytes for ASCII text), so
 * `text.slice(startByte, endByte)` is the original.
 * @module
 */
import type { MutationLanguage, SyntaxNode } from './parser.js';

/** The kinds, in the table's order. */
export const MUTATION_KINDS = ['flip-comparison', 'flip-boolean', 'invert-condition', 'shift-bound', 'swap-arguments', 'remove-statement', 'remove-return', 'change-constant'] as const;
/** One of {@link MUTATION_KINDS}. */
export type MutationKind = (typeof MUTATION_KINDS)[number];

/** One edit a kind makes: replace `[startByte, endByte)` of the text with `replacement`. */
export interface MutationEdit {
  startByte: number;
  endByte: number;
  replacement: string;
}

/** What a kind gets besides the node: the language and the whole text. */
export interface KindContext {
  lang: MutationLanguage;
  source: string;
}

/** A kind: the edits at `node` (empty when it is not a site of the kind). */
export type MutationKindFn = (node: SyntaxNode, ctx: KindContext) => MutationEdit[];

const FLIPPED_COMPARISONS: Readonly<Record<string, string>> = { '<': '>', '>': '<', '<=': '>=', '>=': '<=', '==': '!=', '!=': '==', '===': '!==', '!==': '===', is: 'is not', 'is not': 'is', in: 'not in', 'not in': 'in' };
const JS_COMPARISONS = new Set(['<', '>', '<=', '>=', '==', '!=', '===', '!==']);
const FLIPPED_BOOLEANS: Readonly<Record<string, string>> = { and: 'or', or: 'and', '&&': '||', '||': '&&' };

const isPython = (ctx: KindContext): boolean => ctx.lang === 'python';
const edit = (n: SyntaxNode, replacement: string): MutationEdit => ({ startByte: n.startIndex, endByte: n.endIndex, replacement });

/** The operator token of a JS/TS binary expression (its `operator` field), or null. */
function jsOperator(n: SyntaxNode): SyntaxNode | null {
  return n.type === 'binary_expression' ? n.childForFieldName('operator') : null;
}

/** True when `n` is a JS/TS comparison or a Python comparison. */
function isComparison(n: SyntaxNode | null, ctx: KindContext): boolean {
  if (n === null) return false;
  if (isPython(ctx)) return n.type === 'comparison_operator';
  const op = jsOperator(n);
  return op !== null && JS_COMPARISONS.has(op.type);
}

/** `flip-comparison`: the operator token of a comparison, flipped. */
export const flipComparison: MutationKindFn = (node, ctx) => {
  const parent = node.parent;
  if (node.isNamed || parent === null || !isComparison(parent, ctx)) return [];
  if (!isPython(ctx) && jsOperator(parent)?.id !== node.id) return [];
  const flipped = FLIPPED_COMPARISONS[node.type];
  return flipped === undefined ? [] : [edit(node, flipped)];
};

/** `flip-boolean`: `and`↔`or` / `&&`↔`||` operators, `True`↔`False` / `true`↔`false` literals. */
export const flipBoolean: MutationKindFn = (node, ctx) => {
  if (node.type === 'true' || node.type === 'false') {
    const to = node.type === 'true' ? 'false' : 'true';
    return [edit(node, isPython(ctx) ? to[0]!.toUpperCase() + to.slice(1) : to)];
  }
  const parent = node.parent;
  if (node.isNamed || parent === null) return [];
  const flipped = FLIPPED_BOOLEANS[node.type];
  if (flipped === undefined) return [];
  const ok = isPython(ctx) ? parent.type === 'boolean_operator' : jsOperator(parent)?.id === node.id;
  return ok ? [edit(node, flipped)] : [];
};

const CONDITIONAL = new Set(['if_statement', 'elif_clause', 'while_statement']);

/** `invert-condition`: the condition of an `if` / `elif` / `while`, negated. */
export const invertCondition: MutationKindFn = (node, ctx) => {
  if (!CONDITIONAL.has(node.type)) return [];
  const cond = node.childForFieldName('condition');
  if (cond === null) return [];
  if (isPython(ctx)) return [edit(cond, `not (${cond.text})`)];
  return cond.type === 'parenthesized_expression' ? [edit(cond, `(!${cond.text})`)] : [];
};

/** A decimal integer literal (`0`, `42`), the only numbers `shift-bound` and `change-constant` touch. */
function isInteger(node: SyntaxNode, ctx: KindContext): boolean {
  return (node.type === (isPython(ctx) ? 'integer' : 'number')) && /^\d+$/.test(node.text);
}

/** True when the integer literal `node` is a bound: a comparison operand, a slice bound, a `range()` argument. */
function isBound(node: SyntaxNode, ctx: KindContext): boolean {
  const parent = node.parent;
  if (parent === null) return false;
  if (isComparison(parent, ctx)) return true;
  if (!isPython(ctx)) return false;
  if (parent.type === 'slice') return true;
  const call = parent.type === 'argument_list' ? parent.parent : null;
  return call !== null && call.type === 'call' && call.childForFieldName('function')?.text === 'range';
}

/** `shift-bound`: an integer bound `n` becomes `n + 1`. */
export const shiftBound: MutationKindFn = (node, ctx) => (isInteger(node, ctx) && isBound(node, ctx) ? [edit(node, String(BigInt(node.text) + 1n))] : []);

/** The positional arguments of a call (null when a splat or keyword makes swapping unsafe). */
function positionalArguments(node: SyntaxNode, ctx: KindContext): SyntaxNode[] | null {
  const isCall = isPython(ctx) ? node.type === 'call' : node.type === 'call_expression';
  const args = isCall ? node.childForFieldName('arguments') : null;
  if (args === null || !(args.type === 'argument_list' || args.type === 'arguments')) return null;
  const named = args.namedChildren.filter((c): c is SyntaxNode => c !== null && c.type !== 'comment');
  const unsafe = new Set(['keyword_argument', 'list_splat', 'dictionary_splat', 'spread_element', 'parenthesized_expression', 'generator_expression']);
  return named.some((c) => unsafe.has(c.type)) ? null : named;
}

/** `swap-arguments`: the first two positional arguments of a call, swapped. */
export const swapArguments: MutationKindFn = (node, ctx) => {
  const args = positionalArguments(node, ctx);
  if (args === null || args.length < 2) return [];
  const [a, b] = [args[0]!, args[1]!];
  if (a.text === b.text) return [];
  const between = ctx.source.slice(a.endIndex, b.startIndex);
  return [{ startByte: a.startIndex, endByte: b.endIndex, replacement: `${b.text}${between}${a.text}` }];
};

/** The statements of a block (comments left out). */
function statements(block: SyntaxNode): SyntaxNode[] {
  return block.namedChildren.filter((c): c is SyntaxNode => c !== null && c.type !== 'comment');
}

/** A Python docstring: an expression statement that is only a string. */
function isDocstring(node: SyntaxNode): boolean {
  return node.type === 'expression_statement' && node.namedChildCount === 1 && node.namedChild(0)?.type === 'string';
}

/** `[start of the line, after its newline)` when `node` is alone on its lines, else null. */
function ownLines(node: SyntaxNode, source: string): [number, number] | null {
  const start = source.lastIndexOf('\n', node.startIndex - 1) + 1;
  const nl = source.indexOf('\n', node.endIndex);
  const end = nl === -1 ? source.length : nl + 1;
  if (source.slice(start, node.startIndex).trim() !== '') return null;
  if (source.slice(node.endIndex, end).trim() !== '') return null;
  return [start, end];
}

/** `remove-statement`: an expression statement alone on its lines in a block of more than one statement, deleted. */
export const removeStatement: MutationKindFn = (node, ctx) => {
  const parent = node.parent;
  if (node.type !== 'expression_statement' || isDocstring(node) || parent === null) return [];
  if (!(parent.type === 'block' || parent.type === 'statement_block') || statements(parent).length < 2) return [];
  const lines = ownLines(node, ctx.source);
  return lines === null ? [] : [{ startByte: lines[0], endByte: lines[1], replacement: '' }];
};

/** `remove-return`: `return <expr>` becomes `return None` (Python) or `return;` (JS/TS), so the syntax stays valid. */
export const removeReturn: MutationKindFn = (node, ctx) => {
  if (node.type !== 'return_statement') return [];
  const value = node.namedChildren.find((c) => c !== null && c.type !== 'comment');
  if (value === undefined || value === null) return [];
  if (isPython(ctx)) return value.type === 'none' ? [] : [edit(node, 'return None')];
  return [edit(node, 'return;')];
};

/** The `x`-appended form of a plain string literal, or null (f-strings, docstrings, templates, interpolations). */
function alteredString(node: SyntaxNode, ctx: KindContext): string | null {
  if (node.type !== 'string') return null;
  const parent = node.parent;
  if (isPython(ctx)) {
    if (parent !== null && isDocstring(parent)) return null;
    if (node.namedChildren.some((c) => c !== null && c.type === 'interpolation') || /^[a-zA-Z]*[fF]/.test(node.text)) return null;
    const end = node.namedChildren.find((c) => c !== null && c.type === 'string_end');
    if (end === undefined || end === null) return null;
    return `${ctx.source.slice(node.startIndex, end.startIndex)}x${end.text}`;
  }
  if (parent !== null && parent.type === 'import_statement') return null;
  if (parent !== null && (parent.type === 'export_statement' || parent.type === 'import_clause')) return null;
  return `${node.text.slice(0, -1)}x${node.text.slice(-1)}`;
}

/** `change-constant`: an integer literal `n` (not a bound) becomes `n + 1`; a plain string gets `x` appended. */
export const changeConstant: MutationKindFn = (node, ctx) => {
  if (isInteger(node, ctx)) return isBound(node, ctx) ? [] : [edit(node, String(BigInt(node.text) + 1n))];
  const s = alteredString(node, ctx);
  return s === null ? [] : [edit(node, s)];
};

/** Each kind's function. */
export const MUTATION_KIND_FNS: Readonly<Record<MutationKind, MutationKindFn>> = Object.freeze({
  'flip-comparison': flipComparison,
  'flip-boolean': flipBoolean,
  'invert-condition': invertCondition,
  'shift-bound': shiftBound,
  'swap-arguments': swapArguments,
  'remove-statement': removeStatement,
  'remove-return': removeReturn,
  'change-constant': changeConstant,
});
