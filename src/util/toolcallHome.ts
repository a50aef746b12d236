import { homedir } from "node:os";
import path from "node:path";

/** `$TOOLCALL_HOME` (default `~/.toolcall`): where OAuth tokens are kept (and hidden from sandboxes). */
export function toolcallHome(): string {
  return process.env["TOOLCALL_HOME"] || path.join(homedir(), ".toolcall");
}
