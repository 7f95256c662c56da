/**
 * The tree-sitter parsers of the `mutation` source (SPEC §15): the WASM runtime and the
 * Python, JavaScript and TypeScript grammars prebuilt by `@vscode/tree-sitter-wasm`
 * (one package, so the runtime's ABI always matches its grammars; no native build).
 * @module
 */
import { createRequire } from 'node:module';
import type * as TreeSitter from '@vscode/tree-sitter-wasm';

const require = createRequire(import.meta.url);

/** A syntax node (tree-sitter). */
export type SyntaxNode = TreeSitter.Node;
/** A parsed file (tree-sitter). */
export type SyntaxTree = TreeSitter.Tree;

/** The languages whose functions `mutation` injects bugs into. */
export const MUTATION_LANGUAGES = ['python', 'javascript', 'typescript', 'tsx'] as const;
/** One of {@link MUTATION_LANGUAGES}. */
export type MutationLanguage = (typeof MUTATION_LANGUAGES)[number];

/** File extensions read as each language (`.d.ts` files are declarations, never mutated). */
const EXTENSIONS: Readonly<Record<string, MutationLanguage>> = {
  '.py': 'python',
  '.js': 'javascript',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  '.jsx': 'javascript',
  '.ts': 'typescript',
  '.mts': 'typescript',
  '.cts': 'typescript',
  '.tsx': 'tsx',
};

/** The language of a file by its extension, or null (not one `mutation` parses). */
export function languageOf(path: string): MutationLanguage | null {
  if (/\.d\.[mc]?ts$/.test(path)) return null;
  const m = /\.[a-z]+$/.exec(path);
  return m ? (EXTENSIONS[m[0]] ?? null) : null;
}

let runtime: Promise<typeof TreeSitter> | null = null;
const parsers = new Map<MutationLanguage, Promise<TreeSitter.Parser>>();

/** The WASM runtime, initialised once per process. */
function loadRuntime(): Promise<typeof TreeSitter> {
  runtime ??= (async () => {
    const ts = require('@vscode/tree-sitter-wasm') as typeof TreeSitter;
    await ts.Parser.init();
    return ts;
  })();
  return runtime;
}

/** A parser for `lang` (one per language per process; parsing is synchronous, so sharing it is safe). */
export function parserFor(lang: MutationLanguage): Promise<TreeSitter.Parser> {
  let p = parsers.get(lang);
  if (p === undefined) {
    p = (async () => {
      const ts = await loadRuntime();
      const language = await ts.Language.load(require.resolve(`@vscode/tree-sitter-wasm/wasm/tree-sitter-${lang}.wasm`));
      const parser = new ts.Parser();
      parser.setLanguage(language);
      return parser;
    })();
    parsers.set(lang, p);
  }
  return p;
}

/** Parses `source` as `lang`. The caller deletes the tree when done (`tree.delete()`: WASM memory). */
export async function parseSource(source: string, lang: MutationLanguage): Promise<SyntaxTree> {
  const tree = (await parserFor(lang)).parse(source);
  if (tree === null) throw new Error(`tree-sitter could not parse the ${lang} text`);
  return tree;
}

/** True when `source` parses as `lang` without a syntax error (a mutation must keep the file valid). */
export async function parsesCleanly(source: string, lang: MutationLanguage): Promise<boolean> {
  const tree = await parseSource(source, lang);
  try {
    return !tree.rootNode.hasError;
  } finally {
    tree.delete();
  }
}
