/**
 * Worker entry point: creates a new PGlite data directory (`initdb` and the
 * migrations), closes it and answers once. See `initialise_in_worker`.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { type InitReply, start_pglite } from "./pglite_start.ts";

self.onmessage = async (event: MessageEvent<string>) => {
  let reply: InitReply;
  try {
    const client = await start_pglite(event.data);
    await client.close();
    reply = { ok: true };
  } catch (error) {
    reply = {
      ok: false,
      message: error instanceof Error ? error.message : String(error),
    };
  }
  self.postMessage(reply);
};
