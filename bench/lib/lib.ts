/**
 * The library under test. `run.ts` compiles it with tsc (what users install) and names the
 * build in TOOLCALL_BENCH_LIB; without that (a scenario run by hand) it is the TypeScript
 * source through tsx, whose esbuild transform adds helpers (`__name`) to every function.
 */
import { fileURLToPath } from "node:url";
import { loadLibrary, type Library } from "./library.js";

const built = process.env["TOOLCALL_BENCH_LIB"];

export const lib: Library = await loadLibrary(built ?? fileURLToPath(new URL("../../src/index.ts", import.meta.url)));
