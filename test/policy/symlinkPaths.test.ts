import { mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  createToolRouter,
  createTurnContext,
  PermissionEngine,
  ToolCallRuntime,
  type PermissionPolicy,
  type ToolRouter,
} from "../../src/index.js";
import { fc, text } from "../support/harness.js";

// S10 of the 2026-11-26 security review: path rules judged the path as written, so a symlink
// walked around `secret/**`. Each form of the review's table, in a real workspace.
let root: string;
let ws: string;
let router: ToolRouter;
beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "symlink-paths-"));
  router = await createToolRouter({
    shell: false,
    applyPatch: "function",
    editFile: true,
    writeFile: true,
    readFile: true,
  });
});
afterAll(async () => {
  await router.close();
  await rm(root, { recursive: true, force: true });
});

let n = 0;
beforeEach(async () => {
  // A fresh workspace per case: an earlier write that got through must not hide a later one.
  ws = path.join(root, `ws${n++}`);
  await mkdir(path.join(ws, "secret"), { recursive: true });
  await writeFile(path.join(ws, "secret", "s.txt"), "S\n");
  await writeFile(path.join(ws, "open.txt"), "O\n");
  await symlink("secret", path.join(ws, "alias"));
  await symlink("secret/s.txt", path.join(ws, "s-link.txt"));
});

const DENY = ["read_file(secret/**)", "edit_file(secret/**)", "write_file(secret/**)", "apply_patch(secret/**)"];

async function run(policy: PermissionPolicy, name: string, args: Record<string, unknown>): Promise<string> {
  const turn = createTurnContext({ cwd: ws, permissions: new PermissionEngine(policy) });
  const runtime = new ToolCallRuntime(router, turn);
  // The file tools take absolute paths: the model writes the workspace's path before each.
  const file = args["file_path"];
  const abs = typeof file === "string" ? { ...args, file_path: path.join(ws, file) } : args;
  // edit_file and write_file change only a file read first: read it as a model would (a denied
  // read changes nothing; the edit is judged on its own).
  if (name !== "read_file" && typeof file === "string") {
    runtime.submit(fc("r1", "read_file", JSON.stringify({ file_path: abs["file_path"] })));
    await runtime.drain();
  }
  runtime.submit(fc("c1", name, JSON.stringify(abs)));
  const [out] = (await runtime.drain()).map(text);
  return out ?? "";
}

const patch = (body: string) => ({ input: `*** Begin Patch\n${body}\n*** End Patch` });

const FORMS: Array<[string, string, Record<string, unknown>]> = [
  ["read_file secret/s.txt", "read_file", { file_path: "secret/s.txt" }],
  ["read_file alias/s.txt", "read_file", { file_path: "alias/s.txt" }],
  ["read_file s-link.txt", "read_file", { file_path: "s-link.txt" }],
  ["edit_file s-link.txt", "edit_file", { file_path: "s-link.txt", old_string: "S", new_string: "PWN-EDIT" }],
  ["write_file alias/s.txt", "write_file", { file_path: "alias/s.txt", content: "PWN-WRITE\n" }],
  ["apply_patch Add File alias/x6.txt", "apply_patch", patch("*** Add File: alias/x6.txt\n+PWN")],
  ["apply_patch Update File s-link.txt", "apply_patch", patch("*** Update File: s-link.txt\n@@\n-S\n+PWN-PATCH")],
  ["apply_patch Add File through alias/../alias", "apply_patch", patch("*** Add File: alias/../alias/x7.txt\n+PWN")],
];

describe("path rules judge the real path too (S10)", () => {
  it.each(FORMS)("deny secret/**: %s is denied and the secret is untouched", async (_label, name, args) => {
    const out = await run({ mode: "bypass", deny: DENY }, name, args);
    expect(out).toMatch(
      /^denied by policy: rule "(read_file|edit_file|write_file|apply_patch)\(secret\/\*\*\)" forbids/,
    );
    expect(await readFile(path.join(ws, "secret", "s.txt"), "utf8")).toBe("S\n");
    expect((await readdir(path.join(ws, "secret"))).sort()).toEqual(["s.txt"]);
  });

  it.each(FORMS)(
    "without the rule the same %s reaches the secret (the table is not vacuous)",
    async (_l, name, args) => {
      const out = await run({ mode: "bypass" }, name, args);
      expect(out).not.toMatch(/denied/);
      const touched =
        name === "read_file"
          ? out.includes("S")
          : (await readFile(path.join(ws, "secret", "s.txt"), "utf8")) !== "S\n" ||
            (await readdir(path.join(ws, "secret"))).length > 1;
      expect(touched).toBe(true);
    },
  );

  it("an allow needs both paths: allow edit_file(alias/**) does not allow editing through the link into secret", async () => {
    // default mode asks for nothing on reads, so judge an edit: allowed only when both views match.
    const allowAlias = { mode: "default" as const, allow: ["edit_file(alias/**)"], nonInteractive: true };
    const viaLink = await run(allowAlias, "edit_file", { file_path: "alias/s.txt", old_string: "S", new_string: "X" });
    expect(viaLink).toBe("rejected: this call needs approval and no approver is configured");
    const both = { ...allowAlias, allow: ["edit_file(alias/**)", "edit_file(secret/**)"] };
    const allowed = await run(both, "edit_file", { file_path: "alias/s.txt", old_string: "S", new_string: "X" });
    expect(allowed).toMatch(/1 replacement/);
    expect(await readFile(path.join(ws, "secret", "s.txt"), "utf8")).toBe("X\n");
  });

  it("a plain file allowed by a plain rule stays allowed (the real view of a real path matches)", async () => {
    const out = await run({ mode: "default", allow: ["edit_file(open.txt)"], nonInteractive: true }, "edit_file", {
      file_path: "open.txt",
      old_string: "O",
      new_string: "P",
    });
    expect(out).toMatch(/1 replacement/);
  });

  it("a workspace reached through a symlinked cwd still matches relative rules", async () => {
    const linked = path.join(root, `link-ws${n}`);
    await symlink(ws, linked);
    const turn = createTurnContext({
      cwd: linked,
      permissions: new PermissionEngine({ mode: "default", allow: ["edit_file(open.txt)"], nonInteractive: true }),
    });
    const runtime = new ToolCallRuntime(router, turn);
    const args = { file_path: path.join(linked, "open.txt"), old_string: "O", new_string: "P" };
    runtime.submit(fc("r1", "read_file", JSON.stringify({ file_path: args.file_path })));
    await runtime.drain();
    runtime.submit(fc("c1", "edit_file", JSON.stringify(args)));
    expect((await runtime.drain()).map(text)[0]).toMatch(/1 replacement/);
  });
});
