/**
 * `MAX_CONNECTIONS`: read from the environment, and its default and
 * ceiling derived from the process's open-files limit
 * (server/connection_limit.ts).
 */
import { assertEquals, assertMatch, assertThrows } from "../assert.ts";
import { ConfigError, load_config } from "../../server/config.ts";
import {
  connection_cap,
  open_files_limit,
  parse_open_files_limit,
} from "../../server/connection_limit.ts";

const LIMITS =
  `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            1024                 524288               files
Max locked memory         8388608              8388608              bytes
`;

Deno.test("the soft open-files limit is read from /proc/self/limits", () => {
  assertEquals(parse_open_files_limit(LIMITS), 1024);
  assertEquals(
    parse_open_files_limit(LIMITS.replace("1024  ", "unlimited")),
    Infinity,
  );
  assertEquals(parse_open_files_limit("Max processes 10 10"), undefined);
  // This process's own, as the kernel reports it.
  const own = Deno.readTextFileSync("/proc/self/limits");
  assertEquals(open_files_limit(), parse_open_files_limit(own));
});

Deno.test("the default cap leaves a quarter of the descriptors, at least 256, to the rest of the process", () => {
  const cap = (open_files: number | undefined, configured?: number) =>
    connection_cap(configured, open_files);
  assertEquals(cap(512), { max_connections: 256, lowered: false });
  assertEquals(cap(1024), { max_connections: 768, lowered: false });
  assertEquals(cap(4096), { max_connections: 3072, lowered: false });
  // At most 10,000 by default; a tiny limit still allows a few.
  assertEquals(cap(65536).max_connections, 10_000);
  assertEquals(cap(Infinity).max_connections, 10_000);
  assertEquals(cap(200).max_connections, 16);
  // Unknown limit: 1024 assumed.
  assertEquals(cap(undefined).max_connections, 768);
  // A configured cap is used up to what the limit leaves, and lowered past it.
  assertEquals(cap(65536, 20_000), { max_connections: 20_000, lowered: false });
  assertEquals(cap(1024, 100), { max_connections: 100, lowered: false });
  assertEquals(cap(512, 1_000), { max_connections: 256, lowered: true });
});

Deno.test("MAX_CONNECTIONS: unset by default, a whole number of at least 1", () => {
  assertEquals(load_config({}).max_connections, undefined);
  assertEquals(load_config({ MAX_CONNECTIONS: "300" }).max_connections, 300);
  for (const value of ["0", "many", "-5"]) {
    const error = assertThrows(
      () => load_config({ MAX_CONNECTIONS: value }),
      ConfigError,
    );
    assertMatch((error as Error).message, /MAX_CONNECTIONS must be/);
  }
});
