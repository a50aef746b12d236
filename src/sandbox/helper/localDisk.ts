import fs from "node:fs";

/*
 * Which devices hold a local file system: where a small file already open is read by plain
 * calls in the host (./ops.ts), because such a read costs a few microseconds and a hop to the
 * I/O thread pool costs more (two context switches; 20-30 µs each on a loaded machine). A
 * network or FUSE file system may take seconds to answer, so its files keep the pool.
 */

/** `statfs` f_type of the local file systems (linux/magic.h); anything else is not local. */
const LOCAL_TYPES = new Set([
  0xef53, // ext2, ext3, ext4
  0x01021994, // tmpfs
  0x858458f6, // ramfs
  0x58465342, // xfs
  0x9123683e, // btrfs
  0xf2f52010, // f2fs
  0x2fc12fc1, // zfs
  0xca451a4e, // bcachefs
  0x794c7630, // overlayfs (a container's root)
  0x73717368, // squashfs
  0xe0f5e1e2, // erofs
]);

/** Learned once per device; a device's file system does not change while it is mounted. */
const devices = new Map<number, boolean | Promise<boolean>>();

/**
 * Is `dev` (an open descriptor's `st_dev`) a local file system? Known after the first file
 * of a device: its type is asked once, of the open descriptor itself (`/proc/self/fd/N`, so a
 * path changed since the open cannot answer for it), on the I/O pool. Only on Linux; anywhere
 * else, or without /proc, never.
 */
export function isLocalDisk(dev: number, fd: number): boolean | Promise<boolean> {
  const known = devices.get(dev);
  if (known !== undefined) return known;
  const asked =
    process.platform !== "linux"
      ? Promise.resolve(false)
      : fs.promises.statfs(`/proc/self/fd/${fd}`).then(
          (st) => LOCAL_TYPES.has(st.type),
          () => false,
        );
  const learned = asked.then((local) => {
    devices.set(dev, local);
    return local;
  });
  devices.set(dev, learned);
  return learned;
}
