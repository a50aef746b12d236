import { readFile } from "node:fs/promises";
import path from "node:path";
import { spawnGroup, type GroupChild } from "../process/index.js";
import { FunctionCallError, SandboxDenial, texts, type FileOps } from "../protocol/index.js";
import { errorMessage } from "../util/index.js";
import { putArchive } from "./dockerArchive.js";
import { shellFileOps } from "./dockerShellFiles.js";
import { FILE_OPS } from "./helper/ops.js";
import type { DockerCli } from "./dockerCli.js";
import { HelperClient } from "./helper/client.js";
import { helperScript } from "./helper/script.js";
import { isWithin, realTargets, type PathLookup } from "./roots.js";
import { tarOf } from "./tar.js";

/*
 * The file tools' operations inside a container whose workspace is not on the host (DESIGN
 * section 16, "Remote engines"): the resident helper (src/sandbox/helper) copied in through the
 * archive API and run with `docker exec -i` under the image's `node`, so the container's kernel
 * resolves every path, with the commands' user and view. One helper serves many calls over the
 * exec's stream; it ends at end-of-file, with the container, or after a while idle. An image
 * without node gets the same operations from `sh` and coreutils, one `docker exec` each
 * (dockerShellFiles.ts).
 */

/** Where the helper's files go inside the container (root-owned, beside nothing of the image's). */
const HELPER_DIR = "/.toolcall-helper";

/** Exits NO_NODE when the image has no `node` on the exec's PATH. */
const NO_NODE = 42;
const NODE_PROBE = `command -v node >/dev/null 2>&1 || exit ${NO_NODE}`;

/** The helper's files: the bundled one (`sandbox-helper.js`), or tsc's `main.js` with its two siblings. */
async function helperFiles(): Promise<Array<{ name: string; data: Buffer | string }>> {
  const script = await helperScript();
  const names = path.basename(script) === "main.js" ? ["main.js", "ops.js", "wire.js"] : [path.basename(script)];
  const files = await Promise.all(
    names.map(async (name) => ({
      name: `${HELPER_DIR.slice(1)}/${name === "sandbox-helper.js" ? "main.js" : name}`,
      data: await readFile(path.join(path.dirname(script), name)),
    })),
  );
  // ES modules, whatever the image's node defaults to.
  return [...files, { name: `${HELPER_DIR.slice(1)}/package.json`, data: '{"type":"module"}\n' }];
}

export class ContainerFiles {
  readonly files: FileOps;
  /** The same resolution as the host's path checks, asked of the container. */
  readonly lookup: PathLookup;
  private readonly client: HelperClient;
  /** The image's node (the helper copied in), or null: the shell's operations then. */
  private node: Promise<string | null> | undefined;
  private readonly shell: FileOps;

  constructor(
    private readonly cli: DockerCli,
    private readonly container: string,
    /** Starts the container (once) before the helper needs it. */
    private readonly started: () => Promise<void>,
    private readonly workdir: string,
  ) {
    this.client = new HelperClient(() => this.startHelper());
    this.shell = shellFileOps(cli, container, started);
    // Each operation goes to the helper where the image has node, else to sh and coreutils.
    const ops: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
    for (const op of FILE_OPS) {
      ops[op] = async (...args) => {
        const backend = (await this.installed()) === null ? this.shell : this.client.files;
        return (backend[op] as (...a: unknown[]) => Promise<unknown>)(...args);
      };
    }
    this.files = ops as unknown as FileOps;
    this.lookup = {
      isSymlink: async (p) => (await this.files.lstat(p)).kind === "symlink",
      realpath: (p) => this.files.realpath(p),
      readlink: (p) => this.files.readlink(p),
    };
  }

  /** The image's `node`, once the helper is in place; null when it has none. */
  private installed(): Promise<string | null> {
    this.node ??= (async () => {
      await this.started().catch((err: unknown) => {
        throw FunctionCallError.respondToModel(`container unavailable: ${errorMessage(err)}`);
      });
      // By exit code: a short exec's output can be lost by the engine (seen on 20.10 under load).
      // A status of its own: `command -v` fails with 1 in bash but 127 in dash, and the docker
      // CLI's own failures (engine, container gone) are 1 and 125 to 127.
      const hasNode = await this.cli.run(["exec", this.container, "sh", "-c", NODE_PROBE]).then(
        () => true,
        (err: unknown) => {
          if ((err as { exitCode?: unknown }).exitCode === NO_NODE) return false;
          throw err;
        },
      );
      if (!hasNode) return null;
      await putArchive(this.cli, this.container, "/", tarOf(await helperFiles()));
      return "node"; // found on the exec's PATH, as the probe found it
    })().catch((err: unknown) => {
      this.node = undefined;
      throw err;
    });
    return this.node;
  }

  private async startHelper(): Promise<GroupChild> {
    const node = await this.installed();
    if (node === null) throw new Error("the container's image has no node for the file helper");
    return spawnGroup(
      this.cli.binary,
      ["exec", "--interactive", "--workdir", this.workdir, this.container, node, `${HELPER_DIR}/main.js`],
      {
        cwd: "/",
        env: this.cli.env,
        stdio: ["pipe", "pipe", "pipe"],
        // Its end is the helper's end (end-of-file); the container's removal ends it too.
        forwardHostSignals: false,
      },
    );
  }

  /**
   * The file tools may write the workspace only (what `pull` copies back); every path resolved
   * by the container's kernel (a link there to /etc is judged at /etc).
   */
  async checkWrite(paths: readonly string[], base: string): Promise<void> {
    for (const p of paths) {
      for (const real of await this.resolved(base, p)) {
        if (!isWithin(this.workdir, real)) throw new SandboxDenial(p, texts.outsideWritableRoots(p));
      }
    }
  }

  /** Anything in the container may be read (it holds nothing of the host's) but what is not a regular file or directory. */
  async checkRead(p: string, base: string): Promise<void> {
    let st;
    try {
      st = await this.files.stat(path.posix.resolve(base, p));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "EHELPER") throw err;
      return; // what does not exist is the reader's to report
    }
    if (st.kind !== "file" && st.kind !== "directory") throw FunctionCallError.respondToModel(texts.notRegularFile(p));
  }

  private resolved(base: string, p: string): Promise<string[]> {
    return realTargets(base, p, this.lookup).catch((err: unknown) => {
      if (err instanceof FunctionCallError) throw err;
      throw FunctionCallError.respondToModel(`cannot resolve ${p} in the container: ${errorMessage(err)}`);
    });
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
