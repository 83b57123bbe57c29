import {
  assert,
  assertEquals,
  assertMatch,
  assertNotStrictEquals,
  assertRejects,
  assertStrictEquals,
} from "../assert.ts";
import {
  create_account,
  create_session,
  delete_session,
  DuplicateEmailError,
  find_account_by_email,
  get_account,
  get_password_hash,
  get_session,
  prune_sessions,
  update_account,
} from "../../db/mod.ts";
import { open_test_database } from "../helpers/test_database.ts";

Deno.test("accounts and sessions", async (t) => {
  const { database, close } = await open_test_database();
  try {
    await t.step("create normalises email and applies defaults", async () => {
      const account = await create_account(database, {
        email: "  Alice@Example.COM ",
        name: "Alice",
        plan: "pro",
      });
      assertStrictEquals(account.email, "alice@example.com");
      assertStrictEquals(account.name, "Alice");
      assertStrictEquals(account.plan, "pro");
      assertStrictEquals(account.subscription_status, "active");
      assert(account.created_at instanceof Date);
      assert(!("password_hash" in account));
      assertEquals(await get_account(database, account.id), account);
    });

    await t.step(
      "duplicate email (any case) throws DuplicateEmailError",
      async () => {
        const error = await assertRejects(
          () =>
            create_account(database, {
              email: "ALICE@example.com",
              plan: "team",
            }),
          DuplicateEmailError,
        );
        assertStrictEquals(
          (error as DuplicateEmailError).email,
          "alice@example.com",
        );
      },
    );

    await t.step(
      "get_account: missing or malformed id is undefined",
      async () => {
        assertStrictEquals(
          await get_account(database, crypto.randomUUID()),
          undefined,
        );
        for (const id of ["", "nope", "1234", "'; drop table accounts; --"]) {
          assertStrictEquals(await get_account(database, id), undefined);
        }
        assertStrictEquals(
          await update_account(database, "nope", { plan: "team" }),
          undefined,
        );
      },
    );

    await t.step("find by email, update, password hash", async () => {
      const found = await find_account_by_email(database, "ALICE@EXAMPLE.com");
      assert(found);
      assertStrictEquals(
        await find_account_by_email(database, "bob@example.com"),
        undefined,
      );
      assertStrictEquals(await get_password_hash(database, found.id), null);

      const updated = await update_account(database, found.id, {
        plan: "team",
        subscription_status: "inactive",
        name: null,
        password_hash: "scrypt$abc",
      });
      assert(updated);
      assertStrictEquals(updated.plan, "team");
      assertStrictEquals(updated.subscription_status, "inactive");
      assertStrictEquals(updated.name, null);
      assert(updated.updated_at >= found.updated_at);
      assertStrictEquals(
        await get_password_hash(database, found.id),
        "scrypt$abc",
      );
      assertStrictEquals(
        await get_password_hash(database, crypto.randomUUID()),
        undefined,
      );
    });

    await t.step("sessions: create, get, expire, delete", async () => {
      const account = await create_account(database, {
        email: "session@example.com",
        plan: "starter",
        password_hash: "h",
      });
      const now = new Date("2030-01-01T00:00:00Z");
      const session = await create_session(database, {
        account_id: account.id,
        ttl_seconds: 3600,
        now,
      });
      assertMatch(session.token, /^[A-Za-z0-9_-]{43}$/);
      assertMatch(session.csrf_token, /^[A-Za-z0-9_-]{43}$/);
      assertNotStrictEquals(session.token, session.csrf_token);
      assertStrictEquals(
        session.expires_at.getTime(),
        now.getTime() + 3600_000,
      );

      const live = await get_session(database, session.token, {
        now: new Date(now.getTime() + 1000),
      });
      assert(live);
      assertStrictEquals(live.account.id, account.id);
      assertStrictEquals(live.account.email, "session@example.com");
      assertStrictEquals(live.csrf_token, session.csrf_token);
      assertStrictEquals(
        live.expires_at.getTime(),
        session.expires_at.getTime(),
      );

      assertStrictEquals(
        await get_session(database, session.token, { now: session.expires_at }),
        undefined,
        "expired at expires_at",
      );
      assertStrictEquals(
        await get_session(database, "not-a-token", { now }),
        undefined,
      );

      assertStrictEquals(await delete_session(database, session.token), true);
      assertStrictEquals(await delete_session(database, session.token), false);
      assertStrictEquals(
        await get_session(database, session.token, { now }),
        undefined,
      );

      const old = await create_session(database, {
        account_id: account.id,
        ttl_seconds: 60,
        now,
      });
      assertStrictEquals(
        await prune_sessions(database, new Date(now.getTime() + 120_000)),
        1,
      );
      assertStrictEquals(
        await get_session(database, old.token, { now }),
        undefined,
      );
    });
  } finally {
    await close();
  }
});
