import { createRequire } from "node:module";
import type { Node, Parser } from "web-tree-sitter";

/**
 * tree-sitter-bash (the grammar Codex judges scripts with), compiled to WASM. Loading costs
 * tens of milliseconds, so it happens once and only when a script must be judged: a process
 * that never judges one never loads it. After `loadBashParser()` resolved, parsing is
 * synchronous.
 */
let parser: Parser | undefined;
let loading: Promise<void> | undefined;

export function bashParserReady(): boolean {
  return parser !== undefined;
}

/** Loads the grammar once; later calls share the first load. */
export function loadBashParser(): Promise<void> {
  loading ??= (async () => {
    const { Parser: TsParser, Language } = await import("web-tree-sitter");
    await TsParser.init();
    const wasm = createRequire(import.meta.url).resolve("tree-sitter-bash/tree-sitter-bash.wasm");
    const language = await Language.load(wasm);
    const ready = new TsParser();
    ready.setLanguage(language);
    parser = ready;
  })();
  // A failed load may be retried by the next caller.
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}

/**
 * Parses `script` and hands the root to `visit`; the tree is freed afterwards (WASM memory is
 * not garbage-collected). Throws when the parser is not loaded: callers check
 * `bashParserReady()` or await `loadBashParser()` first.
 */
export function withBashTree<T>(script: string, visit: (root: Node) => T): T {
  if (parser === undefined) throw new Error("the bash parser is not loaded (await loadBashParser() first)");
  const tree = parser.parse(script);
  if (tree === null) throw new Error("the bash parser returned no tree");
  try {
    return visit(tree.rootNode);
  } finally {
    tree.delete();
  }
}
