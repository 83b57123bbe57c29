/**
 * One `POST /generate`, top to bottom:
 *
 * 1. **authenticate**: the API key, its account and the rate limit. A key
 *    checked before the body was read arrives checked; a warm key (one that
 *    checked out lately) is checked here, in the reserve stage's statement
 *    when no `Idempotency-Key` comes between (one round trip), and may
 *    start its render while that statement runs.
 * 2. **claim idempotency**: an `Idempotency-Key` is claimed, or found done
 *    (then the document is rendered again, uncharged).
 * 3. **reserve**: one unit of the month's quota (live keys) or of the test
 *    keys' allowance, held until the answer's fate is known.
 * 4. **render**: the document, within the account's render limits; a
 *    render that fails gives the reservation back.
 * 5. **settle**: once the body was handed to the connection the
 *    reservation is charged and the key marked done; an answer never
 *    delivered gives both back (`delivery.ts`). The charge is recorded
 *    with the others due within a short window after the body ends
 *    (`settle_batches.ts`), and a usage read waits for it.
 *
 * Each stage is an interface; `stages.ts` implements them over the
 * database. Errors are `ApiError`s with the status each stage calls for.
 *
 * @module
 */
import type {
  ApiKeyRequest,
  Delivery,
  Invoice,
  InvoiceFormat,
  Principal,
  RenderedDocument,
  ResponseSink,
} from "../../contract/mod.ts";
import type { ReserveResult } from "../../db/mod.ts";
import type { RenderOptions } from "../render_options.ts";
import type { DeliveryTasks } from "./delivery.ts";
import { check_document_cost } from "./guarded_render.ts";

/** One `POST /generate` as it moves through the stages. */
export interface GenerateRequest {
  /** The key as the procedure's middleware left it: checked, or left to authenticate. */
  api_key: ApiKeyRequest;
  invoice: Invoice;
  format: InvoiceFormat;
  /** A valid `Idempotency-Key` header. */
  idempotency_key?: string;
  /** Where stages put headers and the settlement. */
  response: ResponseSink;
  /** The request's moment: its quota month and day, every check's now. */
  at: Date;
}

/** What authenticate leaves for the later stages. */
export interface Authenticated {
  principal: Principal;
  /** How the key's documents render (marked as test for a test key). */
  render_options: RenderOptions;
  /** The reservation, when the statement that checked the key made it. */
  reserved?: Reserved;
  /** A render started before the key's statement answered. */
  early?: Promise<RenderedDocument>;
}

/** A reservation made by the key's statement, with the hash it was made under. */
export type Reserved = ReserveResult & { request_hash: string };

/** What the claim of an `Idempotency-Key` settles, or that the key is done already. */
export interface IdempotencyClaim {
  /** The key's request was delivered before: render again, uncharged. */
  replay: boolean;
  /** Gives the claim back (the request failed before its answer). */
  release(): Promise<void>;
  /** What delivery, or its absence, does to the key. */
  settlement: DeliveryTasks;
}

/** A unit of quota held for the request. */
export interface Reservation {
  /** A render started while the reservation's statement ran. */
  early?: Promise<RenderedDocument>;
  /** Gives the unit back (the render failed). */
  release(): Promise<void>;
  /** What delivery, or its absence, does to the unit. */
  settlement: DeliveryTasks;
}

/** The stages, as `stages.ts` implements them. */
export interface GenerateStages {
  authenticate(request: GenerateRequest): Promise<Authenticated>;
  claim_idempotency(
    request: GenerateRequest,
    key: Authenticated,
  ): Promise<IdempotencyClaim>;
  /** The answer to a done `Idempotency-Key`: the document again, uncharged. */
  replay(
    request: GenerateRequest,
    key: Authenticated,
  ): Promise<RenderedDocument>;
  reserve(request: GenerateRequest, key: Authenticated): Promise<Reservation>;
  render(invoice: Invoice, options: RenderOptions): Promise<RenderedDocument>;
  /** What the answer's delivery, or its absence, settles. */
  settle(key: Authenticated, tasks: DeliveryTasks): Delivery;
}

/** Runs a `POST /generate` through the stages (see the module). */
export async function generate_document(
  stages: GenerateStages,
  request: GenerateRequest,
): Promise<RenderedDocument> {
  // Too long to render: refused before anything is charged or drawn.
  check_document_cost(request.invoice);
  const key = await stages.authenticate(request);
  const claim = await stages.claim_idempotency(request, key);
  if (claim.replay) return await stages.replay(request, key);
  try {
    const reservation = await stages.reserve(request, key);
    let document: RenderedDocument;
    try {
      document = await (reservation.early ??
        stages.render(request.invoice, key.render_options));
    } catch (error) {
      await reservation.release().catch(() => {});
      throw error;
    }
    request.response.delivery = stages.settle(key, {
      delivered: [
        ...reservation.settlement.delivered,
        ...claim.settlement.delivered,
      ],
      undelivered: [
        ...reservation.settlement.undelivered,
        ...claim.settlement.undelivered,
      ],
    });
    return document;
  } catch (error) {
    await claim.release().catch(() => {});
    throw error;
  }
}
