/**
 * A finished document lets go of its state: jsPDF's per-document functions
 * live in V8's old generation and keep the document reachable until a full
 * collection, so whatever the document still held after its output was
 * copied and promoted by every scavenge in between. The probe runs in a
 * process of its own with garbage collection exposed.
 */
import { assert, assertEquals } from "../assert.ts";
import { command_stdout } from "../helpers/command.ts";
import type { ReleaseProbeResult } from "../helpers/document_release_probe.ts";

const PROBE = new URL("../helpers/document_release_probe.ts", import.meta.url)
  .pathname;

Deno.test("a finished document holds neither its fonts nor its text settings", async () => {
  const result = JSON.parse(
    await command_stdout(Deno.execPath(), [
      "run",
      "--allow-all",
      "--node-modules-dir=auto",
      "--v8-flags=--expose-gc",
      PROBE,
    ]),
  ) as ReleaseProbeResult;
  assert(result.pdf_bytes > 1000, `a PDF of ${result.pdf_bytes} bytes`);
  assertEquals(
    {
      font_released: result.font_released,
      settings_released: result.settings_released,
      document_properties: result.document_properties,
    },
    { font_released: true, settings_released: true, document_properties: 0 },
  );
});
