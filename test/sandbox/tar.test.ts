/**
 * Unpacking a container's archive on the host (src/sandbox/tar.ts): the archive is hostile
 * input. Names that leave the destination are refused, nothing is written through a symlink
 * (neither one the archive made nor one already on the host), and only files, directories and
 * symlinks are made.
 */
import { lstat, mkdir, readFile, readlink, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { tarOf, untar } from "../../src/sandbox/tar.js";
import { Scratch } from "./helpers.js";

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

it("unpacks files, directories and links, with permission bits only", async () => {
  const dest = await scratch.inTmp("untar-plain");
  const archive = tarOf([
    { name: "./", type: "5", mode: 0o755 },
    { name: "./src/", type: "5", mode: 0o755 },
    { name: "./src/a.txt", data: "alpha\n", mode: 0o4755 },
    { name: "./src/same.txt", type: "1", linkname: "./src/a.txt" },
    { name: "./link", type: "2", linkname: "src/a.txt" },
    { name: "./dev-null", type: "3" },
    { name: "./fifo", type: "6" },
  ]);
  const result = await untar(archive, dest);
  expect(result.files.sort()).toEqual([path.join(dest, "src", "a.txt"), path.join(dest, "src", "same.txt")]);
  expect(result.skipped.sort()).toEqual(["dev-null", "fifo"]);
  expect(await readFile(path.join(dest, "src", "same.txt"), "utf8")).toBe("alpha\n");
  expect((await lstat(path.join(dest, "src", "a.txt"))).mode & 0o7777).toBe(0o755);
  expect(await readlink(path.join(dest, "link"))).toBe("src/a.txt");
});

it.each([
  ["a parent reference", "../escaped.txt"],
  ["a deeper parent reference", "src/../../escaped.txt"],
  ["an absolute name", "/tmp/escaped.txt"],
])("refuses %s", async (_what, name) => {
  const dest = await scratch.inTmp("untar-escape");
  await expect(untar(tarOf([{ name, data: "x" }]), dest)).rejects.toThrow("outside the destination");
});

it("never writes through a symlink: one the archive makes is made last, one on the host is replaced", async () => {
  const outside = await scratch.inTmp("untar-outside");
  const dest = await scratch.inTmp("untar-links");
  // The archive links `out` to a host directory, then writes into `out/`.
  await untar(
    tarOf([
      { name: "out", type: "2", linkname: outside },
      { name: "out/planted.txt", data: "planted" },
    ]),
    dest,
  ).catch(() => undefined);
  await expect(lstat(path.join(outside, "planted.txt"))).rejects.toThrow();
  // A link already on the host where the archive has a directory, and where it has a file.
  const dest2 = await scratch.inTmp("untar-host-links");
  await symlink(outside, path.join(dest2, "dir"));
  await writeFile(path.join(outside, "victim.txt"), "safe\n");
  await symlink(path.join(outside, "victim.txt"), path.join(dest2, "file.txt"));
  await untar(
    tarOf([
      { name: "dir/inside.txt", data: "inside" },
      { name: "file.txt", data: "replaced" },
    ]),
    dest2,
  );
  await expect(lstat(path.join(outside, "inside.txt"))).rejects.toThrow();
  expect(await readFile(path.join(outside, "victim.txt"), "utf8")).toBe("safe\n");
  expect((await lstat(path.join(dest2, "dir"))).isDirectory()).toBe(true);
  expect(await readFile(path.join(dest2, "file.txt"), "utf8")).toBe("replaced");
  expect((await lstat(path.join(dest2, "file.txt"))).isSymbolicLink()).toBe(false);
});

it("refuses a truncated archive", async () => {
  const dest = await scratch.inTmp("untar-truncated");
  await mkdir(dest, { recursive: true });
  const whole = tarOf([{ name: "a.txt", data: "x".repeat(2000) }]);
  await expect(untar(whole.subarray(0, 1024), dest)).rejects.toThrow("truncated");
});
