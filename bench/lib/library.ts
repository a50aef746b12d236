/**
 * A build of the library as one module: its root and the subpaths the bench uses (the built-in
 * handlers, the sidecar). A build from before the subpaths existed had all of it in its root.
 */
import { existsSync } from "node:fs";
import { dirname, extname, join } from "node:path";
import { pathToFileURL } from "node:url";
import type * as Root from "../../src/index.js";
import type * as Handlers from "../../src/subpaths/handlers.js";
import type * as Server from "../../src/subpaths/server.js";

export type Library = typeof Root & typeof Handlers & typeof Server;

/** `index`: a build's `index.js` (or the source's `index.ts`, run through tsx). */
export async function loadLibrary(index: string): Promise<Library> {
  const ext = extname(index);
  const parts = [index, ...["handlers", "server"].map((name) => join(dirname(index), "subpaths", name + ext))];
  const modules = await Promise.all(
    parts.filter((p) => existsSync(p)).map(async (p) => (await import(pathToFileURL(p).href)) as object),
  );
  return Object.assign({}, ...modules) as Library;
}
