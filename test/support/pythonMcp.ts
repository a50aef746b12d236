/**
 * The official MCP Python SDK (`mcp` on PyPI) for client tests: the system python3 when it
 * has it, else a venv in the test cache (~/.cache/toolcall-test/python-mcp) where pip installs
 * it once. Returns the python to run, or why it cannot be had here.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const VENV = path.join(process.env["XDG_CACHE_HOME"] ?? path.join(homedir(), ".cache"), "toolcall-test", "python-mcp");

async function hasMcp(python: string): Promise<boolean> {
  try {
    await run(python, ["-c", "import mcp.client.stdio"], { timeout: 60_000 });
    return true;
  } catch {
    return false;
  }
}

export async function pythonWithMcp(): Promise<{ python: string } | { problem: string }> {
  const venvPython = path.join(VENV, "bin", "python");
  if (existsSync(venvPython) && (await hasMcp(venvPython))) return { python: venvPython };
  if (await hasMcp("python3")) return { python: "python3" };
  try {
    if (!existsSync(venvPython)) await run("python3", ["-m", "venv", VENV], { timeout: 120_000 });
    await run(venvPython, ["-m", "pip", "install", "--quiet", "mcp"], { timeout: 600_000 });
  } catch (err) {
    return { problem: `the MCP Python SDK could not be installed (${(err as Error).message.split("\n")[0]})` };
  }
  return (await hasMcp(venvPython))
    ? { python: venvPython }
    : { problem: "the MCP Python SDK installed but does not import" };
}
