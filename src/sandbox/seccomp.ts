import os from "node:os";

/*
 * The seccomp filter every sandboxed command runs under (bubblewrap's `--seccomp FD`), a
 * classic-BPF program built here, at start, for the machine's architecture. It refuses with
 * EPERM:
 *   - socket(AF_UNIX): a host Unix socket (Docker, ssh-agent, D-Bus) is a door out of every
 *     mount rule, and an abstract one has no path to hide (unless `unix: "allow"`);
 *   - socket() of any family but AF_UNIX and AF_NETLINK when `inet: "deny"` (AF_INET, AF_INET6,
 *     and AF_VSOCK, which no network namespace confines);
 *   - io_uring, which creates sockets without the socket() system call;
 *   - every system call of another ABI (x32 on x86_64, 32-bit code on either): its numbers are
 *     not the ones checked here.
 * socketpair() stays allowed: a connected pair reaches nothing outside.
 */

export interface SeccompOptions {
  /** socket(AF_UNIX): refused unless "allow" (a Unix socket was named in `allow_unix_sockets`, or a proxy is bound). */
  unix: "deny" | "allow";
  /** socket() of any family but AF_UNIX and AF_NETLINK: refused unless "allow" (network access). */
  inet: "deny" | "allow";
}

interface Arch {
  /** AUDIT_ARCH_* of the native ABI. */
  audit: number;
  socket: number;
  ioUring: readonly number[];
  /** Syscall numbers at or above this belong to another ABI on the same audit arch (x32). */
  foreignFrom?: number;
}

/** The architectures the filter knows; elsewhere a sandboxed command is refused, never run unfiltered. */
const SECCOMP_ARCHES: Readonly<Record<string, Arch>> = {
  x64: { audit: 0xc000003e, socket: 41, ioUring: [425, 426, 427], foreignFrom: 0x40000000 },
  arm64: { audit: 0xc00000b7, socket: 198, ioUring: [425, 426, 427] },
};

const AF_UNIX = 1;
const AF_NETLINK = 16;
const EPERM = 1;

// BPF opcodes (linux/bpf_common.h, linux/seccomp.h).
const BPF_LD_W_ABS = 0x20;
const BPF_JEQ_K = 0x15;
const BPF_JGE_K = 0x35;
const BPF_RET_K = 0x06;
const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO = 0x00050000;
// struct seccomp_data: nr at 0, arch at 4, args[0] at 16 (its low 32 bits first: little-endian).
const OFF_NR = 0;
const OFF_ARCH = 4;
const OFF_ARG0 = 16;

interface Insn {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

/** Why sandboxed commands cannot run on this machine, or undefined when the filter can be built. */
export function seccompProblem(arch: string = process.arch): string | undefined {
  if (SECCOMP_ARCHES[arch] === undefined)
    return `sandbox unavailable: no seccomp filter for the ${arch} architecture (only x86_64 and aarch64); use danger-full-access`;
  if (os.endianness() !== "LE")
    return "sandbox unavailable: the seccomp filter is built for little-endian machines only";
  return undefined;
}

/**
 * The filter as `struct sock_filter[]` bytes (8 per instruction, little-endian). Throws on an
 * architecture it does not know (see seccompProblem).
 */
export function seccompProgram(opts: SeccompOptions, arch: string = process.arch): Buffer {
  const a = SECCOMP_ARCHES[arch];
  if (a === undefined) throw new Error(seccompProblem(arch));
  // Instructions are built with symbolic targets ("allow", "deny") resolved to relative jumps.
  type Target = "next" | "allow" | "deny";
  const body: Array<{ code: number; k: number; jt?: Target; jf?: Target }> = [];
  const jumpIf = (code: number, k: number, jt: Target, jf: Target = "next"): void => {
    body.push({ code, k, jt, jf });
  };
  body.push({ code: BPF_LD_W_ABS, k: OFF_ARCH });
  jumpIf(BPF_JEQ_K, a.audit, "next", "deny");
  body.push({ code: BPF_LD_W_ABS, k: OFF_NR });
  if (a.foreignFrom !== undefined) jumpIf(BPF_JGE_K, a.foreignFrom, "deny");
  for (const nr of a.ioUring) jumpIf(BPF_JEQ_K, nr, "deny");
  jumpIf(BPF_JEQ_K, a.socket, "next", "allow");
  body.push({ code: BPF_LD_W_ABS, k: OFF_ARG0 });
  jumpIf(BPF_JEQ_K, AF_UNIX, opts.unix === "allow" ? "allow" : "deny");
  if (opts.inet === "deny") jumpIf(BPF_JEQ_K, AF_NETLINK, "allow", "deny");
  // Falls through to "allow", then "deny".
  const allowAt = body.length;
  const denyAt = allowAt + 1;
  const rel = (from: number, t: Target | undefined): number => {
    if (t === undefined || t === "next") return 0;
    const off = (t === "allow" ? allowAt : denyAt) - from - 1;
    if (off > 255) throw new Error("seccomp program too long for a jump");
    return off;
  };
  const insns: Insn[] = body.map((ins, i) => ({ code: ins.code, jt: rel(i, ins.jt), jf: rel(i, ins.jf), k: ins.k }));
  insns.push({ code: BPF_RET_K, jt: 0, jf: 0, k: SECCOMP_RET_ALLOW });
  insns.push({ code: BPF_RET_K, jt: 0, jf: 0, k: SECCOMP_RET_ERRNO | EPERM });
  const out = Buffer.alloc(insns.length * 8);
  insns.forEach((ins, i) => {
    out.writeUInt16LE(ins.code, i * 8);
    out.writeUInt8(ins.jt, i * 8 + 2);
    out.writeUInt8(ins.jf, i * 8 + 3);
    out.writeUInt32LE(ins.k >>> 0, i * 8 + 4);
  });
  return out;
}
