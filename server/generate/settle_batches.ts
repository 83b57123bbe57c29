/**
 * Settlements of delivered documents gathered into batches: those that
 * come due within {@linkcode SETTLE_BATCH_WINDOW_MS} of the first one
 * waiting go to the database as one statement (`settle_generations`); one
 * alone goes as the single settlement. Each caller learns its own outcome;
 * a failed statement fails every settlement in it (each is then uncharged,
 * in the customer's favour, and its reservation's lease frees the unit).
 *
 * Why a window: every statement costs PostgreSQL a transaction and the
 * request thread a socket write whatever it carries, and the answer has
 * been delivered already, so nothing waits for its charge but a usage read
 * or the account's next request (`pending_settlements.ts`). Those do not
 * wait out the window: while something waits for an account's
 * settlements, the batch holding them goes at once with all it gathered (a
 * client sending its invoices one after the other waits one round trip).
 *
 * @module
 */
import * as store from "../../db/mod.ts";
import type { PendingSettlements } from "./pending_settlements.ts";

/** Most settlements in one statement. */
export const SETTLE_BATCH_LIMIT = 128;

/**
 * How long the first settlement of a batch waits for others, ms. At 600
 * invoices a second a batch gathers about a dozen.
 */
export const SETTLE_BATCH_WINDOW_MS = 20;

interface Waiting {
  charge: store.ChargeFields;
  resolve: (settled: boolean) => void;
  reject: (error: unknown) => void;
}

/** Gathers settlements into statements (see the module). */
export class SettleBatches {
  #waiting: Waiting[] = [];
  #flush_timer: ReturnType<typeof setTimeout> | undefined;

  /**
   * Batches for `database`; with `settlements`, a batch goes at once when
   * something waits there for the settlements of an account in it.
   */
  constructor(
    private readonly database: store.Database,
    private readonly settlements?: PendingSettlements,
    private readonly window_ms = SETTLE_BATCH_WINDOW_MS,
  ) {
    settlements?.hurry_with((account_id) => {
      if (this.#waiting.some((w) => w.charge.account_id === account_id)) {
        this.#flush();
      }
    });
  }

  /** Settles `charge` with the others due within the window; true when this charged it. */
  settle(charge: store.ChargeFields): Promise<boolean> {
    const { promise, resolve, reject } = Promise.withResolvers<boolean>();
    this.#waiting.push({ charge, resolve, reject });
    if (
      this.#waiting.length >= SETTLE_BATCH_LIMIT ||
      this.settlements?.awaited(charge.account_id)
    ) this.#flush();
    else {
      this.#flush_timer ??= setTimeout(() => this.#flush(), this.window_ms);
    }
    return promise;
  }

  #flush(): void {
    clearTimeout(this.#flush_timer);
    this.#flush_timer = undefined;
    const batch = this.#waiting;
    if (batch.length === 0) return;
    this.#waiting = [];
    this.#send(batch);
  }

  #send(batch: Waiting[]): void {
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
