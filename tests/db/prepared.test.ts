/**
 * Prepared statements (`Database.run`): parameters arrive as data on both
 * drivers, including quotes and backslashes that PGlite's literal path must
 * escape, and a statement is prepared once and reused.
 */
import { assertEquals, assertRejects } from "../assert.ts";
import { open_test_database } from "../helpers/test_database.ts";
import type { PreparedStatement } from "../../db/mod.ts";

const ECHO: PreparedStatement = {
  name: "ink_test_echo",
  types: ["text", "int"],
  text: "select $1::text as value, $2::int as number",
};

Deno.test("prepared statements: parameters are data, reuse works", async () => {
  const test_database = await open_test_database();
  const { database } = test_database;
  try {
    const tricky = [
      "plain",
      "O'Brien",
      "'); drop table accounts; --",
      "back\\slash \\' and ''",
      "Zażółć — Ελληνικά — Привет",
      "",
    ];
    for (const [index, value] of tricky.entries()) {
      const rows = await database.run<{ value: string; number: number }>(
        ECHO,
        [value, index - 2],
      );
      assertEquals(rows, [{ value, number: index - 2 }]);
    }
    // The injection attempt above stayed a string: the table is still there.
    const accounts = await database.run<{ n: number }>({
      name: "ink_test_count_accounts",
      types: [],
      text: "select count(*)::int as n from accounts",
    }, []);
    assertEquals(accounts, [{ n: 0 }]);
  } finally {
    await test_database.close();
  }
});

Deno.test("prepared statements: a bad statement rejects and can be retried", async () => {
  const test_database = await open_test_database();
  const { database } = test_database;
  try {
    const broken: PreparedStatement = {
      name: "ink_test_broken",
      types: ["int"],
      text: "select $1::int from no_such_table",
    };
    await assertRejects(() => database.run(broken, [1]));
    await assertRejects(() => database.run(broken, [1]));
    await assertRejects(() => database.run(ECHO, ["x", Number.NaN]));
    assertEquals(await database.run(ECHO, ["after", 1]), [{
      value: "after",
      number: 1,
    }]);
  } finally {
    await test_database.close();
  }
});
