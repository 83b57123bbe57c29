/**
 * The renderer's output is pinned: every document of the fixture set
 * (`fixtures/render_fixture_set.ts`) hashes to the value committed in
 * `fixtures/render_hashes.json`. A change meant to change the output
 * regenerates the list (`deno run --allow-read --allow-write
 * tests/helpers/render_hashes.ts --write`, see there) and says so in its commit.
 */
import { assertEquals } from "../assert.ts";
import {
  render_hashes,
  RENDER_HASHES_FILE,
  type RenderHashes,
} from "../helpers/render_hashes.ts";

Deno.test("every document of the renderer's fixture set is byte-identical to its committed hash", () => {
  const committed: RenderHashes = JSON.parse(
    Deno.readTextFileSync(RENDER_HASHES_FILE),
  );
  const current = render_hashes();
  assertEquals(
    current.deno,
    committed.deno,
    "the hashes were made with another Deno (Intl data and zlib come with it): " +
      "check the output, then regenerate them (tests/helpers/render_hashes.ts --write)",
  );
  const names = new Set([
    ...Object.keys(committed.hashes),
    ...Object.keys(current.hashes),
  ]);
  const differing = [...names].filter((name) =>
    committed.hashes[name] !== current.hashes[name]
  );
  assertEquals(
    differing,
    [],
    "documents whose bytes changed, appeared or went",
  );
});
