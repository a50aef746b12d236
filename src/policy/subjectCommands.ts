import type { PolicySubject } from "../protocol/index.js";
import { bashParserReady, loadBashParser } from "../util/index.js";
import { reduceCommands, type JudgedCommands } from "./reduceCommands.js";

/** One reduction per subject, shared by every rule, the suggestion and the mode. */
const judged = new WeakMap<PolicySubject, JudgedCommands>();

/**
 * What a shell subject runs, reduced (`reduceCommands`). `commands: null` (a plugin's
 * unparsable script) is opaque, judged by its summary.
 */
export function judgedCommands(subject: PolicySubject): JudgedCommands {
  let result = judged.get(subject);
  if (result === undefined) {
    const { commands, scripts = [] } = subject;
    result =
      commands === null
        ? { commands: [], opaque: [subject.summary ?? ""], elevated: false, needsParser: false }
        : reduceCommands(commands ?? [], scripts);
    judged.set(subject, result);
  }
  return result;
}

/**
 * Loads the bash parser when judging `subject` needs it and it is not loaded yet: the one wait
 * a process pays, at its first script that is more than plain words. Undefined (nothing to
 * wait for) otherwise, so allowed plain commands stay synchronous.
 */
export function prepareSubject(subject: PolicySubject | undefined): Promise<void> | undefined {
  if (subject === undefined || bashParserReady()) return undefined;
  if (subject.commands === undefined && subject.scripts === undefined) return undefined;
  if (!judgedCommands(subject).needsParser) return undefined;
  return loadBashParser().then(() => {
    judged.delete(subject);
  });
}
