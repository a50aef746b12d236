import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

/** One skill: a directory holding `SKILL.md`. */
export interface Skill {
  name: string;
  description: string;
  dir: string;
  file: string;
}

const SKILL_FILE = "SKILL.md";

/** `name` and `description` from the file's front matter (`---` lines of `key: value`). */
function frontMatter(text: string): Record<string, string> {
  const m = /^---\r?\n([\s\S]*?)\r?\n---(?:\r?\n|$)/.exec(text);
  const out: Record<string, string> = {};
  for (const line of m?.[1]?.split(/\r?\n/) ?? []) {
    const [, key, value] = /^([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(line) ?? [];
    if (key !== undefined && value !== undefined) out[key] = value.trim().replace(/^(["'])(.*)\1$/, "$2");
  }
  return out;
}

function load(dir: string): Skill {
  const file = path.join(dir, SKILL_FILE);
  const meta = frontMatter(readFileSync(file, "utf8"));
  return { name: meta["name"] || path.basename(dir), description: meta["description"] ?? "", dir, file };
}

/**
 * The skills in `roots`: each root is a skill directory (it holds `SKILL.md`) or a directory of
 * them. Read once, when the router is built. Throws naming a root that is neither, or two
 * skills with one name.
 */
export function loadSkills(roots: readonly string[]): Skill[] {
  const skills = new Map<string, Skill>();
  const add = (skill: Skill): void => {
    const other = skills.get(skill.name);
    if (other) throw new TypeError(`two skills are named ${skill.name}: ${other.dir} and ${skill.dir}`);
    skills.set(skill.name, skill);
  };
  for (const root of roots) {
    const dir = path.resolve(root);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new TypeError(`skills: ${root} is not a directory`);
    if (existsSync(path.join(dir, SKILL_FILE))) {
      add(load(dir));
      continue;
    }
    const found = readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(path.join(dir, d.name, SKILL_FILE)))
      .map((d) => path.join(dir, d.name))
      .sort();
    if (found.length === 0) throw new TypeError(`skills: ${root} holds no ${SKILL_FILE}, nor directories that do`);
    for (const skillDir of found) add(load(skillDir));
  }
  return [...skills.values()];
}
