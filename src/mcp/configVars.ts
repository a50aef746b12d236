import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { errorMessage } from "../util/index.js";

/** What `${...}` in a config file can refer to. */
export interface VariableScope {
  env: NodeJS.ProcessEnv;
  /** VS Code's `${workspaceFolder}`: the folder holding `.vscode/`, else the file's folder. */
  workspaceFolder: string;
  /** VS Code `inputs` by id, only to say what `${input:ID}` asked for. */
  inputs: ReadonlyMap<string, string>;
}

export function scopeFor(file: string | undefined, inputs: ReadonlyMap<string, string> = new Map()): VariableScope {
  const dir = path.dirname(path.resolve(file ?? "."));
  const workspaceFolder = path.basename(dir) === ".vscode" ? path.dirname(dir) : dir;
  return { env: process.env, workspaceFolder, inputs };
}

/**
 * `${VAR}`, `${VAR:-default}` (Claude Code), `${env:VAR}` (Cursor, VS Code) and VS Code's
 * `${workspaceFolder}`, `${userHome}`, `${pathSeparator}`. An unset variable without a
 * default is an error naming it; `${input:ID}` (a VS Code prompt) is read from
 * `TOOLCALL_INPUT_<ID>`.
 */
export function expandVariables(value: string, scope: VariableScope): string {
  if (!value.includes("${")) return value;
  return value.replace(/\$\{([^}]*)\}/g, (whole, body: string) => {
    const special = vscodeVariable(body, scope);
    if (special !== undefined) return special;
    if (body.startsWith("input:")) {
      // VS Code prompts for an input; here its answer comes from the environment.
      const id = body.slice("input:".length);
      const variable = inputVariable(id);
      const answer = scope.env[variable];
      if (answer !== undefined) return answer;
      const what = scope.inputs.get(id);
      throw new Error(`${whole} asks for VS Code input '${id}'${what ? ` (${what})` : ""}: set ${variable}`);
    }
    const match = /^(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s.exec(body);
    if (!match) throw new Error(`${whole} is not a variable reference (\${VAR}, \${VAR:-default} or \${env:VAR})`);
    const name = match[1] as string;
    const fallback = match[2];
    const set = scope.env[name];
    if (set !== undefined && (set !== "" || fallback === undefined)) return set;
    if (fallback !== undefined) return fallback;
    throw new Error(`environment variable ${name} is not set (${whole})`);
  });
}

/** Where the answer to VS Code input `id` is read from: `TOOLCALL_INPUT_<ID>`. */
function inputVariable(id: string): string {
  return `TOOLCALL_INPUT_${id.toUpperCase().replace(/[^A-Z0-9]/g, "_")}`;
}

function vscodeVariable(body: string, scope: VariableScope): string | undefined {
  switch (body) {
    case "workspaceFolder":
      return scope.workspaceFolder;
    case "userHome":
      return homedir();
    case "pathSeparator":
      return path.sep;
    default:
      return undefined;
  }
}

/** VS Code `envFile`: `KEY=value` lines (`export`, quotes and `#` comments allowed). */
export function readEnvFile(file: string): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new Error(`cannot read env file ${file}: ${errorMessage(err)}`);
  }
  const out: Record<string, string> = {};
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*)$/.exec(line);
    if (!match) throw new Error(`${file}:${i + 1}: expected KEY=value`);
    let value = match[2] as string;
    const quote = value[0];
    if ((quote === '"' || quote === "'") && value.endsWith(quote) && value.length >= 2) {
      value = value.slice(1, -1);
      if (quote === '"') value = value.replace(/\\n/g, "\n");
    } else {
      value = value.replace(/\s+#.*$/, "");
    }
    out[match[1] as string] = value;
  }
  return out;
}
