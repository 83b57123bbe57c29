/**
 * A refused request is answered without formatting a stack trace: an
 * `ApiError` is an answer and carries none, and tRPC's error shape leaves
 * stacks out. Formatting one (Deno maps every frame to its TypeScript
 * source) would cost each refused request about 0.1 ms, which a flood of
 * requests without a key would spend on the request thread.
 */
import { assert, assertEquals } from "../assert.ts";
import { ApiError } from "../../contract/mod.ts";
import { invoice_with_items } from "../fixtures/invoices.ts";
import { start_test_server } from "../helpers/test_server.ts";

type PrepareStackTrace = (error: Error, frames: unknown[]) => unknown;

/** Counts the stack frames formatted while `run` runs. */
async function frames_formatted(run: () => Promise<void>): Promise<number> {
  const errors = Error as unknown as { prepareStackTrace?: PrepareStackTrace };
  const before = errors.prepareStackTrace;
  let formatted = 0;
  errors.prepareStackTrace = (error, frames) => {
    formatted += frames.length;
    return `${error.name}: ${error.message} (${frames.length} frames)`;
  };
  try {
    await run();
  } finally {
    errors.prepareStackTrace = before;
  }
  return formatted;
}

Deno.test("an ApiError carries no stack frames", () => {
  const error = new ApiError("unauthorized", "No API key");
  assertEquals(error.stack, "ApiError: No API key");
  assert(error instanceof Error);
  // Other errors keep theirs.
  assert(new Error("fault").stack!.includes("\n    at "));
});

Deno.test("refused requests format no stack frames", async () => {
  const server = await start_test_server();
  try {
    const { key } = await server.create_account();
    const body = invoice_with_items(3);
    const refused = [
      () => server.generate(null, body),
      () => server.generate("ink_live_not-a-key", body),
      () =>
        server.fetch("/generate", {
          method: "POST",
          headers: {
            Authorization: `Bearer ${key}`,
            "Content-Type": "application/json",
          },
          body: "{",
        }),
      () => server.generate(key, { ...body, items: [] }),
    ];
    const statuses: number[] = [];
    const formatted = await frames_formatted(async () => {
      for (const request of refused) {
        const response = await request();
        statuses.push(response.status);
        await response.body?.cancel();
      }
    });
    assertEquals(statuses, [401, 401, 400, 400]);
    assertEquals(formatted, 0);
  } finally {
    await server.close();
  }
});
