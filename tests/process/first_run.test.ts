/**
 * What `deno task start` tells a new user on its own, as operators run it
 * (`main.ts` as a process, no SMTP_URL): where to open the dashboard, and
 * that mail goes to the log, on lines that start with the mark the pages
 * name.
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { start_service_process } from "../helpers/service_process.ts";
import { open_test_database } from "../helpers/test_database.ts";
import { LOGGED_LINK_MARK } from "../../contract/mod.ts";

Deno.test("start-up without SMTP_URL names the dashboard's address and where mailed links are", async () => {
  const test_database = await open_test_database();
  const data_dir = await Deno.makeTempDir({ prefix: "invoice-first-run-" });
  try {
    const service = await start_service_process(
      test_database.database_url
        ? { DATABASE_URL: test_database.database_url }
        : { DATA_DIR: data_dir },
    );
    try {
      // The lines after "listening on" arrive a moment later.
      for (
        let wait = 0;
        wait < 100 && !/Mail:/.test(service.stderr());
        wait++
      ) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const stderr = service.stderr();
      assert(
        stderr.includes(`Dashboard: open ${service.url} to sign up`),
        stderr,
      );
      assertMatch(stderr, /Mail: SMTP_URL is not set/);
      assert(stderr.includes(`lines starting with "${LOGGED_LINK_MARK}"`));
      const home = await fetch(`${service.url}/`, { redirect: "manual" });
      assertEquals(home.headers.get("location"), "/signin");
      await home.body?.cancel();
    } finally {
      service.child.kill("SIGTERM");
      await service.status;
    }
  } finally {
    await Deno.remove(data_dir, { recursive: true });
    await test_database.close();
  }
});
