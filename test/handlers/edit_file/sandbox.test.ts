import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createExecEnvironment,
  createToolRouter,
  PermissionEngine,
  type ApprovalDecision,
  type ApprovalRequest,
  type ToolRouter,
} from "../../../src/index.js";
import { Scratch } from "../../sandbox/helpers.js";
import { callRouter } from "../toolHarness.js";

/*
 * edit_file and write_file under a workspace-write environment (DESIGN section 12): the target
 * is checked against the writable roots before any byte is written, and a person may allow a
 * write outside them. The workspace lives outside os.tmpdir(), which is itself a writable root.
 */
let work: string;
let outside: string;
let router: ToolRouter;

const scratch = new Scratch();
beforeEach(async () => {
  const base = await scratch.outside("edit");
  work = path.join(base, "work");
  outside = path.join(base, "outside");
  await mkdir(work);
  await mkdir(outside);
  router = await createToolRouter({ shell: false, editFile: true, writeFile: true });
});
afterEach(() => scratch.cleanup());

async function call(
  name: string,
  args: unknown,
  approve?: (req: ApprovalRequest) => ApprovalDecision,
): Promise<{ text: string; success: boolean; asked: ApprovalRequest[] }> {
  const environment = await createExecEnvironment({ cwd: work, sandbox: { mode: "workspace-write" } });
  const asked: ApprovalRequest[] = [];
  const permissions =
    approve &&
    new PermissionEngine({
      mode: "bypass",
      approve: async (req) => {
        asked.push(req);
        return approve(req);
      },
    });
  const out = await callRouter(router, name, args, { cwd: work, environment, ...(permissions && { permissions }) });
  return { text: out.text, success: out.success, asked };
}

describe("edit_file and write_file in a workspace-write environment", () => {
  it("edit inside the workspace", async () => {
    const p = path.join(work, "in.txt");
    await writeFile(p, "in\n");
    await call("read_file", { file_path: p });
    expect((await call("edit_file", { file_path: p, old_string: "in", new_string: "IN" })).success).toBe(true);
    expect(await readFile(p, "utf8")).toBe("IN\n");
  });

  it("refuse an edit outside the writable roots, after the file was read, leaving it as it was", async () => {
    const p = path.join(outside, "secret.txt");
    await writeFile(p, "keep\n");
    expect((await call("read_file", { file_path: p })).success).toBe(true);
    const out = await call("edit_file", { file_path: p, old_string: "keep", new_string: "lost" });
    expect(out).toMatchObject({ success: false, text: `denied by sandbox: ${p} is outside the writable roots` });
    expect(await readFile(p, "utf8")).toBe("keep\n");
  });

  it("refuse a new file outside, creating no directory either", async () => {
    const p = path.join(outside, "new/x.txt");
    const out = await call("write_file", { file_path: p, content: "x" });
    expect(out.text).toBe(`denied by sandbox: ${p} is outside the writable roots`);
    expect(existsSync(path.join(outside, "new"))).toBe(false);
  });

  it("keep .git read-only", async () => {
    await mkdir(path.join(work, ".git"));
    const p = path.join(work, ".git/config");
    const out = await call("write_file", { file_path: p, content: "x" });
    expect(out.text).toBe(`denied by sandbox: ${p} is inside .git, which stays read-only`);
  });

  it("write outside on a person's allow (sandbox_escalation), and not on a deny", async () => {
    const p = path.join(outside, "allowed.txt");
    const denied = await call("write_file", { file_path: p, content: "no" }, () => ({ decision: "deny" }));
    expect(denied.success).toBe(false);
    expect(existsSync(p)).toBe(false);
    const out = await call("write_file", { file_path: p, content: "yes" }, () => ({ decision: "allow" }));
    expect(out.asked).toHaveLength(1);
    expect(out.asked[0]).toMatchObject({
      kind: "sandbox_escalation",
      toolName: "write_file",
      reason: `${p} is outside the writable roots; write it anyway?`,
    });
    expect(out).toMatchObject({ success: true, text: `Created ${p}` });
    expect(await readFile(p, "utf8")).toBe("yes");
  });

  it("ask nothing of a person when the edit is refused for want of a read", async () => {
    const p = path.join(outside, "unread.txt");
    await writeFile(p, "a\n");
    const out = await call("edit_file", { file_path: p, old_string: "a", new_string: "b" }, () => ({
      decision: "allow",
    }));
    expect(out).toMatchObject({ success: false, text: `read ${p} before changing it`, asked: [] });
  });
});
