/**
 * Zod checks that report issues without assigning a closure to zod's
 * payload per call.
 *
 * Why: zod's `superRefine` and `transform` do `payload.addIssue = (issue) =>
 * …` on every parse. V8 allocates a function literal assigned to a property
 * directly in the old generation, so each parse left an old closure that
 * pinned the payload and the parsed invoice until the next full collection
 * (about 4 KB promoted per request; see tests/bench/README.md, Decisions).
 * Here the sink is an ordinary object, which dies young with the request.
 *
 * @module
 */

import { z } from "zod";

/** What a check reports one problem with. */
export interface CheckIssue {
  /** Path below the checked value; the value itself when absent. */
  path?: PropertyKey[];
  /** What is wrong, for the client. */
  message: string;
  /**
   * The error code of the answer when it is not `invalid_request` (still a
   * 400), e.g. `logo_too_large`.
   */
  error_code?: "logo_too_large";
}

/** Where a check reports its problems. */
export interface IssueSink {
  /** Records one problem; parsing goes on so every problem is reported. */
  addIssue(issue: CheckIssue): void;
}

type Payload = z.core.ParsePayload<unknown>;

/** Pushes issues onto one parse's payload, in the shape zod's own checks use. */
class PayloadIssueSink implements IssueSink {
  readonly #payload: Payload;
  readonly #inst: z.core.$ZodCheck<never>;

  constructor(payload: Payload, inst: z.core.$ZodCheck<never>) {
    this.#payload = payload;
    this.#inst = inst;
  }

  addIssue(issue: CheckIssue): void {
    this.#payload.issues.push({
      code: "custom",
      input: this.#payload.value,
      inst: this.#inst,
      continue: true,
      path: issue.path ?? [],
      message: issue.message,
      ...(issue.error_code ? { params: { error_code: issue.error_code } } : {}),
    } as z.core.$ZodRawIssue);
  }
}

/** Options of {@linkcode issue_check}. */
export interface IssueCheckOptions {
  /**
   * Run the check even when earlier checks or fields failed (zod's `when`),
   * so that all problems are reported at once.
   */
  always?: boolean;
}

function run_always(): boolean {
  return true;
}

/**
 * A check like zod's `superRefine`: `check` gets the parsed value and a sink
 * for its problems.
 */
export function issue_check<T>(
  check: (value: T, sink: IssueSink) => void,
  options: IssueCheckOptions = {},
): z.core.$ZodCheck<T> {
  const inst: z.core.$ZodCheck<T> = new z.core.$ZodCheck({
    check: "custom",
    ...(options.always ? { when: run_always } : {}),
  });
  inst._zod.check = function run_issue_check(payload): void {
    check(
      payload.value,
      new PayloadIssueSink(
        payload as Payload,
        inst as unknown as z.core.$ZodCheck<never>,
      ),
    );
  };
  return inst;
}

function has_no_issues(payload: Payload): boolean {
  return payload.issues.length === 0;
}

/**
 * `schema` whose parsed value is replaced by `normalize(value)`, like zod's
 * `transform`, but as a check: it runs only when the value has no issues,
 * and may report problems of the normalized value to `sink` (the value is
 * then refused).
 *
 * The JSON Schema (OpenAPI) of the result is that of `schema`: a
 * normalization does not change what a client may send.
 */
export function normalized<S extends z.ZodType, Out>(
  schema: S,
  normalize: (value: z.output<S>, sink: IssueSink) => Out,
): z.ZodType<Out, z.input<S>> {
  const inst: z.core.$ZodCheck<z.output<S>> = new z.core.$ZodCheck({
    check: "custom",
    when: has_no_issues,
  });
  inst._zod.check = function run_normalize(payload): void {
    // The value's type changes here: zod's check API cannot express that.
    (payload as Payload).value = normalize(
      payload.value,
      new PayloadIssueSink(
        payload as Payload,
        inst as unknown as z.core.$ZodCheck<never>,
      ),
    );
  };
  // The check changes the output type, which zod's check API cannot express.
  return schema.check(inst) as unknown as z.ZodType<Out, z.input<S>>;
}
