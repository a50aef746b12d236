import { resolve } from "node:path";
import { FunctionCallError, type ImageDetail, type ToolOutput, type FunctionToolSpec } from "../../protocol/index.js";
import type { PolicySubject, ToolFactory, ToolHandler, ToolInvocation } from "../../registry/index.js";
import { environmentOf, filesOf } from "../../sandbox/index.js";
import { ioErrorText } from "../../util/index.js";

/** The Responses API takes images up to 20 MB; a larger data URL would be rejected anyway. */
export const DEFAULT_MAX_IMAGE_BYTES = 20 * 1024 * 1024;

export const VIEW_IMAGE_SPEC: FunctionToolSpec = {
  type: "function",
  annotations: { readOnlyHint: true },
  name: "view_image",
  description:
    "View a local image file from the filesystem when visual inspection is needed. Use this for images already available on disk.",
  strict: false,
  parameters: {
    type: "object",
    properties: { path: { type: "string", description: "Local filesystem path to an image file." } },
    required: ["path"],
    additionalProperties: false,
  },
};

const fail = (message: string): FunctionCallError => FunctionCallError.respondToModel(message);

/** The MIME type named by the file's magic bytes, or undefined for other formats. */
function sniffImageType(head: Buffer): string | undefined {
  const starts = (bytes: number[], at = 0): boolean => bytes.every((b, i) => head[at + i] === b);
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (starts([0xff, 0xd8, 0xff])) return "image/jpeg";
  if (head.subarray(0, 6).toString("latin1") === "GIF87a" || head.subarray(0, 6).toString("latin1") === "GIF89a") {
    return "image/gif";
  }
  if (head.subarray(0, 4).toString("latin1") === "RIFF" && head.subarray(8, 12).toString("latin1") === "WEBP") {
    return "image/webp";
  }
  return undefined;
}

/**
 * Codex `view_image`: the file as an `input_image` data URL (PNG, JPEG, GIF, WebP), with
 * `detail` when given (Codex 0.171 asks for `"original"` where the model supports it).
 */
export class ViewImageHandler implements ToolHandler {
  readonly kind = "function" as const;

  policySubject(inv: ToolInvocation): PolicySubject {
    const { path } = inv.args as { path: string };
    return { paths: [path], summary: `view_image ${path}` };
  }

  constructor(
    private readonly maxBytes: number = DEFAULT_MAX_IMAGE_BYTES,
    private readonly detail?: ImageDetail,
  ) {}

  async handle(inv: ToolInvocation): Promise<ToolOutput> {
    const asked = (inv.args as { path: string }).path;
    const path = resolve(inv.turn.cwd, asked);
    await environmentOf(inv.turn).checkRead(asked, { cwd: inv.turn.cwd });
    const files = filesOf(inv.turn);
    let size: number;
    try {
      const info = await files.stat(path);
      if (info.kind !== "file") throw fail(`image path \`${path}\` is not a file`);
      size = info.size;
    } catch (err) {
      if (err instanceof FunctionCallError) throw err;
      throw fail(`unable to locate image at \`${path}\`: ${ioErrorText(err)}`);
    }
    if (size > this.maxBytes) {
      throw fail(`image at \`${path}\` is ${size} bytes, above the limit of ${this.maxBytes} bytes`);
    }
    let read: { data: Buffer; real?: string };
    try {
      // One byte past the limit is enough to know the file grew past it.
      read = await files.read(path, { length: this.maxBytes + 1, named: inv.landing !== undefined });
    } catch (err) {
      if (inv.signal.aborted) throw err;
      throw fail(`unable to read image at \`${path}\`: ${ioErrorText(err)}`);
    }
    // Where a path rule judged the call: the file opened is judged again (a link flipped since).
    if (inv.landing !== undefined) {
      const real = read.real ?? (await files.realpath(path).catch(() => path));
      const refusal = inv.landing.judge(real, asked);
      if (refusal !== undefined) throw fail(refusal);
    }
    const bytes = read.data;
    // The size may have changed since stat; the limit holds for what was read.
    if (bytes.length > this.maxBytes) {
      throw fail(`image at \`${path}\` is ${bytes.length} bytes, above the limit of ${this.maxBytes} bytes`);
    }
    const mime = sniffImageType(bytes);
    if (!mime) {
      throw fail("unable to process image: invalid or unsupported image data");
    }
    return {
      kind: "function",
      body: [
        {
          type: "input_image",
          image_url: `data:${mime};base64,${bytes.toString("base64")}`,
          ...(this.detail && { detail: this.detail }),
        },
      ],
      success: true,
      bounded: true,
    };
  }
}

export interface ViewImageToolConfig {
  /** Default true. */
  viewImage?: boolean;
  /** The `detail` view_image asks for; default none (the API decides). */
  imageDetail?: ImageDetail;
}

export const viewImageToolFactory: ToolFactory<ViewImageToolConfig> = (config) =>
  config.viewImage === false
    ? []
    : [
        {
          spec: VIEW_IMAGE_SPEC,
          handler: new ViewImageHandler(DEFAULT_MAX_IMAGE_BYTES, checkDetail(config.imageDetail)),
          supportsParallel: true,
        },
      ];

function checkDetail(detail: unknown): ImageDetail | undefined {
  if (detail === undefined || detail === "auto" || detail === "low" || detail === "high" || detail === "original")
    return detail;
  throw new TypeError(
    `ToolsConfig.imageDetail must be "auto", "low", "high" or "original", got ${JSON.stringify(detail)}`,
  );
}
