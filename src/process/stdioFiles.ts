import { closeSync, constants, fstatSync, openSync } from "node:fs";
import type { StdioEntry } from "./spawnerProtocol.js";

/**
 * Opens each `{ readOnlyFile }` entry of a child's stdio anew, read-only, through `owner`'s
 * /proc/<pid>/fd (the host's from its spawner, its own otherwise): the entries node's spawn
 * takes, and the descriptors to close once it has forked. Throws, with nothing left open, when
 * one cannot be opened or is not a regular file (a pipe or socket reopened would not be the same
 * channel). Node built-ins only: the spawner's bundle uses it.
 */
export function openStdio(
  entries: readonly StdioEntry[],
  owner: number | "self",
): { stdio: Array<"ignore" | "pipe" | number>; files: number[] } {
  const files: number[] = [];
  try {
    const stdio = entries.map((entry) => {
      if (typeof entry === "string") return entry;
      const notFile = (why: string): Error =>
        new Error(`stdio descriptor ${entry.readOnlyFile} is not a regular file of the host's (${why})`);
      let fd: number;
      try {
        // Non-blocking: a FIFO's open would wait for a writer (it is refused just below anyway).
        fd = openSync(`/proc/${owner}/fd/${entry.readOnlyFile}`, constants.O_RDONLY | constants.O_NONBLOCK);
      } catch (err) {
        throw notFile((err as NodeJS.ErrnoException).code ?? String(err));
      }
      files.push(fd);
      if (!fstatSync(fd).isFile()) throw notFile("a pipe, socket or device");
      return fd;
    });
    return { stdio, files };
  } catch (err) {
    for (const fd of files) closeSync(fd);
    throw err;
  }
}
