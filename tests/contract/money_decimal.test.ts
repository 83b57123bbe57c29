/**
 * `decimal_from_number` reads a JSON number as the decimal its shortest form
 * writes, exactly, whichever path it takes (whole numbers, plain decimals,
 * exponent forms): compared here with the general pattern on every kind of
 * number a request can carry.
 */
import { assertEquals, assertThrows } from "../assert.ts";
import { decimal_from_number } from "../../contract/money.ts";

/** The decimal of `String(value)`, read by the general pattern alone. */
function reference(value: number): { units: bigint; scale: number } {
  const text = String(value);
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(text);
  if (!match) throw new Error(`unexpected form ${text}`);
  const [, sign, whole, fraction = "", exponent = "0"] = match;
  let digits = whole + fraction;
  let scale = fraction.length - Number(exponent);
  if (scale < 0) {
    digits += "0".repeat(-scale);
    scale = 0;
  }
  return { units: BigInt(digits) * (sign === "-" ? -1n : 1n), scale };
}

function random_number(random: () => number): number {
  const kind = Math.floor(random() * 7);
  const sign = random() < 0.3 ? -1 : 1;
  switch (kind) {
    case 0: // whole numbers, small and large
      return sign * Math.floor(random() * 10 ** Math.floor(random() * 16));
    case 1: // money: cents
      return sign * Math.round(random() * 1e7) / 100;
    case 2: // quantities with up to 6 decimals
      return sign * Math.round(random() * 1e9) / 10 ** (1 + random() * 6 | 0);
    case 3: // tiny values, written with an exponent
      return sign * random() * 10 ** -(7 + Math.floor(random() * 10));
    case 4: // huge values, beyond safe integers
      return sign * random() * 10 ** (16 + Math.floor(random() * 10));
    case 5: // decimals of 14 to 17 significant digits, around the scaled path's bound
      return sign *
        Math.floor(random() * 10 ** (14 + Math.floor(random() * 4))) /
        10 ** (1 + Math.floor(random() * 12));
    default: // any double
      return sign * random() * 10 ** (Math.floor(random() * 30) - 15);
  }
}

Deno.test("decimal_from_number: the same decimal as the general pattern on 200,000 numbers", () => {
  let seed = 20261126;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const edges = [
    0,
    -0,
    1,
    -1,
    0.1,
    -0.5,
    1250.5,
    0.001,
    1e-7,
    1.5e-7,
    123e20,
    1e21,
    9007199254740991,
    9007199254740992,
    9007199254740993,
    -9007199254740993,
    Number.MAX_VALUE,
    Number.MIN_VALUE,
  ];
  for (const value of edges) {
    assertEquals(decimal_from_number(value), reference(value), String(value));
  }
  for (let index = 0; index < 200_000; index++) {
    const value = random_number(random);
    assertEquals(decimal_from_number(value), reference(value), String(value));
  }
});

Deno.test("decimal_from_number: refuses what is not a finite number", () => {
  for (const value of [NaN, Infinity, -Infinity]) {
    assertThrows(() => decimal_from_number(value), RangeError);
  }
});
