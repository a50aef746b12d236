import { FunctionCallError, type FileOps } from "../protocol/index.js";

/**
 * Where a path rule judged a call's paths to really land, and the judgement of a landing found
 * later (DESIGN section 11): the file tools check the file they opened, or the place they are
 * about to write, against it, so a link flipped between the decision and the open changes nothing.
 */
export interface CallLanding {
  /** The real paths judged when the call was allowed. */
  readonly paths: readonly string[];
  /**
   * Undefined when the rules allow the call landing at `real` too (`asked`: the path as the
   * model wrote it, which led there), else the refusal for the model.
   */
  judge(real: string, asked?: string): string | undefined;
}

/**
 * `files` whose writes go only where the call's paths were judged to land (`FileOps.write`'s
 * `onlyAt`). A write found to lead elsewhere (a link flipped since the decision) is judged
 * there: refused with the rule's sentence, or written there, pinned to that place, when the
 * rules allow it too. Without a landing (no path rule judged the call): `files` itself.
 */
export function judgedWrites(files: FileOps, landing: CallLanding | undefined): FileOps {
  if (landing === undefined) return files;
  const pinned = async (path: string, data: Buffer | string, opts: { mode?: number }, onlyAt: readonly string[]) => {
    const written = await files.write(path, data, { ...opts, onlyAt });
    // An embedder's FileOps that ignores `onlyAt` is told apart here, not trusted silently.
    if (!onlyAt.includes(written.path))
      throw new Error(`the environment's file operations wrote ${written.path}, not where the call was judged to land`);
    return written;
  };
  const write: FileOps["write"] = async (path, data, opts = {}) => {
    try {
      return await pinned(path, data, opts, landing.paths);
    } catch (err) {
      const { code, path: landed } = err as NodeJS.ErrnoException;
      if (code !== "ECHANGED" || landed === undefined) throw err;
      const refusal = landing.judge(landed, path);
      if (refusal !== undefined) throw FunctionCallError.respondToModel(refusal);
      return pinned(path, data, opts, [landed]);
    }
  };
  // Every other operation as `files` has it (a class's methods too, through its prototype).
  return Object.assign(Object.create(files) as FileOps, { write });
}
