/**
 * Records the REST answers a test receives (method, path, status, headers,
 * content type, body), so a test can check each against the OpenAPI
 * document. A test server started with `record` sends its helpers' calls
 * (`admin`, `generate`, `create_account`, `fetch`) through it.
 */

/** One REST answer as the client received it. */
export interface RecordedAnswer {
  method: string;
  /** The request path, e.g. `/admin/accounts/3f…`. */
  path: string;
  status: number;
  headers: Headers;
  /** The `Content-Type` header, or null. */
  content_type: string | null;
  body: Uint8Array;
}

/** Collects answers; its `fetch` is the global fetch plus a record of each answer. */
export class RestRecorder {
  readonly answers: RecordedAnswer[] = [];

  /** Fetches like the global `fetch` and records the answer (the body is read once, here). */
  fetch = async (
    input: string | URL,
    init: RequestInit = {},
  ): Promise<Response> => {
    const response = await fetch(input, init);
    const body = new Uint8Array(await response.arrayBuffer());
    this.answers.push({
      method: (init.method ?? "GET").toUpperCase(),
      path: new URL(input).pathname,
      status: response.status,
      headers: response.headers,
      content_type: response.headers.get("content-type"),
      body,
    });
    return new Response(response.status === 204 ? null : body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
