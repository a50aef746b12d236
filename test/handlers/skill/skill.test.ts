import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createToolRouter, type FunctionToolSpec } from "../../../src/index.js";
import { loadConfigText, runCli } from "../../cli/helpers.js";
import { callRouter, useTempDir } from "../toolHarness.js";

let dir: string;
useTempDir((d) => (dir = d));

async function skill(root: string, name: string, front: string, body = "Do the thing.\n"): Promise<string> {
  const at = join(root, name);
  await mkdir(at, { recursive: true });
  await writeFile(join(at, "SKILL.md"), `${front}${body}`);
  return at;
}

describe("skills", () => {
  it("lists every skill of a directory of skills in the tool's description and returns one by name", async () => {
    const root = join(dir, "skills");
    await skill(root, "pdf", "---\nname: pdf-forms\ndescription: Fill in PDF forms\n---\n", "Use pdftk.\n");
    await skill(root, "release", '---\ndescription: "Cut a release"\n---\n');
    await mkdir(join(root, "not-a-skill"));
    const router = await createToolRouter({ skills: [root] });
    const spec = router.specs().find((s) => s.spec.type === "function" && s.spec.name === "skill")
      ?.spec as FunctionToolSpec;
    expect(spec.description).toMatch(/Available skills:\n- pdf-forms: Fill in PDF forms\n- release: Cut a release$/);
    const out = await callRouter(router, "skill", { name: "pdf-forms" }, { cwd: dir });
    expect(out).toMatchObject({ success: true });
    expect(out.text).toBe(
      `Skill pdf-forms (files in ${join(root, "pdf")}):\n\n---\nname: pdf-forms\ndescription: Fill in PDF forms\n---\nUse pdftk.\n`,
    );
    expect(await callRouter(router, "skill", { name: "nope" }, { cwd: dir })).toMatchObject({
      success: false,
      text: "unknown skill nope; available: pdf-forms, release",
    });
  });

  it("takes a single skill directory too, and offers no tool without skills", async () => {
    const one = await skill(dir, "lint", "");
    const router = await createToolRouter({ skills: [one] });
    expect((await callRouter(router, "skill", { name: "lint" }, { cwd: dir })).text).toContain("Do the thing.");
    const none = await createToolRouter({});
    expect(none.specs().some((s) => s.spec.type === "function" && s.spec.name === "skill")).toBe(false);
  });

  it("refuses a root that holds no skill and two skills with one name, naming them", async () => {
    await mkdir(join(dir, "empty"));
    await expect(createToolRouter({ skills: [join(dir, "empty")] })).rejects.toThrow(
      `skills: ${join(dir, "empty")} holds no SKILL.md, nor directories that do`,
    );
    await expect(createToolRouter({ skills: [join(dir, "missing")] })).rejects.toThrow("is not a directory");
    const a = await skill(join(dir, "a"), "x", "---\nname: same\n---\n");
    const b = await skill(join(dir, "b"), "y", "---\nname: same\n---\n");
    await expect(createToolRouter({ skills: [a, b] })).rejects.toThrow(`two skills are named same: ${a} and ${b}`);
  });

  it("reads [tools] skills and spill_dir in toolcall.toml relative to the file", async () => {
    const config = await loadConfigText(
      dir,
      "conf/toolcall.toml",
      '[tools]\nskills = ["../skills"]\nspill_dir = "out"\n',
    );
    expect(config.tools.skills).toEqual([join(dir, "skills")]);
    expect(config.tools.spillDir).toBe(join(dir, "conf", "out"));
  });

  it("reads [tools.groups.NAME] and defer_tools, and names a group without tools", async () => {
    const text =
      '[tools]\ndefer_tools = true\n[tools.groups.files]\ntools = ["read_file"]\ninstructions = "Read first."\n';
    const config = await loadConfigText(dir, "toolcall.toml", text);
    expect(config.tools).toMatchObject({
      deferTools: true,
      groups: { files: { tools: ["read_file"], instructions: "Read first." } },
    });
    await expect(loadConfigText(dir, "bad.toml", '[tools.groups.files]\ndescription = "x"\n')).rejects.toThrow(
      "tools.groups.files.tools: expected a list of tool names",
    );
  });

  it("makes a bad skills root a config error of the command (exit 2)", async () => {
    await writeFile(join(dir, "toolcall.toml"), '[tools]\nskills = ["nope"]\n');
    const result = await runCli(["tools"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${join(dir, "toolcall.toml")}: skills: ${join(dir, "nope")} is not a directory`);
  });
});
