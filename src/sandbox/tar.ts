import { constants } from "node:fs";
import { lstat, mkdir, open, symlink, unlink } from "node:fs/promises";
import path from "node:path";

/*
 * Tar archives both ways. Unpacks one that came from a container (`docker cp CONTAINER:PATH -`) into a host
 * directory, treating it as hostile (DESIGN section 16, "Remote engines"): every name must stay
 * inside the directory (no absolute name, no `..`); nothing on the host is followed through a
 * symlink (a link or file where the archive has a directory is replaced, a final link is
 * replaced, never written through); symlinks are made last, so none made here redirects a later
 * entry; only regular files, directories and symlinks are made (devices, FIFOs and sockets are
 * skipped and counted); permission bits only (no set-id bits, no owner). Hard links get a copy
 * of their target's contents.
 */

const BLOCK = 512;

export interface UntarResult {
  /** Host paths of the regular files written. */
  files: string[];
  /** Entries that were not made: devices, FIFOs, sockets. */
  skipped: string[];
}

interface Header {
  name: string;
  mode: number;
  size: number;
  type: string;
  linkname: string;
}

const cString = (buf: Buffer, start: number, length: number): string => {
  const field = buf.subarray(start, start + length);
  const end = field.indexOf(0);
  return field.subarray(0, end < 0 ? field.length : end).toString("utf8");
};

/** An octal field, or base-256 when its top bit is set (large sizes). */
function numeric(buf: Buffer, start: number, length: number): number {
  const field = buf.subarray(start, start + length);
  if ((field[0] ?? 0) & 0x80) {
    let n = (field[0] ?? 0) & 0x7f;
    for (let i = 1; i < field.length; i++) n = n * 256 + (field[i] ?? 0);
    return n;
  }
  const text = cString(buf, start, length).trim();
  return text === "" ? 0 : parseInt(text, 8);
}

/** `LEN key=value\n` records of a PAX extended header. */
function paxRecords(data: Buffer): Map<string, string> {
  const out = new Map<string, string>();
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(32, at);
    if (space < 0) break;
    const len = Number(data.subarray(at, space).toString("ascii"));
    if (!Number.isInteger(len) || len <= 0) break;
    const record = data.subarray(space + 1, at + len - 1).toString("utf8");
    const eq = record.indexOf("=");
    if (eq > 0) out.set(record.slice(0, eq), record.slice(eq + 1));
    at += len;
  }
  return out;
}

/** The archive's entries, with PAX and GNU long names applied. */
function* entries(archive: Buffer): Generator<Header & { data: Buffer }> {
  let at = 0;
  let pax = new Map<string, string>();
  let longName: string | undefined;
  let longLink: string | undefined;
  while (at + BLOCK <= archive.length) {
    const h = archive.subarray(at, at + BLOCK);
    if (h.every((b) => b === 0)) return;
    const size = numeric(h, 124, 12);
    const type = String.fromCharCode(h[156] ?? 0);
    const data = archive.subarray(at + BLOCK, at + BLOCK + size);
    if (data.length < size) throw new Error("the archive is truncated");
    at += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    if (type === "x") {
      pax = paxRecords(data);
      continue;
    }
    if (type === "g") continue;
    if (type === "L" || type === "K") {
      const value = cString(data, 0, data.length);
      if (type === "L") longName = value;
      else longLink = value;
      continue;
    }
    const prefix = cString(h, 345, 155);
    const plain = cString(h, 0, 100);
    const name = pax.get("path") ?? longName ?? (prefix !== "" ? `${prefix}/${plain}` : plain);
    const linkname = pax.get("linkpath") ?? longLink ?? cString(h, 157, 100);
    yield { name, mode: numeric(h, 100, 8) & 0o777, size, type, linkname, data };
    pax = new Map();
    longName = longLink = undefined;
  }
  throw new Error("the archive ends without its end-of-archive blocks");
}

/** `name` as a relative path inside the destination; throws for one that would leave it. */
function safeName(name: string): string {
  const parts = name.split("/").filter((p) => p !== "" && p !== ".");
  if (name.startsWith("/") || parts.includes(".."))
    throw new Error(`the container's archive names a path outside the destination: ${JSON.stringify(name)}`);
  return parts.join(path.sep);
}

/** Makes every directory of `rel` under `dest` a real directory, replacing whatever else is there. */
async function ensureDirs(dest: string, rel: string): Promise<void> {
  let current = dest;
  for (const part of rel === "" ? [] : rel.split(path.sep)) {
    current = path.join(current, part);
    const st = await lstat(current).catch(() => undefined);
    if (st?.isDirectory()) continue;
    if (st !== undefined) await unlink(current);
    await mkdir(current);
  }
}

/** A regular file at `target`, never through a link there (a link or file in the way is replaced). */
async function writeFileAt(target: string, data: Buffer, mode: number): Promise<void> {
  const st = await lstat(target).catch(() => undefined);
  if (st?.isDirectory()) throw new Error(`${target} is a directory on the host; the container has a file there`);
  if (st !== undefined && !st.isFile()) await unlink(target);
  const fh = await open(
    target,
    constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
    mode,
  );
  try {
    await fh.writeFile(data);
    await fh.chmod(mode);
  } finally {
    await fh.close();
  }
}

/** Unpacks `archive` into the existing directory `dest`, under its relative directory `under` (see above). */
export async function untar(archive: Buffer, dest: string, under = ""): Promise<UntarResult> {
  const result: UntarResult = { files: [], skipped: [] };
  const links: Array<{ rel: string; target: string }> = [];
  const contents = new Map<string, Buffer>();
  for (const entry of entries(archive)) {
    const rel = path.join(under, safeName(entry.name));
    const target = path.join(dest, rel);
    switch (entry.type) {
      case "5":
        await ensureDirs(dest, rel);
        break;
      case "0":
      case "\0":
      case "7":
      case "1": {
        const data = entry.type === "1" ? contents.get(path.join(under, safeName(entry.linkname))) : entry.data;
        if (data === undefined) {
          result.skipped.push(rel);
          break;
        }
        await ensureDirs(dest, path.dirname(rel) === "." ? "" : path.dirname(rel));
        await writeFileAt(target, data, entry.mode);
        contents.set(rel, data);
        result.files.push(target);
        break;
      }
      case "2":
        links.push({ rel, target: entry.linkname });
        break;
      default:
        result.skipped.push(rel);
    }
  }
  for (const link of links) {
    await ensureDirs(dest, path.dirname(link.rel) === "." ? "" : path.dirname(link.rel));
    const at = path.join(dest, link.rel);
    const st = await lstat(at).catch(() => undefined);
    if (st?.isDirectory()) throw new Error(`${at} is a directory on the host; the container has a symlink there`);
    if (st !== undefined) await unlink(at);
    await symlink(link.target, at);
  }
  return result;
}

/**
 * A ustar archive of a few small entries (names under 100 bytes): regular files by default,
 * or of `type` ("5" directory, "2" symlink to `linkname`, ...), for what the host puts into a container.
 */
export function tarOf(
  files: ReadonlyArray<{ name: string; data?: Buffer | string; mode?: number; type?: string; linkname?: string }>,
): Buffer {
  const blocks: Buffer[] = [];
  for (const file of files) {
    const data = typeof file.data === "string" ? Buffer.from(file.data) : (file.data ?? Buffer.alloc(0));
    if (Buffer.byteLength(file.name) >= 100) throw new Error(`tar name too long: ${file.name}`);
    const h = Buffer.alloc(BLOCK);
    const field = (value: string, start: number, length: number): void => {
      h.write(value.slice(0, length), start, "utf8");
    };
    const octal = (n: number, length: number): string => n.toString(8).padStart(length - 1, "0");
    field(file.name, 0, 100);
    field(octal(file.mode ?? 0o644, 8), 100, 8);
    field(octal(0, 8), 108, 8);
    field(octal(0, 8), 116, 8);
    field(octal(data.length, 12), 124, 12);
    field(octal(Math.floor(Date.now() / 1000), 12), 136, 12);
    h.fill(32, 148, 156); // the checksum field counts as spaces while summed
    field(file.type ?? "0", 156, 1);
    field(file.linkname ?? "", 157, 100);
    field("ustar\u000000", 257, 8);
    let sum = 0;
    for (const b of h) sum += b;
    field(`${octal(sum, 7)}\u0000`, 148, 8);
    blocks.push(h, data, Buffer.alloc((BLOCK - (data.length % BLOCK)) % BLOCK));
  }
  blocks.push(Buffer.alloc(2 * BLOCK));
  return Buffer.concat(blocks);
}
