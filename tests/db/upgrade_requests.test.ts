/**
 * The upgrade_requests repository on PGlite and PostgreSQL: one open
 * request per account, newest-first listing with status filters, counts
 * for the repeat limit, closing with who, when and the resulting plan, and
 * removal with the account.
 */
import { assert, assertEquals, assertStrictEquals } from "../assert.ts";
import {
  close_upgrade_requests,
  count_upgrade_requests_since,
  create_account,
  create_upgrade_request,
  get_latest_upgrade_request,
  get_open_upgrade_request,
  list_upgrade_requests,
  schema,
} from "../../db/mod.ts";
import { open_test_database } from "../helpers/test_database.ts";
import { eq } from "drizzle-orm";

const T0 = new Date("2026-11-20T10:00:00Z");
const hours = (n: number) => new Date(T0.getTime() + n * 3_600_000);

Deno.test("upgrade requests in the database", async (t) => {
  const { database, close } = await open_test_database();
  try {
    const ada = await create_account(database, {
      email: "ada@example.com",
      plan: "starter",
    });
    const bob = await create_account(database, {
      email: "bob@example.com",
      plan: "pro",
    });

    await t.step("created open, with the account's e-mail", async () => {
      const created = await create_upgrade_request(database, {
        account_id: ada.id,
        current_plan: "starter",
        requested_plan: "pro",
        message: "Soon 500 a month",
        now: T0,
      });
      assertStrictEquals(created.status, "created");
      const request = created.request;
      assertEquals(request.account_email, "ada@example.com");
      assertEquals(request.current_plan, "starter");
      assertEquals(request.requested_plan, "pro");
      assertEquals(request.message, "Soon 500 a month");
      assertEquals(request.status, "open");
      assertEquals(request.created_at.getTime(), T0.getTime());
      assertEquals(request.closed_at, null);
      assertEquals(request.closed_by, null);
      assertEquals(request.resulting_plan, null);
      assertEquals(await get_open_upgrade_request(database, ada.id), request);
    });

    await t.step(
      "a second open request is not recorded: the first is pending",
      async () => {
        const again = await create_upgrade_request(database, {
          account_id: ada.id,
          current_plan: "starter",
          requested_plan: "team",
          now: hours(1),
        });
        assertStrictEquals(again.status, "pending");
        assertEquals(again.request.requested_plan, "pro");
        // Concurrent asks record one request.
        const racing = await Promise.all(
          [1, 2, 3].map(() =>
            create_upgrade_request(database, {
              account_id: ada.id,
              current_plan: "starter",
              requested_plan: "team",
              now: hours(1),
            })
          ),
        );
        assert(racing.every((result) => result.status === "pending"));
        assertEquals(
          (await list_upgrade_requests(database)).length,
          1,
        );
      },
    );

    await t.step(
      "closing records who, when and the resulting plan; only open ones",
      async () => {
        const closed = await close_upgrade_requests(database, {
          account_id: ada.id,
          closed_by: "admin_cli",
          resulting_plan: "pro",
          now: hours(2),
        });
        assertEquals(closed.length, 1);
        assertEquals(closed[0].status, "closed");
        assertEquals(closed[0].closed_by, "admin_cli");
        assertEquals(closed[0].resulting_plan, "pro");
        assertEquals(closed[0].closed_at?.getTime(), hours(2).getTime());
        assertStrictEquals(
          await get_open_upgrade_request(database, ada.id),
          undefined,
        );
        const none = await close_upgrade_requests(database, {
          account_id: ada.id,
          closed_by: "admin_api",
          resulting_plan: "team",
          now: hours(3),
        });
        assertEquals(none, []);
        assertEquals(
          (await get_latest_upgrade_request(database, ada.id))
            ?.closed_by,
          "admin_cli",
        );
      },
    );

    await t.step(
      "after closing, a new request can be made; latest is the newest",
      async () => {
        const next = await create_upgrade_request(database, {
          account_id: ada.id,
          current_plan: "pro",
          requested_plan: "team",
          now: hours(4),
        });
        assertStrictEquals(next.status, "created");
        assertEquals(
          (await get_latest_upgrade_request(database, ada.id))?.id,
          next.request.id,
        );
        await create_upgrade_request(database, {
          account_id: bob.id,
          current_plan: "pro",
          requested_plan: "team",
          now: hours(5),
        });
      },
    );

    await t.step(
      "listing: newest first, filtered by status, limited",
      async () => {
        const all = await list_upgrade_requests(database);
        assertEquals(all.map((r) => [r.account_email, r.status]), [
          ["bob@example.com", "open"],
          ["ada@example.com", "open"],
          ["ada@example.com", "closed"],
        ]);
        assertEquals(
          (await list_upgrade_requests(database, { status: "closed" })).length,
          1,
        );
        assertEquals(
          (await list_upgrade_requests(database, { status: "open" })).length,
          2,
        );
        assertEquals(
          (await list_upgrade_requests(database, { limit: 1 }))[0]
            .account_email,
          "bob@example.com",
        );
      },
    );

    await t.step("counts since a time, with the oldest", async () => {
      assertEquals(await count_upgrade_requests_since(database, ada.id, T0), {
        count: 2,
        oldest: T0,
      });
      assertEquals(
        await count_upgrade_requests_since(database, ada.id, hours(3)),
        { count: 1, oldest: hours(4) },
      );
      assertEquals(
        await count_upgrade_requests_since(database, ada.id, hours(10)),
        { count: 0, oldest: null },
      );
      assertEquals(
        await count_upgrade_requests_since(database, "not-a-uuid", T0),
        { count: 0, oldest: null },
      );
    });

    await t.step(
      "malformed ids read as nothing; rows go with the account",
      async () => {
        assertStrictEquals(
          await get_latest_upgrade_request(database, "nope"),
          undefined,
        );
        assertEquals(
          await close_upgrade_requests(database, {
            account_id: "nope",
            closed_by: "admin_api",
            resulting_plan: "pro",
            now: T0,
          }),
          [],
        );
        await database.db.delete(schema.accounts).where(
          eq(schema.accounts.id, ada.id),
        );
        assertEquals(
          (await list_upgrade_requests(database)).map((r) => r.account_email),
          ["bob@example.com"],
        );
      },
    );
  } finally {
    await close();
  }
});
