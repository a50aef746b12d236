import { createInterface } from "node:readline";
import { FILE_OPS, helperFileOps } from "./ops.js";
import { decode, encode, type Answer, type Request } from "./wire.js";

/*
 * The resident helper (DESIGN section 12): `node sandbox-helper.js`, started by the host inside
 * bubblewrap with the sandbox's mounts, serving the file operations over its stdin/stdout. It
 * holds no state; it exits at end-of-file on stdin (the host closed it or died), and bubblewrap's
 * --die-with-parent and PID namespace end it with the host in any case.
 */

type Op = (...args: unknown[]) => Promise<unknown>;

function isRequest(value: unknown): value is Request {
  const r = value as Partial<Request>;
  return (
    typeof r === "object" && r !== null && typeof r.i === "number" && typeof r.o === "string" && Array.isArray(r.a)
  );
}

async function answer(request: Request): Promise<Answer> {
  if (!(FILE_OPS as string[]).includes(request.o))
    return { i: request.i, e: { message: `unknown operation ${request.o}` } };
  try {
    const ops = helperFileOps as unknown as Record<string, Op>;
    return { i: request.i, v: (await ops[request.o]?.(...request.a)) ?? null };
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const said = {
      ...(typeof e.code === "string" && { code: e.code }),
      ...(typeof e.path === "string" && { path: e.path }),
    };
    return { i: request.i, e: { ...said, message: e.message } };
  }
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  let request: unknown;
  try {
    request = decode(line);
  } catch {
    request = undefined;
  }
  if (!isRequest(request)) {
    process.exitCode = 2; // only the host writes here: a malformed line means it is not the host
    lines.close();
    return;
  }
  void answer(request).then((a) => process.stdout.write(`${encode(a)}\n`));
});
lines.on("close", () => process.exit());
