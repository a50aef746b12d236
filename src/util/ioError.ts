import { errorMessage } from "./errorText.js";

/** strerror(3) text and Linux errno of the codes file tools meet. */
const OS_ERRORS: Record<string, [text: string, errno: number]> = {
  EPERM: ["Operation not permitted", 1],
  ENOENT: ["No such file or directory", 2],
  EIO: ["Input/output error", 5],
  EACCES: ["Permission denied", 13],
  EBUSY: ["Device or resource busy", 16],
  EEXIST: ["File exists", 17],
  EXDEV: ["Invalid cross-device link", 18],
  ENOTDIR: ["Not a directory", 20],
  EISDIR: ["Is a directory", 21],
  EINVAL: ["Invalid argument", 22],
  EMFILE: ["Too many open files", 24],
  EFBIG: ["File too large", 27],
  ENOSPC: ["No space left on device", 28],
  EROFS: ["Read-only file system", 30],
  ENAMETOOLONG: ["File name too long", 36],
  ENOTEMPTY: ["Directory not empty", 39],
  ELOOP: ["Too many levels of symbolic links", 40],
};

/**
 * An fs error as Rust's `io::Error` displays it (`No such file or directory (os error 2)`),
 * the form models trained on Codex read; other errors keep their message.
 */
export function ioErrorText(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const known = typeof code === "string" && Object.hasOwn(OS_ERRORS, code) ? OS_ERRORS[code] : undefined;
  return known ? `${known[0]} (os error ${known[1]})` : errorMessage(err);
}
