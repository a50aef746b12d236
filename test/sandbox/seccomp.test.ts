/**
 * The seccomp program (src/sandbox/seccomp.ts) decoded and run by a small classic-BPF
 * interpreter written here from the kernel's definitions: what each system call gets, on both
 * architectures, for each option. (Real commands under it: boundary.test.ts.)
 */
import { describe, expect, it } from "vitest";
import { seccompProblem, seccompProgram, type SeccompOptions } from "../../src/sandbox/seccomp.js";

const ALLOW = 0x7fff0000;
const EPERM = 0x00050001;
const AUDIT = { x64: 0xc000003e, arm64: 0xc00000b7, i386: 0x40000003, arm: 0x40000028 } as const;
const NR = {
  x64: { socket: 41, socketpair: 53, connect: 42, read: 0, ioUringSetup: 425 },
  arm64: { socket: 198, socketpair: 199, connect: 203, read: 63, ioUringSetup: 425 },
} as const;
const AF = { UNIX: 1, INET: 2, INET6: 10, NETLINK: 16, PACKET: 17, VSOCK: 40 } as const;

/** Runs the program on `struct seccomp_data` {nr, arch, args[0]}; returns the action. */
function runFilter(program: Buffer, data: { nr: number; arch: number; arg0?: number }): number {
  expect(program.length % 8).toBe(0);
  const count = program.length / 8;
  const load = (off: number): number => {
    if (off === 0) return data.nr >>> 0;
    if (off === 4) return data.arch >>> 0;
    if (off === 16) return (data.arg0 ?? 0) >>> 0;
    throw new Error(`the program loads offset ${off}, which it should not need`);
  };
  let acc = 0;
  for (let pc = 0, steps = 0; pc < count; steps++) {
    if (steps > count) throw new Error("a loop: classic BPF only jumps forward");
    const code = program.readUInt16LE(pc * 8);
    const jt = program.readUInt8(pc * 8 + 2);
    const jf = program.readUInt8(pc * 8 + 3);
    const k = program.readUInt32LE(pc * 8 + 4);
    switch (code) {
      case 0x20: // BPF_LD | BPF_W | BPF_ABS
        acc = load(k);
        pc++;
        break;
      case 0x15: // BPF_JMP | BPF_JEQ | BPF_K
        pc += 1 + (acc === k ? jt : jf);
        break;
      case 0x35: // BPF_JMP | BPF_JGE | BPF_K
        pc += 1 + (acc >= k ? jt : jf);
        break;
      case 0x06: // BPF_RET | BPF_K
        return k;
      default:
        throw new Error(`unexpected opcode 0x${code.toString(16)} at ${pc}`);
    }
  }
  throw new Error("fell off the end of the program");
}

const OPTIONS: SeccompOptions[] = [
  { unix: "deny", inet: "deny" },
  { unix: "deny", inet: "allow" },
  { unix: "allow", inet: "deny" },
  { unix: "allow", inet: "allow" },
];

describe("the seccomp program", () => {
  for (const arch of ["x64", "arm64"] as const) {
    for (const opts of OPTIONS) {
      it(`${arch}, unix ${opts.unix}, inet ${opts.inet}`, () => {
        const program = seccompProgram(opts, arch);
        const nr = NR[arch];
        const call = (n: number, arg0?: number): number =>
          runFilter(program, { nr: n, arch: AUDIT[arch], ...(arg0 !== undefined && { arg0 }) });
        const socket = (family: number): number => call(nr.socket, family);
        expect(socket(AF.UNIX)).toBe(opts.unix === "allow" ? ALLOW : EPERM);
        for (const family of [AF.INET, AF.INET6, AF.PACKET, AF.VSOCK])
          expect(socket(family), `family ${family}`).toBe(opts.inet === "allow" ? ALLOW : EPERM);
        // Netlink (interfaces, routes) is per network namespace: always allowed.
        expect(socket(AF.NETLINK)).toBe(ALLOW);
        // Only the low 32 bits of the int argument count, as in the kernel.
        expect(socket(AF.UNIX + 2 ** 32)).toBe(opts.unix === "allow" ? ALLOW : EPERM);
        // A pair reaches nothing; connect() and the rest are not the filter's business.
        expect(call(nr.socketpair, AF.UNIX)).toBe(ALLOW);
        expect(call(nr.connect, AF.UNIX)).toBe(ALLOW);
        expect(call(nr.read)).toBe(ALLOW);
        // io_uring makes sockets without socket().
        for (const n of [425, 426, 427]) expect(call(n)).toBe(EPERM);
        // Another ABI's numbers mean other calls: refused whole.
        for (const foreign of arch === "x64" ? [AUDIT.i386] : [AUDIT.arm])
          expect(runFilter(program, { nr: nr.read, arch: foreign })).toBe(EPERM);
        if (arch === "x64") expect(call(0x40000000 | nr.socket, AF.UNIX)).toBe(EPERM); // x32
      });
    }
  }

  it("knows no other architecture: sandboxed commands are refused with a reason, never run unfiltered", () => {
    expect(() => seccompProgram({ unix: "deny", inet: "deny" }, "riscv64")).toThrow(
      "sandbox unavailable: no seccomp filter for the riscv64 architecture (only x86_64 and aarch64); use danger-full-access",
    );
    expect(seccompProblem("ia32")).toMatch(/^sandbox unavailable: no seccomp filter for the ia32 architecture/);
    expect(seccompProblem("x64")).toBeUndefined();
    expect(seccompProblem("arm64")).toBeUndefined();
  });
});
