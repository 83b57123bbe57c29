/**
 * A statement past its deadline is withdrawn with postgres.js's cancel
 * request, which opens a connection of its own. When the database refuses
 * that connection (it went down meanwhile), the failure must not escape as
 * an unhandled rejection: under Deno that ends the process. postgres.js
 * 3.4.9's `Query.cancel()` drops that promise, so `db/postgres_client.ts`
 * calls the canceller itself; it also turns off postgres.js's array-type
 * query on each new connection, another promise nobody awaits (with it on,
 * the stalled statement here would be that query). This test pins the
 * version and checks the behaviour against a stand-in server that starts a
 * session, stalls the statement and then stops listening.
 */
import { assert, assertEquals, assertRejects } from "../assert.ts";
import { open_guarded_postgres } from "../../db/postgres_client.ts";

Deno.test("the postgres.js version the cancel workaround is written against", async () => {
  const config = JSON.parse(
    await Deno.readTextFile(new URL("../../deno.json", import.meta.url)),
  );
  assertEquals(config.imports["postgres"], "npm:postgres@3.4.9");
});

/** A PostgreSQL backend message: type, length, body. */
function message(type: string, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(5 + body.length);
  out[0] = type.charCodeAt(0);
  new DataView(out.buffer).setInt32(1, 4 + body.length);
  out.set(body, 5);
  return out;
}

function int32s(...values: number[]): Uint8Array {
  const out = new Uint8Array(values.length * 4);
  values.forEach((v, i) => new DataView(out.buffer).setInt32(i * 4, v));
  return out;
}

Deno.test("a statement withdrawn after the database stopped listening leaves no unhandled rejection", async () => {
  const unhandled: unknown[] = [];
  const on_unhandled = (event: PromiseRejectionEvent) => {
    unhandled.push(event.reason);
    event.preventDefault();
  };
  globalThis.addEventListener("unhandledrejection", on_unhandled);
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  const connections: Deno.Conn[] = [];
  const session = (async () => {
    const conn = await listener.accept();
    connections.push(conn);
    // The start-up message, then: authenticated, the key a cancel names,
    // ready. Whatever comes next (the statement) is never answered.
    await conn.read(new Uint8Array(1024));
    await conn.write(message("R", int32s(0)));
    await conn.write(message("K", int32s(4242, 99)));
    await conn.write(message("Z", new TextEncoder().encode("I")));
    // The statement arrives; the database then stops taking connections.
    await conn.read(new Uint8Array(4096));
    listener.close();
  })();
  const pool = open_guarded_postgres(
    `postgres://ink@127.0.0.1:${port}/ink`,
    { connect_timeout_ms: 1_000, statement_timeout_ms: 300 },
    () => {},
  );
  try {
    await assertRejects(() => pool.run("select 1", []));
    await session;
    // The cancel's refused connection settles within a few turns.
    await new Promise((resolve) => setTimeout(resolve, 500));
    assertEquals(unhandled.map(String), []);
  } finally {
    globalThis.removeEventListener("unhandledrejection", on_unhandled);
    for (const conn of connections) {
      try {
        conn.close();
      } catch {
        // closed already
      }
    }
    await pool.close();
    assert(true);
  }
});
