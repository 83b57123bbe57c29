import assert from "./assert.ts";
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
} from "../db/mod.ts";
import { open_test_database } from "./helpers/test_database.ts";

Deno.test("accounts and sessions", async (t) => {
  const { database, close } = await open_test_database();
  try {
    await t.step("create normalises email and applies defaults", async () => {
      const account = await create_account(database, {
        email: "  Alice@Example.COM ",
        name: "Alice",
        plan: "pro",
      });
      assert.equal(account.email, "alice@example.com");
      assert.equal(account.name, "Alice");
      assert.equal(account.plan, "pro");
      assert.equal(account.subscription_status, "active");
      assert.ok(account.created_at instanceof Date);
      assert.ok(!("password_hash" in account));
      assert.deepEqual(await get_account(database, account.id), account);
    });

    await t.step(
      "duplicate email (any case) throws DuplicateEmailError",
      async () => {
        await assert.rejects(
          create_account(database, {
            email: "ALICE@example.com",
            plan: "team",
          }),
          (error: unknown) =>
            error instanceof DuplicateEmailError &&
            error.email === "alice@example.com",
        );
      },
    );

    await t.step(
      "get_account: missing or malformed id is undefined",
      async () => {
        assert.equal(
          await get_account(database, crypto.randomUUID()),
          undefined,
        );
        for (const id of ["", "nope", "1234", "'; drop table accounts; --"]) {
          assert.equal(await get_account(database, id), undefined);
        }
        assert.equal(
          await update_account(database, "nope", { plan: "team" }),
          undefined,
        );
      },
    );

    await t.step("find by email, update, password hash", async () => {
      const found = await find_account_by_email(database, "ALICE@EXAMPLE.com");
      assert.ok(found);
      assert.equal(
        await find_account_by_email(database, "bob@example.com"),
        undefined,
      );
      assert.equal(await get_password_hash(database, found.id), null);

      const updated = await update_account(database, found.id, {
        plan: "team",
        subscription_status: "inactive",
        name: null,
        password_hash: "scrypt$abc",
      });
      assert.ok(updated);
      assert.equal(updated.plan, "team");
      assert.equal(updated.subscription_status, "inactive");
      assert.equal(updated.name, null);
      assert.ok(updated.updated_at >= found.updated_at);
      assert.equal(await get_password_hash(database, found.id), "scrypt$abc");
      assert.equal(
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
      assert.match(session.token, /^[A-Za-z0-9_-]{43}$/);
      assert.match(session.csrf_token, /^[A-Za-z0-9_-]{43}$/);
      assert.notEqual(session.token, session.csrf_token);
      assert.equal(session.expires_at.getTime(), now.getTime() + 3600_000);

      const live = await get_session(database, session.token, {
        now: new Date(now.getTime() + 1000),
      });
      assert.ok(live);
      assert.equal(live.account.id, account.id);
      assert.equal(live.account.email, "session@example.com");
      assert.equal(live.csrf_token, session.csrf_token);
      assert.equal(live.expires_at.getTime(), session.expires_at.getTime());

      assert.equal(
        await get_session(database, session.token, { now: session.expires_at }),
        undefined,
        "expired at expires_at",
      );
      assert.equal(
        await get_session(database, "not-a-token", { now }),
        undefined,
      );

      assert.equal(await delete_session(database, session.token), true);
      assert.equal(await delete_session(database, session.token), false);
      assert.equal(
        await get_session(database, session.token, { now }),
        undefined,
      );

      const old = await create_session(database, {
        account_id: account.id,
        ttl_seconds: 60,
        now,
      });
      assert.equal(
        await prune_sessions(database, new Date(now.getTime() + 120_000)),
        1,
      );
      assert.equal(await get_session(database, old.token, { now }), undefined);
    });
  } finally {
    await close();
  }
});
