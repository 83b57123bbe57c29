import {
  assert,
  assertEquals,
  assertMatch,
  assertRejects,
  assertStrictEquals,
} from "../assert.ts";
import {
  authenticate_api_key,
  create_account,
  create_api_key,
  type Database,
  get_api_key,
  hash_api_key,
  list_api_keys,
  looks_like_api_key,
  open_database,
  prune_rate_limit_windows,
  revoke_all_api_keys,
  revoke_api_key,
  take_sliding_window,
  update_account,
} from "../../db/mod.ts";
import { query_rows } from "../../db/_util.ts";
import { sql } from "drizzle-orm";
import { open_test_database } from "../helpers/test_database.ts";

const NOW = new Date("2030-06-15T12:34:56.789Z");

async function stored_hashes(database: Database): Promise<string[]> {
  const rows = await query_rows<{ secret_hash: string }>(
    database,
    sql`select secret_hash from api_keys`,
  );
  return rows.map((row) => row.secret_hash);
}

Deno.test("api keys and rate limits", async (t) => {
  const { database, close } = await open_test_database();
  try {
    const account = await create_account(database, {
      email: "keys@example.com",
      name: "Keys",
      plan: "pro",
    });
    const other = await create_account(database, {
      email: "other@example.com",
      plan: "starter",
    });

    await t.step("key format helpers", async () => {
      const key = `ink_live_${"A".repeat(43)}`;
      assert(looks_like_api_key(key));
      assert(!looks_like_api_key(key + "A"));
      assert(!looks_like_api_key(key.slice(0, -1)));
      // Test keys have their own prefix; other modes do not exist.
      assert(looks_like_api_key(`ink_test_${"A".repeat(43)}`));
      assert(!looks_like_api_key(`ink_demo_${"A".repeat(43)}`));
      assert(!looks_like_api_key(`ink_live_${"A".repeat(42)}+`));
      assert(!looks_like_api_key(undefined));
      const hash = await hash_api_key(key);
      assertMatch(hash, /^[0-9a-f]{64}$/);
      assertStrictEquals(await hash_api_key(key), hash);
    });

    let key_one = "";
    let key_one_id = "";
    await t.step(
      "create returns the key once; list never shows it",
      async () => {
        const created = await create_api_key(database, {
          account_id: account.id,
          name: "production",
        });
        assert(looks_like_api_key(created.key));
        assertStrictEquals(created.prefix, created.key.slice(0, 17));
        assert(created.prefix.startsWith("ink_live_"));
        assertStrictEquals(created.name, "production");
        key_one = created.key;
        key_one_id = created.id;

        const listed = await list_api_keys(database, account.id);
        assertStrictEquals(listed.length, 1);
        const [item] = listed;
        assertEquals(Object.keys(item!).sort(), [
          "account_id",
          "created_at",
          "id",
          "last_used_at",
          "mode",
          "name",
          "prefix",
          "revoked_at",
        ]);
        const serialised = JSON.stringify(listed);
        const hash = await hash_api_key(created.key);
        assert(!serialised.includes(created.key));
        assert(!serialised.includes(hash));
        assertEquals(await stored_hashes(database), [hash]);
        assertEquals(await list_api_keys(database, other.id), []);
        assertEquals(await list_api_keys(database, "nope"), []);

        const got = await get_api_key(database, created.id);
        assertStrictEquals(got?.prefix, created.prefix);
        assertStrictEquals(await get_api_key(database, "nope"), undefined);
      },
    );

    await t.step("authenticate ok counts the minute window", async () => {
      const first = await authenticate_api_key(database, {
        key: key_one,
        now: NOW,
      });
      assertStrictEquals(first.status, "ok");
      assert(first.status === "ok");
      assertEquals(first.account, {
        id: account.id,
        email: "keys@example.com",
        name: "Keys",
        plan: "pro",
        subscription_status: "active",
      });
      assertStrictEquals(first.key_id, key_one_id);
      assertStrictEquals(first.rate_allowed, true);
      assertStrictEquals(first.rate.current, 1);
      assertStrictEquals(first.rate.previous, 0);
      assertStrictEquals(
        first.rate.window_start.toISOString(),
        "2030-06-15T12:34:00.000Z",
      );
      const second = await authenticate_api_key(database, {
        key: key_one,
        now: new Date(NOW.getTime() + 1000),
      });
      assert(second.status === "ok");
      assertStrictEquals(second.rate.current, 2);
      const next_minute = await authenticate_api_key(database, {
        key: key_one,
        now: new Date("2030-06-15T12:35:00.000Z"),
      });
      assert(next_minute.status === "ok");
      // The previous minute's two requests still weigh in the sliding window.
      assertStrictEquals(next_minute.rate.current, 1);
      assertStrictEquals(next_minute.rate.previous, 2);
    });

    await t.step("last_used_at is bumped coarsely", async () => {
      const used = (await get_api_key(database, key_one_id))!.last_used_at;
      // First use at NOW; the use one second later did not rewrite it (nor
      // did the one at 12:35:00, 3 s later); only one over a minute later does.
      assertStrictEquals(used?.getTime(), NOW.getTime());
      const later = new Date(NOW.getTime() + 61_000);
      await authenticate_api_key(database, { key: key_one, now: later });
      assertStrictEquals(
        (await get_api_key(database, key_one_id))!.last_used_at?.getTime(),
        later.getTime(),
      );
    });

    await t.step("unknown and malformed keys", async () => {
      const unknown = `ink_live_${"B".repeat(43)}`;
      assertEquals(
        await authenticate_api_key(database, { key: unknown, now: NOW }),
        { status: "unknown" },
      );
      for (const key of ["", "ink_live_", key_one + "x", key_one.slice(1)]) {
        assertEquals(
          await authenticate_api_key(database, { key, now: NOW }),
          { status: "unknown" },
        );
      }
    });

    await t.step("inactive subscription: no rate count", async () => {
      const created = await create_api_key(database, {
        account_id: other.id,
        name: "o",
      });
      await update_account(database, other.id, {
        subscription_status: "inactive",
      });
      const result = await authenticate_api_key(database, {
        key: created.key,
        now: NOW,
      });
      assertStrictEquals(result.status, "inactive");
      assert(result.status === "inactive");
      assertStrictEquals(result.account.id, other.id);
      assertStrictEquals(result.account.subscription_status, "inactive");
      assertStrictEquals(result.key_id, created.id);
      assertStrictEquals(
        (await get_api_key(database, created.id))!.last_used_at,
        null,
      );
      await update_account(database, other.id, {
        subscription_status: "active",
      });
      const ok = await authenticate_api_key(database, {
        key: created.key,
        now: NOW,
      });
      assert(ok.status === "ok");
      assertStrictEquals(
        ok.rate.current,
        1,
        "inactive attempt was not counted",
      );
    });

    await t.step("revoke is idempotent and scoped by account", async () => {
      const created = await create_api_key(database, {
        account_id: account.id,
        name: "to revoke",
      });
      assertStrictEquals(
        await revoke_api_key(database, {
          account_id: other.id,
          key_id: created.id,
        }),
        undefined,
        "another account cannot revoke it",
      );
      assertStrictEquals(
        (await authenticate_api_key(database, { key: created.key, now: NOW }))
          .status,
        "ok",
      );
      const revoked = await revoke_api_key(database, {
        account_id: account.id,
        key_id: created.id,
      });
      assert(revoked?.revoked_at instanceof Date);
      const again = await revoke_api_key(database, { key_id: created.id });
      assertStrictEquals(
        again?.revoked_at?.getTime(),
        revoked.revoked_at.getTime(),
        "first revocation time kept",
      );
      assertStrictEquals(
        await revoke_api_key(database, { key_id: crypto.randomUUID() }),
        undefined,
      );
      assertStrictEquals(
        await revoke_api_key(database, { key_id: "x" }),
        undefined,
      );
      assertEquals(
        await authenticate_api_key(database, { key: created.key, now: NOW }),
        { status: "revoked", account_id: account.id, key_id: created.id },
      );
      // The other key of the account still works.
      assertStrictEquals(
        (await authenticate_api_key(database, { key: key_one, now: NOW }))
          .status,
        "ok",
      );
    });

    await t.step("revoke_all_api_keys", async () => {
      const created = await create_api_key(database, {
        account_id: other.id,
        name: "x",
      });
      assertStrictEquals(await revoke_all_api_keys(database, other.id), 2);
      assertStrictEquals(await revoke_all_api_keys(database, other.id), 0);
      assertStrictEquals(
        (await authenticate_api_key(database, { key: created.key, now: NOW }))
          .status,
        "revoked",
      );
    });

    await t.step(
      "take_sliding_window counts per bucket, refuses without counting, slides, is exact under concurrency",
      async () => {
        const at = new Date("2030-01-01T00:00:07Z");
        const input = {
          bucket: "signin:a@example.com",
          limit: 2,
          now: at,
          window_seconds: 10,
        };
        const first = await take_sliding_window(database, input);
        assertEquals(first, {
          allowed: true,
          window: {
            limit: 2,
            previous: 0,
            current: 1,
            window_start: new Date("2030-01-01T00:00:00Z"),
            window_seconds: 10,
          },
        });
        assertStrictEquals(
          (await take_sliding_window(database, input)).allowed,
          true,
        );
        const refused = await take_sliding_window(database, input);
        assertStrictEquals(refused.allowed, false);
        assertStrictEquals(refused.window.current, 2, "not counted");
        assertStrictEquals(
          (await take_sliding_window(database, {
            ...input,
            bucket: "signin:b",
          }))
            .allowed,
          true,
        );
        // 00:00:12: the previous window's 2 weigh 1.6, so nothing fits; at
        // 00:00:15 they weigh 1 and one does.
        const next = { ...input, now: new Date("2030-01-01T00:00:12Z") };
        assertStrictEquals(
          (await take_sliding_window(database, next)).allowed,
          false,
        );
        const later = await take_sliding_window(database, {
          ...input,
          now: new Date("2030-01-01T00:00:15Z"),
        });
        assertEquals(
          [later.allowed, later.window.previous, later.window.current],
          [true, 2, 1],
        );

        const many = await Promise.all(
          Array.from(
            { length: 50 },
            () =>
              take_sliding_window(database, {
                ...input,
                bucket: "burst",
                limit: 30,
              }),
          ),
        );
        assertStrictEquals(many.filter((take) => take.allowed).length, 30);
        await assertRejects(
          () => take_sliding_window(database, { ...input, window_seconds: 0 }),
          RangeError,
        );

        const pruned = await prune_rate_limit_windows(
          database,
          new Date("2030-01-01T00:00:10Z"),
        );
        assertStrictEquals(pruned, 3); // signin:a, signin:b and burst at 00:00:00
        assertStrictEquals(
          (await take_sliding_window(database, input)).window.current,
          1,
        );
      },
    );
  } finally {
    await close();
  }
});

Deno.test("pglite: a revoked key stays revoked after reopening the data dir", async () => {
  const dir = await Deno.makeTempDir({ prefix: "db_api_keys_" });
  try {
    let key = "";
    let key_id = "";
    let account_id = "";
    {
      const database = await open_database({ data_dir: dir });
      try {
        const account = await create_account(database, {
          email: "persist@example.com",
          plan: "starter",
        });
        account_id = account.id;
        const created = await create_api_key(database, {
          account_id,
          name: "k",
        });
        key = created.key;
        key_id = created.id;
        assert(await revoke_api_key(database, { key_id }));
      } finally {
        await database.close();
      }
    }
    const reopened = await open_database({ data_dir: dir });
    try {
      assertEquals(
        await authenticate_api_key(reopened, { key, now: new Date() }),
        { status: "revoked", account_id, key_id },
      );
    } finally {
      await reopened.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
