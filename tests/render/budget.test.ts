/**
 * What renders cost an account: every render's own time counts against a
 * budget of render-seconds a minute (refused and test renders included;
 * 429 with the true Retry-After when spent), and render timeouts pause a
 * document, an account only when its distinct documents keep timing out,
 * never because a worker was cold.
 */
import { assert, assertEquals, assertMatch, assertRejects } from "../assert.ts";
import {
  ApiError,
  type Invoice,
  InvoiceRequestSchema,
  type Principal,
  type ResponseSink,
} from "../../contract/mod.ts";
import { create_account, get_usage } from "../../db/mod.ts";
import { create_services, type RenderDocument } from "../../server/services.ts";
import { RenderTimeoutError } from "../../server/render_pool.ts";
import { FREE_RENDER_SECONDS } from "../../server/render_budget.ts";
import { full_invoice } from "../fixtures/invoices.ts";
import { open_test_database } from "../helpers/test_database.ts";

const START = new Date("2030-03-14T12:00:00Z").getTime();

function numbered(n: number): Invoice {
  return InvoiceRequestSchema.parse({
    ...full_invoice(),
    invoice_number: `B-${n}`,
  }) as Invoice;
}

/** How the stand-in renderer ends a render, and the time it reports. */
interface Outcome {
  seconds: number;
  end: "pdf" | "page_limit" | "cold_timeout" | "warm_timeout";
}

async function setup() {
  const test_database = await open_test_database();
  const { database } = test_database;
  const clock = { at: START };
  const outcome: Outcome = { seconds: 0.01, end: "pdf" };
  const render_document: RenderDocument = (invoice, options) => {
    options?.on_render_time?.(outcome.seconds);
    switch (outcome.end) {
      case "pdf":
        return Promise.resolve(
          new TextEncoder().encode(`%PDF ${invoice.invoice_number}`),
        );
      case "page_limit":
        return Promise.reject(
          new ApiError("invalid_request", "at least 101 pages"),
        );
      case "cold_timeout":
        return Promise.reject(new RenderTimeoutError(100, false));
      case "warm_timeout":
        return Promise.reject(new RenderTimeoutError(100, true));
    }
  };
  const services = create_services(database, {
    render_document,
    now: () => new Date(clock.at),
    render_seconds_per_minute: 30,
  });
  const principal = async (
    email: string,
    key_mode: "live" | "test" = "live",
  ): Promise<Principal> => {
    const account = await create_account(database, { email, plan: "team" });
    return {
      account: { ...account, created_at: account.created_at.toISOString() },
      key_mode,
    };
  };
  // The document is delivered as soon as it is returned.
  const generate = async (who: Principal, invoice: Invoice) => {
    const response: ResponseSink = { headers: new Headers() };
    const document = await services.generate_invoice(
      { authorization: null, checked: true, principal: who },
      invoice,
      response,
    );
    await response.delivery?.delivered();
    return document;
  };
  return { test_database, database, clock, outcome, principal, generate };
}

Deno.test("render budget: every render's time past its first 50 ms counts, refused and test renders too; spent → 429 with the true Retry-After", async () => {
  const { test_database, database, clock, outcome, principal, generate } =
    await setup();
  try {
    const live = await principal("budget@example.com");
    const test = { ...live, key_mode: "test" as const };
    const other = await principal("other@example.com");
    // 10 s delivered, 12 s refused at the page limit, 10 s of a test key
    // (each render's first 50 ms are free).
    outcome.seconds = 10 + FREE_RENDER_SECONDS;
    await generate(live, numbered(1));
    clock.at = START + 10_000;
    outcome.seconds = 12 + FREE_RENDER_SECONDS;
    outcome.end = "page_limit";
    await assertRejects(() => generate(live, numbered(2)), ApiError);
    clock.at = START + 20_000;
    outcome.seconds = 10 + FREE_RENDER_SECONDS;
    outcome.end = "pdf";
    await generate(test, numbered(3));
    // 32 render-seconds in the last minute: spent until the first 10 s leave
    // the window (at START + 60 s), 35 s from now.
    clock.at = START + 25_000;
    outcome.seconds = FREE_RENDER_SECONDS; // ordinary: costs nothing
    const refused = await assertRejects(
      () => generate(live, numbered(4)),
      ApiError,
    );
    assertEquals((refused as ApiError).code, "rate_limited");
    assertEquals((refused as ApiError).headers["Retry-After"], "35");
    assertMatch((refused as ApiError).message, /30 render-seconds a minute/);
    // The refused request is not charged; another account renders.
    assertMatch((refused as ApiError).message, /took 32\.0 s/);
    const month = "2030-03";
    assertEquals(await get_usage(database, live.account.id, { month }), 1);
    await generate(other, numbered(5));
    clock.at = START + 59_500;
    const still = await assertRejects(
      () => generate(live, numbered(4)),
      ApiError,
    );
    assertEquals((still as ApiError).headers["Retry-After"], "1");
    clock.at = START + 60_000;
    await generate(live, numbered(4));
    assertEquals(await get_usage(database, live.account.id, { month }), 2);
    // Ordinary renders cost nothing of it: one account may keep every
    // worker busy with them.
    outcome.seconds = FREE_RENDER_SECONDS;
    for (let n = 100; n < 200; n++) await generate(other, numbered(n));
  } finally {
    await test_database.close();
  }
});

Deno.test("render timeouts: a cold worker never pauses anything; a warm one pauses the document, the account after 3 distinct documents", async () => {
  const { test_database, outcome, principal, generate } = await setup();
  try {
    const account = await principal("timeouts@example.com");
    // Timeouts on cold workers: each is a 503, nothing is remembered.
    outcome.end = "cold_timeout";
    for (let n = 1; n <= 5; n++) {
      const error = await assertRejects(
        () => generate(account, numbered(n)),
        ApiError,
      );
      assertEquals((error as ApiError).code, "unavailable", `document ${n}`);
    }
    const again = await assertRejects(
      () => generate(account, numbered(1)),
      ApiError,
    );
    assertEquals((again as ApiError).code, "unavailable");
    // A warm timeout pauses that document only.
    outcome.end = "warm_timeout";
    await assertRejects(() => generate(account, numbered(10)), ApiError);
    outcome.end = "pdf";
    const paused_document = await assertRejects(
      () => generate(account, numbered(10)),
      ApiError,
    );
    assertEquals((paused_document as ApiError).code, "invalid_request");
    assertMatch((paused_document as ApiError).message, /refused until/);
    await generate(account, numbered(11));
    // Three distinct documents timed out: the account pauses.
    outcome.end = "warm_timeout";
    await assertRejects(() => generate(account, numbered(12)), ApiError);
    await assertRejects(() => generate(account, numbered(13)), ApiError);
    outcome.end = "pdf";
    const paused = await assertRejects(
      () => generate(account, numbered(14)),
      ApiError,
    );
    assertEquals((paused as ApiError).code, "rate_limited");
    assertMatch((paused as ApiError).message, /3 of this account's invoices/);
    assert(Number((paused as ApiError).headers["Retry-After"]) > 3500);
  } finally {
    await test_database.close();
  }
});
