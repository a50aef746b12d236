/** The raw `child_process.spawn` baseline for the exec scenarios. */
import { spawn } from "node:child_process";

/** Runs argv, keeping every output chunk (the naive way), and resolves with the bytes seen. */
export function rawSpawn(argv: readonly string[]): Promise<{ code: number | null; chunks: Buffer[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0] as string, argv.slice(1), { stdio: ["ignore", "pipe", "pipe"] });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => chunks.push(c));
    child.stderr.on("data", (c: Buffer) => chunks.push(c));
    child.on("error", reject);
    child.on("close", (code) => {
      resolve({ code, chunks });
    });
  });
}
