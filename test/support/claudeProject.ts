import { chmod, copyFile, mkdir, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../fixtures");

/** A project holding the fixture as `.claude/settings.json` and its hook scripts in `.claude/hooks`. */
export async function claudeProject(root: string): Promise<string> {
  const project = path.join(root, "project");
  await mkdir(path.join(project, ".claude", "hooks"), { recursive: true });
  await mkdir(path.join(root, "shared-docs"));
  await copyFile(
    path.join(FIXTURES, "configs", "claude-settings.json"),
    path.join(project, ".claude", "settings.json"),
  );
  for (const hook of await readdir(path.join(FIXTURES, "claude-hooks"))) {
    const target = path.join(project, ".claude", "hooks", hook);
    await copyFile(path.join(FIXTURES, "claude-hooks", hook), target);
    await chmod(target, 0o755);
  }
  await writeFile(path.join(project, ".env"), "API_KEY=secret\n");
  await writeFile(path.join(project, "victim.txt"), "keep me\n");
  return project;
}
