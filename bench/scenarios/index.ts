import type { Scenario } from "../lib/scenario.js";
import { cli } from "./cli.js";
import { dispatch } from "./dispatch.js";
import { exec } from "./exec.js";
import { journal } from "./journal.js";
import { mcp } from "./mcp.js";
import { memory } from "./memory.js";
import { mixed } from "./mixed.js";
import { parallel } from "./parallel.js";
import { peers } from "./peers.js";
import { policy } from "./policy.js";
import { scaling } from "./scaling.js";
import { serveMcp } from "./serveMcp.js";

/** Every scenario, in the order they run and print. */
export const SCENARIOS: readonly Scenario[] = [
  dispatch,
  parallel,
  scaling,
  mixed,
  mcp,
  serveMcp,
  exec,
  cli,
  policy,
  journal,
  peers,
  memory,
];
