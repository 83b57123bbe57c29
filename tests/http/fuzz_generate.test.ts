/**
 * Property test of POST /generate: 10,000 generated hostile bodies. Every
 * answer is a 4xx in the error shape (or, for a body that happens to be a
 * valid invoice, a PDF); never a 500, a hang or a crash.
 *
 * Replay a failure with `FUZZ_SEED=<seed> deno task test tests/http/fuzz_generate.test.ts`.
 */
import { seeded_random } from "../helpers/random.ts";
import { assert, assertEquals } from "../assert.ts";
import { start_test_server } from "../helpers/test_server.ts";
import { full_invoice } from "../fixtures/invoices.ts";

const SEED = Number(Deno.env.get("FUZZ_SEED") ?? 20261123);
const CASES = Number(Deno.env.get("FUZZ_CASES") ?? 10_000);
const CONCURRENCY = 16;

interface FuzzCase {
  kind: string;
  body: Uint8Array | string;
  content_type?: string;
  headers?: Record<string, string>;
}

function generator(random: () => number) {
  const int = (n: number) => Math.floor(random() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)];
  const encoder = new TextEncoder();

  function random_string(): string {
    const alphabets = [
      "abc xyz",
      "ąęłńóśźż",
      "Ελληνικά",
      "日本語🙂",
      "\u0000\u001f\u007f\ud800",
      "()\\%%EOF endobj",
      "\"'<>&",
      // Every supported script, with lone marks, joiners, bidi
      // controls and digits in right-to-left text.
      "汉字简体繁體字",
      "ひらがなカタカナ漢字ー",
      "한국어 조선말가",
      "العربية لا ـً ٌ ١٢٣ 12 ()",
      "فارسی پچژگ اردو ٹڈڑے\u200c\u200d",
      "עברית בְּ 12 (א)",
      "हिन्दी क्षि ्ि ं मराठी",
      "বাংলা ক্ষ ি",
      "தமிழ் க்ஷ ்",
      "ภาษาไทย ่ ้ ั ำ",
      "Հայերեն",
      "ქართული",
      "\u202e\u202d\u2066\u2069\u200f\u200e a ب 1",
      "ሰላም ខ្មែរ 👨‍👩‍👧 🇵🇱",
    ];
    const alphabet = pick(alphabets);
    let text = "";
    const length = pick([0, 1, 5, 40, 300, 6000]);
    for (let i = 0; i < length; i++) text += alphabet[int(alphabet.length)];
    return text;
  }

  function random_value(depth: number): unknown {
    const choice = int(depth > 3 ? 6 : 8);
    switch (choice) {
      case 0:
        return null;
      case 1:
        return random() < 0.5;
      case 2:
        return pick([
          0,
          -1,
          1.5,
          1e308,
          -1e308,
          5e-324,
          2 ** 53 + 1,
          0.125,
          -0.0,
        ]);
      case 3:
      case 4:
        return random_string();
      case 5:
        return int(1000);
      case 6:
        return Array.from({ length: int(4) }, () => random_value(depth + 1));
      default: {
        const object: Record<string, unknown> = {};
        for (let i = int(4); i > 0; i--) {
          object[
            pick([
              "a",
              "items",
              "rate",
              "__proto__",
              "constructor",
              random_string().slice(0, 8),
            ])
          ] = random_value(depth + 1);
        }
        return object;
      }
    }
  }

  function paths(
    value: unknown,
    prefix: (string | number)[] = [],
  ): (string | number)[][] {
    const found: (string | number)[][] = [prefix];
    if (Array.isArray(value)) {
      value.forEach((item, i) => found.push(...paths(item, [...prefix, i])));
    } else if (value && typeof value === "object") {
      for (const [key, item] of Object.entries(value)) {
        found.push(...paths(item, [...prefix, key]));
      }
    }
    return found;
  }

  function set_path(
    root: unknown,
    path: (string | number)[],
    value: unknown,
  ): unknown {
    if (path.length === 0) return value;
    let node = root as Record<string | number, unknown>;
    for (const segment of path.slice(0, -1)) {
      node = node[segment] as Record<string | number, unknown>;
    }
    node[path[path.length - 1]] = value;
    return root;
  }

  const strategies: (() => FuzzCase)[] = [
    () => ({
      kind: "random json",
      body: JSON.stringify(random_value(0)) ?? "null",
    }),
    () => {
      const text = JSON.stringify(full_invoice());
      return { kind: "truncated", body: text.slice(0, int(text.length)) };
    },
    () => {
      const invoice = full_invoice();
      const all = paths(invoice);
      const path = pick(all);
      const mutated = set_path(structuredClone(invoice), path, random_value(2));
      return {
        kind: `wrong type at ${path.join(".")}`,
        body: JSON.stringify(mutated),
      };
    },
    () => {
      const invoice = full_invoice();
      const path = pick(paths(invoice).filter((p) => p.length > 0));
      const mutated = structuredClone(invoice) as unknown as Record<
        string,
        unknown
      >;
      let node = mutated as Record<string | number, unknown>;
      for (const segment of path.slice(0, -1)) {
        node = node[segment] as Record<string | number, unknown>;
      }
      delete node[path[path.length - 1]];
      return {
        kind: `missing ${path.join(".")}`,
        body: JSON.stringify(mutated),
      };
    },
    () => ({
      kind: "huge string",
      body: JSON.stringify({
        ...full_invoice(),
        notes: "x".repeat(pick([5001, 100_000, 900_000])),
      }),
    }),
    () => {
      const depth = pick([100, 1000, 100_000]);
      return {
        kind: `nesting ${depth}`,
        body: "[".repeat(depth) + "]".repeat(depth),
      };
    },
    () => {
      const bytes = encoder.encode(JSON.stringify(full_invoice()));
      const copy = bytes.slice();
      for (let i = 0; i < 3; i++) {
        copy[int(copy.length)] = pick([0xff, 0xfe, 0xc0, 0x80, 0xed]);
      }
      return { kind: "invalid utf-8", body: copy };
    },
    () => {
      const text = JSON.stringify(full_invoice());
      const token = pick([
        "NaN",
        "Infinity",
        "-Infinity",
        "1e308",
        "1e999",
        "-0",
        "0x10",
        "01",
        "1.",
        ".5",
        "undefined",
      ]);
      return {
        kind: `number ${token}`,
        body: text.replace(/"quantity":\d+/, `"quantity":${token}`),
      };
    },
    () => ({
      kind: "content type",
      body: JSON.stringify(full_invoice()),
      content_type: pick([
        "text/plain",
        "application/xml",
        "multipart/form-data; boundary=x",
        "application/x-www-form-urlencoded",
        "",
        "application/json; charset=latin1",
        "APPLICATION/JSON",
      ]),
    }),
    () => ({
      kind: "content encoding",
      body: new Uint8Array([
        0x1f,
        0x8b,
        0x08,
        0,
        0,
        0,
        0,
        0,
        0,
        3,
        ...encoder.encode("junk"),
      ]),
      headers: { "Content-Encoding": "gzip" },
    }),
    () => {
      const text = JSON.stringify(full_invoice());
      return {
        kind: "duplicate key",
        body: text.replace('"date":', '"date":"2026-01-01","date":'),
      };
    },
    () => {
      const text = JSON.stringify(full_invoice());
      const at = int(text.length);
      return {
        kind: "byte noise",
        body: text.slice(0, at) + String.fromCharCode(int(0x3000)) +
          text.slice(at + 1),
      };
    },
  ];

  return (): FuzzCase => pick(strategies)();
}

Deno.test(`fuzz: ${CASES} hostile bodies to /generate never get a 5xx (seed ${SEED})`, async () => {
  const server = await start_test_server({
    env: { RATE_LIMIT_PER_MINUTE: "1000000" },
  });
  const random = seeded_random(SEED);
  const next_case = generator(random);
  const outcomes: Record<string, number> = {};
  try {
    const { key } = await server.create_account({ plan: "team" });
    let produced = 0;
    const worker = async (): Promise<void> => {
      while (produced < CASES) {
        produced++;
        const fuzz = next_case();
        const response = await fetch(`${server.url}/generate`, {
          method: "POST",
          headers: {
            Authorization: `Bearer ${key}`,
            ...(fuzz.content_type === ""
              ? {}
              : { "Content-Type": fuzz.content_type ?? "application/json" }),
            ...fuzz.headers,
          },
          body: fuzz.body as BodyInit,
          signal: AbortSignal.timeout(30_000),
        });
        const description = `${fuzz.kind}: ${
          String(typeof fuzz.body === "string" ? fuzz.body : "<bytes>").slice(
            0,
            120,
          )
        }`;
        assert(
          response.status < 500,
          `${response.status} for ${description} (seed ${SEED})`,
        );
        if (response.status === 200) {
          assertEquals(response.headers.get("content-type"), "application/pdf");
          await response.arrayBuffer();
        } else {
          assert(response.status >= 400, description);
          const body = await response.json();
          assertEquals(Object.keys(body), ["error"], description);
          assert(
            typeof body.error.code === "string" &&
              typeof body.error.message === "string",
            description,
          );
        }
        const label = `${
          fuzz.kind.split(" at ")[0].split(" ")[0]
        } ${response.status}`;
        outcomes[label] = (outcomes[label] ?? 0) + 1;
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const healthy = await server.generate(key, full_invoice());
    assertEquals(healthy.status, 200);
    await healthy.arrayBuffer();
    console.log(`fuzz outcomes (seed ${SEED}):`, outcomes);
  } finally {
    await server.close();
  }
});
