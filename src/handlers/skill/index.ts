export { skillSpec, SkillHandler, skillToolFactory, type SkillToolConfig } from "./handler.js";
export { loadSkills, type Skill } from "./skills.js";
