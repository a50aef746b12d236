export { skillSpec, SkillHandler, skillToolFactory, type SkillToolConfig } from "./handler.js";
