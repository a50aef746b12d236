/**
 * The library under test. `run.ts` compiles it with tsc (what users install) and names the
 * build in TOOLCALL_BENCH_LIB; without that (a scenario run by hand) it is the TypeScript
 * source through tsx, whose esbuild transform adds helpers (`__name`) to every function.
 */
import { pathToFileURL } from "node:url";
import type * as Lib from "../../src/index.js";

const built = process.env["TOOLCALL_BENCH_LIB"];

export const lib: typeof Lib = built
  ? ((await import(pathToFileURL(built).href)) as typeof Lib)
  : await import("../../src/index.js");
