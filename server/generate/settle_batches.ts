/**
 * Settlements of delivered documents gathered into batches: those that
 * come due in the same turn of the event loop (deliveries settle a timer
 * after their answers end, so under load many come due together) go to the
 * database as one statement (`settle_generations`); one alone goes as the
 * single settlement. Each caller learns its own outcome; a failed statement
 * fails every settlement in it (each is then uncharged, in the customer's
 * favour, and its reservation's lease frees the unit).
 *
 * @module
 */
import { setImmediate } from "node:timers";
import * as store from "../../db/mod.ts";

/** Most settlements in one statement. */
export const SETTLE_BATCH_LIMIT = 128;

interface Waiting {
  charge: store.ChargeFields;
  resolve: (settled: boolean) => void;
  reject: (error: unknown) => void;
}

/** Gathers settlements into statements (see the module). */
export class SettleBatches {
  #waiting: Waiting[] = [];
  #flush_scheduled = false;

  constructor(private readonly database: store.Database) {}

  /** Settles `charge` with the others due now; true when this charged it. */
  settle(charge: store.ChargeFields): Promise<boolean> {
    const { promise, resolve, reject } = Promise.withResolvers<boolean>();
    this.#waiting.push({ charge, resolve, reject });
    if (this.#waiting.length >= SETTLE_BATCH_LIMIT) this.#flush();
    else if (!this.#flush_scheduled) {
      this.#flush_scheduled = true;
      setImmediate(() => this.#flush());
    }
    return promise;
  }

  #flush(): void {
    this.#flush_scheduled = false;
    const batch = this.#waiting;
    if (batch.length === 0) return;
    this.#waiting = [];
    const settled = batch.length === 1
      ? store.settle_generation(this.database, batch[0].charge).then((one) => [
        one,
      ])
      : store.settle_generations(
        this.database,
        batch.map((waiting) => waiting.charge),
      );
    settled.then(
      (outcomes) =>
        batch.forEach((waiting, index) => waiting.resolve(outcomes[index])),
      (error) => batch.forEach((waiting) => waiting.reject(error)),
    );
  }
}
