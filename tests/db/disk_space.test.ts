/**
 * The free-space watch in front of PGlite, with the free space given by the
 * test: refusal below the minimum with a message for clients, one log line
 * per change, a recheck at most once a second, and a write that failed for
 * want of space taken as a full disk at once.
 */
import { assert, assertEquals, assertMatch, assertThrows } from "../assert.ts";
import { watch_free_space } from "../../db/disk_space.ts";
import {
  DatabaseUnavailableError,
  is_database_unavailable,
  is_disk_full,
  unavailable_public_message,
} from "../../db/errors.ts";

const MIB = 2 ** 20;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("disk space: refused below the minimum, saying why; serving again once space returns", async () => {
  let free = 100 * MIB;
  let reads = 0;
  const lines: string[] = [];
  const watch = watch_free_space("/data", {
    min_free_bytes: 64 * MIB,
    free_bytes: () => (reads++, free),
    log: (line) => lines.push(line),
  });
  watch.check();
  watch.check();
  assertEquals(reads, 1, "read at most once a second");
  free = 10 * MIB;
  watch.check(); // within the second: not read again
  await sleep(1_050);
  const error = assertThrows(() => watch.check(), DatabaseUnavailableError);
  assert(watch.short);
  assert(is_database_unavailable(error));
  assertMatch(
    unavailable_public_message(error) ?? "",
    /out of disk space/,
  );
  assertEquals(lines.length, 1);
  assertMatch(
    lines[0],
    /Database disk nearly full: 10 MiB free in \/data, minimum 64 MiB/,
  );
  free = 80 * MIB;
  await sleep(1_050);
  watch.check();
  assert(!watch.short);
  assertEquals(lines.length, 2);
  assertMatch(lines[1], /Database disk has room again: 80 MiB free/);
});

Deno.test("disk space: a write that failed for want of space refuses at once", () => {
  const watch = watch_free_space("/data", {
    min_free_bytes: 64 * MIB,
    free_bytes: () => 100 * MIB,
    log: () => {},
  });
  watch.check();
  const enospc = Object.assign(
    new Error('could not extend file "base/5/16387": No space left on device'),
    { code: "53100" },
  );
  assert(is_disk_full(enospc));
  assert(is_disk_full(new Error("wrapped", { cause: enospc })));
  assert(!is_disk_full(new Error("syntax error")));
  watch.report_full();
  assertThrows(() => watch.check(), DatabaseUnavailableError);
});
