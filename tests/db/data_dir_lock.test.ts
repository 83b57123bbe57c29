/**
 * A PGlite data directory is held by one opener at a time: a second open of
 * the same directory is refused with a `DataDirError` that says why, and
 * opening works again once the first holder closed it.
 */
import { assertMatch, assertRejects } from "../assert.ts";
import { DataDirError, open_database } from "../../db/mod.ts";

Deno.test("a second open of a PGlite data directory is refused until the first closes", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ink-lock-" });
  try {
    const first = await open_database({ data_dir: dir });
    let error: unknown;
    try {
      error = await assertRejects(
        () => open_database({ data_dir: dir }),
        DataDirError,
      );
      // The holder still works.
      await first.ping();
    } finally {
      await first.close();
    }
    assertMatch(
      (error as Error).message,
      /^DATA_DIR \S+ cannot be used: another process has it open \(a running service, or the operator CLI\); stop that process first/,
    );
    const second = await open_database({ data_dir: dir });
    await second.ping();
    await second.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
