/**
 * Delivery of a generated document: the answer's body as a stream that
 * tells the generation whether it reached the connection. The stream hands
 * out its chunks one pull at a time (`highWaterMark` 0, so nothing is read
 * ahead); the pull after the last chunk (the HTTP server asking for more
 * once it took everything) calls `delivered` and closes it, a cancel (the
 * client left, the connection failed) calls `undelivered`. Exactly one of
 * them runs, once; a failure in either is logged, never thrown at the
 * connection. The charge is recorded a timer after the body ends, off the
 * answer's path (`pending_settlements.ts` keeps usage reads consistent).
 *
 * @module
 */
import { setImmediate } from "node:timers";
import type { Delivery } from "../../contract/mod.ts";

/**
 * What a generation does on delivery (charge, mark its Idempotency-Key
 * done) and without it (give back the reservation and the key), in order.
 */
export interface DeliveryTasks {
  delivered: Array<() => Promise<unknown>>;
  undelivered: Array<() => Promise<unknown>>;
}

/**
 * The delivery that runs `tasks`' lists in order; the delivered list a
 * timer after it is called, not a turn of the event loop: the HTTP server
 * has written out the last chunk it took before the generation counts it
 * delivered. Settling sooner widens the window in which a process that dies
 * between the charge and the body's last write has charged a document its
 * client never completed.
 */
export function delivery_of(tasks: DeliveryTasks): Delivery {
  const run = async (list: Array<() => Promise<unknown>>) => {
    for (const task of list) await task();
  };
  return {
    delivered: async () => {
      await new Promise((resolve) => setTimeout(resolve, 0));
      await run(tasks.delivered);
    },
    undelivered: () => run(tasks.undelivered),
  };
}

/** A delivery whose two outcomes each run at most once, together at most once. */
export function once(delivery: Delivery): Delivery {
  let done = false;
  const run = (outcome: () => Promise<void>) => {
    if (done) return Promise.resolve();
    done = true;
    return outcome().catch((error) => {
      console.error(
        `delivery bookkeeping failed: ${
          error instanceof Error ? error.message : String(error)
        }`,
      );
    });
  };
  return {
    delivered: () => run(() => delivery.delivered()),
    undelivered: () => run(() => delivery.undelivered()),
  };
}

/** Largest chunk handed to the connection at once. */
export const DELIVERY_CHUNK_BYTES = 16 * 1024;

// Turns of the event loop between chunks: the HTTP server writes the
// chunk it took out to the socket, and a client that left answers it with
// a reset, which the next write then meets (and the stream is cancelled),
// instead of every chunk landing in the socket's buffer. Two turns are
// enough on loopback; four leave room. A timer (about 2 ms in Deno here)
// would add its time to every answer's latency.
const TURNS_BETWEEN_CHUNKS = 4;

function next_turn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

async function between_chunks(): Promise<void> {
  for (let turn = 0; turn < TURNS_BETWEEN_CHUNKS; turn++) await next_turn();
}

/**
 * `bytes` as a body that reports its delivery: in at least two chunks of at
 * most {@linkcode DELIVERY_CHUNK_BYTES}, one a pull, a few turns of the
 * event loop apart; `delivered` on the pull after the last chunk, which
 * then ends the body without waiting for it; `undelivered` on a cancel.
 * Bytes in the kernel's socket buffer count as handed to the connection.
 * Send it without `Content-Length` (chunked): with a length, the HTTP server
 * stops pulling once it has that many bytes and cancels the stream, so the
 * pull after the last chunk would not come.
 */
export function delivered_bytes(
  bytes: Uint8Array<ArrayBuffer>,
  delivery: Delivery,
): ReadableStream<Uint8Array<ArrayBuffer>> {
  const outcome = once(delivery);
  const first = Math.min(DELIVERY_CHUNK_BYTES, Math.ceil(bytes.length / 2));
  let offset = 0;
  return new ReadableStream<Uint8Array<ArrayBuffer>>({
    async pull(controller) {
      if (offset >= bytes.length) {
        // Called before the body ends, so that the settlement is in flight
        // (and usage reads wait for it) by the time the client has it all.
        void outcome.delivered();
        controller.close();
        return;
      }
      if (offset > 0) await between_chunks();
      const end = offset === 0
        ? first
        : Math.min(bytes.length, offset + DELIVERY_CHUNK_BYTES);
      controller.enqueue(bytes.subarray(offset, end));
      offset = end;
    },
    async cancel() {
      await outcome.undelivered();
    },
  }, { highWaterMark: 0 });
}
