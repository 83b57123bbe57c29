/**
 * Settlements on their way, by account. A delivered document's charge is
 * recorded shortly after its answer's body ends (`delivery.ts`, in a batch
 * of `settle_batches.ts`), so a usage read of this process first waits for
 * the account's settlements in flight: a client holding the whole answer
 * finds it in its usage.
 *
 * @module
 */
import type { Delivery } from "../../contract/mod.ts";

/** The settlements in flight of this process. */
export class PendingSettlements {
  #by_account = new Map<string, Set<Promise<void>>>();
  /** Accounts someone waits for now, with how many wait. */
  #awaited = new Map<string, number>();
  #on_wait: ((account_id: string) => void) | undefined;

  /**
   * Calls `hurry` whenever a read or request starts waiting for an
   * account's settlements, so that a batch holding them goes at once.
   */
  hurry_with(hurry: (account_id: string) => void): void {
    this.#on_wait = hurry;
  }

  /** Whether something waits for `account_id`'s settlements now. */
  awaited(account_id: string): boolean {
    return this.#awaited.has(account_id);
  }

  /** `delivery`, its outcomes counted in flight for `account_id` from their call. */
  tracked(account_id: string, delivery: Delivery): Delivery {
    return {
      delivered: () => this.#track(account_id, delivery.delivered()),
      undelivered: () => this.#track(account_id, delivery.undelivered()),
    };
  }

  /** Resolves once every settlement of `account_id` in flight now has ended. */
  async settled(account_id: string): Promise<void> {
    const pending = this.#by_account.get(account_id);
    if (pending === undefined) return;
    this.#awaited.set(account_id, (this.#awaited.get(account_id) ?? 0) + 1);
    try {
      this.#on_wait?.(account_id);
      await Promise.allSettled([...pending]);
    } finally {
      const left = this.#awaited.get(account_id)! - 1;
      if (left === 0) this.#awaited.delete(account_id);
      else this.#awaited.set(account_id, left);
    }
  }

  /** Resolves once every settlement in flight now has ended (shutdown). */
  async all_settled(): Promise<void> {
    const pending = [...this.#by_account.values()].flatMap((set) => [...set]);
    await Promise.allSettled(pending);
  }

  /** Accounts with a settlement in flight. */
  get accounts_pending(): number {
    return this.#by_account.size;
  }

  #track(account_id: string, settling: Promise<void>): Promise<void> {
    let pending = this.#by_account.get(account_id);
    if (pending === undefined) {
      pending = new Set();
      this.#by_account.set(account_id, pending);
    }
    const set = pending;
    set.add(settling);
    const done = () => {
      set.delete(settling);
      if (set.size === 0 && this.#by_account.get(account_id) === set) {
        this.#by_account.delete(account_id);
      }
    };
    settling.then(done, done);
    return settling;
  }
}
