/**
 * A small tmpfs mounted for one test, to fill a disk without touching the
 * machine's own: needs root and the right to mount (CI runs as root).
 *
 * @module
 */
import { command_stdout } from "./command.ts";

/** A mounted small file system. */
export interface SmallFileSystem {
  /** Where it is mounted. */
  path: string;
  /** MiB free on it. */
  free_mb(): number;
  /** Writes a file that leaves about `leave_mb` MiB free. */
  fill(leave_mb: number): Promise<void>;
  /** Removes that file. */
  unfill(): Promise<void>;
  /** Unmounts it and removes the mount point. */
  unmount(): Promise<void>;
}

let available: string | undefined | null = null;

/** Why no small file system can be mounted here, or undefined if one can. */
export function small_file_system_unavailable(): string | undefined {
  if (available !== null) return available;
  if (Deno.build.os !== "linux" || Deno.uid?.() !== 0) {
    return available = "needs root on Linux to mount a tmpfs";
  }
  const probe = Deno.makeTempDirSync({ prefix: "ink-mount-probe-" });
  try {
    const mounted = new Deno.Command("mount", {
      args: ["-t", "tmpfs", "-o", "size=1m", "tmpfs", probe],
      stdout: "null",
      stderr: "null",
    }).outputSync().success;
    if (!mounted) return available = "mounting a tmpfs is not permitted here";
    new Deno.Command("umount", { args: [probe] }).outputSync();
    return available = undefined;
  } finally {
    Deno.removeSync(probe, { recursive: true });
  }
}

/** Mounts a tmpfs of `size_mb` MiB on a new temporary directory. */
export async function mount_small_file_system(
  size_mb: number,
): Promise<SmallFileSystem> {
  const path = await Deno.makeTempDir({ prefix: "ink-small-fs-" });
  await command_stdout("mount", [
    "-t",
    "tmpfs",
    "-o",
    `size=${size_mb}m`,
    "tmpfs",
    path,
  ]);
  const filler = `${path}/filler`;
  const { statfsSync } = await import("node:fs");
  const free_mb = () => {
    const stats = statfsSync(path);
    return (Number(stats.bavail) * Number(stats.bsize)) / 2 ** 20;
  };
  return {
    path,
    free_mb,
    async fill(leave_mb) {
      const mb = Math.floor(free_mb() - leave_mb);
      if (mb <= 0) return;
      const file = await Deno.open(filler, { create: true, append: true });
      try {
        const chunk = new Uint8Array(2 ** 20);
        for (let n = 0; n < mb; n++) await file.write(chunk);
      } finally {
        file.close();
      }
    },
    async unfill() {
      await Deno.remove(filler).catch(() => {});
    },
    async unmount() {
      await command_stdout("umount", ["-l", path]);
      await Deno.remove(path, { recursive: true });
    },
  };
}
