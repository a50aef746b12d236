/** One named bundle of tools (AgentScope's tool groups). */
export interface ToolGroup {
  tools: string[];
  description?: string;
  /** Returned by `reset_tools` when the group becomes active. */
  instructions?: string;
}

/**
 * Which tools the session offers now (DESIGN section 15): tools in no group are always on;
 * a group's tools only while it is active (`reset_tools`); with `deferTools`, MCP tools only
 * once `tool_search` activated them. One per router, shared by its runtimes.
 */
export class ToolActivation {
  private readonly groupOf = new Map<string, string>();
  private readonly active = new Set<string>();
  private readonly found = new Set<string>();

  constructor(
    readonly groups: Readonly<Record<string, ToolGroup>> = {},
    /** MCP tools wait for `tool_search`. */
    readonly deferMcp = false,
  ) {
    for (const [group, { tools }] of Object.entries(groups)) {
      if (!Array.isArray(tools) || !tools.every((t) => typeof t === "string"))
        throw new TypeError(`ToolsConfig.groups.${group}.tools must be a list of tool names`);
      for (const tool of tools) {
        const other = this.groupOf.get(tool);
        if (other !== undefined) throw new TypeError(`tool ${tool} is in two groups: ${other} and ${group}`);
        this.groupOf.set(tool, group);
      }
    }
  }

  /** Is the tool offered and callable now? `mcp`: it is an MCP tool. */
  isActive(name: string, mcp: boolean): boolean {
    const group = this.groupOf.get(name);
    if (group !== undefined) return this.active.has(group);
    return !(mcp && this.deferMcp) || this.found.has(name);
  }

  /** The group a tool belongs to, if any. */
  groupFor(name: string): string | undefined {
    return this.groupOf.get(name);
  }

  /** `reset_tools`: exactly these groups active from now on; returns the ones switched on. */
  setActive(groups: Readonly<Record<string, boolean>>): string[] {
    const on: string[] = [];
    for (const [group, want] of Object.entries(groups)) {
      if (want && !this.active.has(group)) on.push(group);
      if (want) this.active.add(group);
      else this.active.delete(group);
    }
    return on;
  }

  get activeGroups(): string[] {
    return [...this.active];
  }

  /** `tool_search`: deferred tools it found are offered from the next request on. */
  activate(names: Iterable<string>): void {
    for (const name of names) this.found.add(name);
  }
}
