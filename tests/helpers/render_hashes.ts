/**
 * SHA-256 of every document of the renderer's fixture set
 * (`fixtures/render_fixture_set.ts`), for `tests/render/hashes.test.ts`.
 *
 * ```sh
 * deno run --allow-read --allow-write tests/helpers/render_hashes.ts          # print JSON
 * deno run --allow-read --allow-write tests/helpers/render_hashes.ts --write  # update render_hashes.json
 * ```
 *
 * Regenerate the committed list only for a change that is meant to change
 * the output, after looking at the documents that changed (the test names
 * them), or after a Deno upgrade (Intl data and zlib come with Deno).
 *
 * @module
 */
import { createHash } from "node:crypto";
import { render_fixture_set } from "../fixtures/render_fixture_set.ts";

/** The committed list: the Deno it was made with and a hash per document. */
export interface RenderHashes {
  deno: string;
  hashes: Record<string, string>;
}

/** Where the committed list lives. */
export const RENDER_HASHES_FILE = new URL(
  "../fixtures/render_hashes.json",
  import.meta.url,
);

/** Renders every fixture and hashes its bytes. */
export function render_hashes(): RenderHashes {
  const hashes: Record<string, string> = {};
  for (const fixture of render_fixture_set()) {
    hashes[fixture.name] = createHash("sha256").update(fixture.render())
      .digest("hex");
  }
  return { deno: Deno.version.deno, hashes };
}

if (import.meta.main) {
  const json = JSON.stringify(render_hashes(), null, 2) + "\n";
  if (Deno.args.includes("--write")) {
    Deno.writeTextFileSync(RENDER_HASHES_FILE, json);
  } else {
    console.log(json);
  }
}
