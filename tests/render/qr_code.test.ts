/**
 * Our QR encoder (`server/pdf/qr_code.ts`) draws, module for module, the
 * symbol of Nayuki's generator as `uqr` ports it (byte mode, level M,
 * every fixed mask), for payloads of every length up to version 13 and
 * EPC payloads.
 */

import { encode } from "uqr";
import { assertEquals } from "../assert.ts";
import { qr_code_m } from "../../server/pdf/qr_code.ts";
import { epc_payload } from "../../server/pdf/epc_qr.ts";

function reference(bytes: Uint8Array, mask: number) {
  const qr = encode(Array.from(bytes), {
    ecc: "M",
    border: 0,
    maskPattern: mask,
  });
  return { size: qr.size, modules: qr.data };
}

/** Deterministic bytes (a linear congruential generator). */
function bytes_of(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed;
  for (let i = 0; i < length; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

Deno.test("QR codes match uqr's for every length up to 331 bytes and every mask", () => {
  for (let length = 0; length <= 331; length++) {
    const mask = length % 8;
    const bytes = bytes_of(length, length + 1);
    assertEquals(qr_code_m(bytes, mask), reference(bytes, mask), `${length}`);
  }
});

Deno.test("QR codes of EPC payloads match uqr's with the EPC mask", () => {
  const payloads = [
    {
      name: "Muster GmbH",
      iban: "DE89370400440532013000",
      bic: "COBADEFFXXX",
      amount: "5996.85",
      reference: "RE-2026-0042",
    },
    {
      name: "Zażółć Gęślą Sp. z o.o. — ".repeat(4),
      iban: "PL61109010140000071219812874",
      amount: "999999999.99",
      reference: "Rechnung ".repeat(20),
    },
    {
      name: "A",
      iban: "FR1420041010050500013M02606",
      amount: "0.01",
      reference: "RF18539007547034",
    },
  ].map((transfer) => epc_payload(transfer)!);
  for (const payload of payloads) {
    const bytes = new TextEncoder().encode(payload);
    assertEquals(qr_code_m(bytes, 2), reference(bytes, 2));
  }
});
