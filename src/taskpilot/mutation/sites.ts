/**
 * Finding the mutation sites of one file (SPEC §15): parse it with tree-sitter, walk
 * every node inside a function, ask each kind for its edits there.
 * @module
 */
import { MUTATION_KIND_FNS, MUTATION_KINDS, type MutationKind } from './kinds.js';
import { parseSource, type MutationLanguage, type SyntaxNode } from './parser.js';

/** One place a bug can be injected, and the bug. */
export interface MutationSite {
  /** The file, relative to the repository root (`/`-separated). */
  file: string;
  kind: MutationKind;
  /** Start of the replaced text (UTF-16 code units of the file's text; see `kinds.ts`). */
  startByte: number;
  /** End of the replaced text (exclusive). */
  endByte: number;
  /** The text replaced. */
  original: string;
  /** The text that replaces it (the bug). */
  replacement: string;
  /** The name of the innermost enclosing function (`Class.method` for a method). */
  function: string;
  /** 1-based line of the site's start. */
  line: number;
}

const FUNCTION_TYPES = new Set(['function_definition', 'function_declaration', 'generator_function_declaration', 'method_definition', 'function_expression', 'function', 'arrow_function', 'generator_function']);
const CLASS_TYPES = new Set(['class_definition', 'class_declaration', 'class']);

/** The name of a function node: its `name` field, else the variable or property it is assigned to, else `<anonymous>`. */
function functionName(node: SyntaxNode): string {
  const own = node.childForFieldName('name');
  if (own !== null) return own.text;
  const p = node.parent;
  const holder = p === null ? null : p.type === 'variable_declarator' || p.type === 'pair' || p.type === 'assignment_expression' ? (p.childForFieldName('name') ?? p.childForFieldName('key') ?? p.childForFieldName('left')) : null;
  return holder?.text ?? '<anonymous>';
}

/** The qualified name of a function: `Class.name` when it is directly a class's method. */
function qualifiedName(node: SyntaxNode): string {
  const name = functionName(node);
  let p = node.parent;
  while (p !== null && !FUNCTION_TYPES.has(p.type) && !CLASS_TYPES.has(p.type)) p = p.parent;
  const cls = p !== null && CLASS_TYPES.has(p.type) ? p.childForFieldName('name')?.text : undefined;
  return cls === undefined ? name : `${cls}.${name}`;
}

/** The line (1-based) of an offset. */
function lineAt(source: string, offset: number): number {
  let line = 1;
  for (let i = source.indexOf('\n'); i !== -1 && i < offset; i = source.indexOf('\n', i + 1)) line++;
  return line;
}

/**
 * The sites of `kinds` (default all) in `source`, only inside functions (a site's
 * `function` is its innermost enclosing function), in text order; a site two kinds
 * would make identically is kept once (the first kind).
 */
export async function findMutationSites(source: string, file: string, lang: MutationLanguage, kinds: readonly MutationKind[] = MUTATION_KINDS): Promise<MutationSite[]> {
  const tree = await parseSource(source, lang);
  try {
    if (tree.rootNode.hasError) return [];
    const sites: MutationSite[] = [];
    const seen = new Set<string>();
    const visit = (node: SyntaxNode, fn: string | null): void => {
      const inner = FUNCTION_TYPES.has(node.type) ? qualifiedName(node) : fn;
      if (inner !== null && inner === fn) {
        for (const kind of kinds) {
          for (const e of MUTATION_KIND_FNS[kind](node, { lang, source })) {
            const key = `${e.startByte}:${e.endByte}:${e.replacement}`;
            if (seen.has(key)) continue;
            seen.add(key);
            sites.push({ file, kind, ...e, original: source.slice(e.startByte, e.endByte), function: inner, line: lineAt(source, e.startByte) });
          }
        }
      }
      for (const c of node.children) if (c !== null) visit(c, inner);
    };
    visit(tree.rootNode, null);
    return sites;
  } finally {
    tree.delete();
  }
}

/** `source` with the site's bug applied. */
export function applySite(source: string, site: Pick<MutationSite, 'startByte' | 'endByte' | 'replacement'>): string {
  return source.slice(0, site.startByte) + site.replacement + source.slice(site.endByte);
}
