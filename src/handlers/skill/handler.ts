import { readFile } from "node:fs/promises";
import { FunctionCallError, type FunctionToolSpec, type ToolOutput } from "../../protocol/index.js";
import type { PolicySubject, ToolFactory, ToolHandler, ToolInvocation } from "../../registry/index.js";
import { errorMessage } from "../../util/index.js";
import { loadSkills, type Skill } from "./skills.js";

/** The `skill` tool: its description lists the skills, so the model knows what it may load. */
export function skillSpec(skills: readonly Skill[]): FunctionToolSpec {
  const list = skills.map((s) => `- ${s.name}${s.description ? `: ${s.description}` : ""}`).join("\n");
  return {
    type: "function",
    annotations: { readOnlyHint: true },
    name: "skill",
    description: `Loads a skill: instructions (and the directory of files they refer to) for a kind of task. Load one when the task matches it.\nAvailable skills:\n${list}`,
    strict: false,
    parameters: {
      type: "object",
      properties: { name: { type: "string", description: "The skill's name, as listed." } },
      required: ["name"],
      additionalProperties: false,
    },
  };
}

/** `skill {name}`: the skill's `SKILL.md`, headed by the directory its other files live in. */
export class SkillHandler implements ToolHandler {
  readonly kind = "function" as const;
  private readonly byName: ReadonlyMap<string, Skill>;

  constructor(skills: readonly Skill[]) {
    this.byName = new Map(skills.map((s) => [s.name, s]));
  }

  policySubject(inv: ToolInvocation): PolicySubject {
    return { summary: `skill ${(inv.args as { name: string }).name}` };
  }

  async handle(inv: ToolInvocation): Promise<ToolOutput> {
    const { name } = inv.args as { name: string };
    const skill = this.byName.get(name);
    if (!skill) {
      throw FunctionCallError.respondToModel(`unknown skill ${name}; available: ${[...this.byName.keys()].join(", ")}`);
    }
    let text: string;
    try {
      text = await readFile(skill.file, "utf8");
    } catch (err) {
      throw FunctionCallError.respondToModel(`failed to read skill ${name}: ${errorMessage(err)}`);
    }
    return { kind: "function", body: `Skill ${name} (files in ${skill.dir}):\n\n${text}` };
  }
}

export interface SkillToolConfig {
  /** Skill directories (each holding `SKILL.md`) or directories of them; none: no `skill` tool. */
  skills?: string[];
}

export const skillToolFactory: ToolFactory<SkillToolConfig> = (config) => {
  if (!config.skills || config.skills.length === 0) return [];
  const skills = loadSkills(config.skills);
  return [{ spec: skillSpec(skills), handler: new SkillHandler(skills), supportsParallel: true }];
};
