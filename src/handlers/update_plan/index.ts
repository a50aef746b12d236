export { UPDATE_PLAN_SPEC, UpdatePlanHandler, type UpdatePlanToolConfig, updatePlanToolFactory } from "./handler.js";
