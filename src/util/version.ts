import { readFileSync } from "node:fs";
import { isRecord } from "./isRecord.js";

const PACKAGE_NAME = "toolcall-runtime";

/**
 * This package's package.json version, from the nearest package.json of that name above this
 * file: `../../package.json` from both `src/util/` and `dist/util/`, but a build elsewhere (the
 * bench compiles into bench/.build) sits deeper, below another package's package.json.
 */
function packageVersion(): string {
  for (let dir = new URL("../", import.meta.url); ;) {
    const manifest = readManifest(new URL("package.json", dir));
    if (manifest?.["name"] === PACKAGE_NAME && typeof manifest["version"] === "string") return manifest["version"];
    const parent = new URL("../", dir);
    if (parent.href === dir.href) return "0.0.0"; // not found (a bundle): still a valid MCP version string
    dir = parent;
  }
}

function readManifest(file: URL): Record<string, unknown> | undefined {
  try {
    const manifest: unknown = JSON.parse(readFileSync(file, "utf8"));
    return isRecord(manifest) ? manifest : undefined;
  } catch {
    return undefined; // none here
  }
}

/** The package's version, read once. */
export const PACKAGE_VERSION: string = packageVersion();
