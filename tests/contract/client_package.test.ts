/**
 * The `@ink/client` npm package as an outside app gets it: `deno task
 * client` builds it, npm installs its tarball into a fresh Node project,
 * TypeScript 5 checks a program against it (`node16` and `bundler`
 * resolution; a misspelt field fails), Deno checks the same program, and
 * both run it against a real service.
 */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { start_test_server, TEST_ADMIN_TOKEN } from "../helpers/test_server.ts";

const CHECKOUT = new URL("../../", import.meta.url);
const PACKAGE_DIR = new URL("contract/client/dist/", CHECKOUT);
const TYPESCRIPT = "typescript@5.9.3";
/** npm keeps its downloads here between runs, so later installs need no network. */
const NPM_CACHE = `${
  Deno.env.get("TMPDIR") ?? "/tmp"
}/ink-client-test-npm-cache`;
const MINUTE = 60_000;

interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(
  command: string,
  args: string[],
  options: { cwd: string | URL; timeout_ms?: number },
): Promise<RunResult> {
  const output = await new Deno.Command(command, {
    args,
    cwd: options.cwd,
    stdin: "null",
    env: { npm_config_update_notifier: "false", NO_COLOR: "1" },
    signal: AbortSignal.timeout(options.timeout_ms ?? 3 * MINUTE),
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

async function run_ok(
  command: string,
  args: string[],
  options: { cwd: string | URL; timeout_ms?: number },
): Promise<string> {
  const result = await run(command, args, options);
  assertEquals(
    result.code,
    0,
    `${command} ${args.join(" ")}:\n${result.stdout}\n${result.stderr}`,
  );
  return result.stdout;
}

/** The contract README's `@ink/client` example, checked as part of the app. */
async function readme_example(): Promise<string> {
  const readme = await Deno.readTextFile(
    new URL("contract/README.md", CHECKOUT),
  );
  const block = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)]
    .map((match) => match[1])
    .find((code) => code.includes('from "@ink/client"'));
  assert(block, "contract/README.md shows an @ink/client example");
  return block;
}

/** A program using every part of the client, typed; prints what it got. */
function app_program(url: string, key: string, account_id: string): string {
  return `import {
  type AppRouter,
  createInkClient,
  type ErrorCode,
  InkError,
  type InvoiceRequest,
  type Plan,
  TRPCClientError,
} from "@ink/client";

const ink = createInkClient({ url: ${JSON.stringify(url)}, apiKey: ${
    JSON.stringify(key)
  } });
const operator = createInkClient({ url: ${JSON.stringify(url)}, apiKey: ${
    JSON.stringify(TEST_ADMIN_TOKEN)
  } });

const invoice: InvoiceRequest = {
  invoice_number: "RE-2026-0815",
  date: "2026-11-02",
  due_date: "2026-12-02",
  currency: "EUR",
  sender: {
    name: "Müller & Söhne GmbH",
    email: "rechnung@mueller.example",
    city: "Berlin",
    zip: "10115",
    country: "DE",
    tax_id: "DE123456789",
  },
  bill_to: {
    name: "Client GmbH",
    email: "ap@client.example",
    city: "Köln",
    country: "DE",
  },
  tax_category: "S",
  tax_rate: 19,
  items: [{ description: "Beratung", quantity: 10, rate: 100, amount: 1000 }],
};

function head(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes.subarray(0, 5));
}

const pdf = await ink.generate(invoice);
const factur_x = await ink.generate(invoice, { format: "factur-x" });
const cii = await ink.generate(invoice, { format: "cii" });
const factur_x_text = new TextDecoder("latin1").decode(factur_x.bytes);

let refused: { status: number; code: ErrorCode | "unexpected_response"; path?: string } | undefined;
try {
  await ink.generate({ ...invoice, date: "2026-02-30" });
} catch (error) {
  if (!(error instanceof InkError)) throw error;
  refused = { status: error.status, code: error.code, path: error.details?.[0]?.path };
}

const over_trpc = await ink.trpc.invoice.generate.mutate({ ...invoice, format: "cii" });
const xml: string | undefined = over_trpc.xml;
const account = await operator.trpc.admin.get_account.query({ id: ${
    JSON.stringify(account_id)
  } });
const plan: Plan = account.plan;
const keys = await operator.trpc.admin.list_keys.query({ id: account.id });

let trpc_code: ErrorCode | undefined;
try {
  await ink.trpc.admin.get_account.query({ id: account.id });
} catch (error) {
  if (!(error instanceof TRPCClientError)) throw error;
  trpc_code = (error as TRPCClientError<AppRouter>).data?.code;
}

console.log(JSON.stringify({
  pdf: {
    head: head(pdf.bytes),
    contentType: pdf.contentType,
    is_bytes: pdf.bytes instanceof Uint8Array,
    embeds_xml: new TextDecoder("latin1").decode(pdf.bytes).includes("factur-x.xml"),
  },
  factur_x: {
    head: head(factur_x.bytes),
    contentType: factur_x.contentType,
    embeds_xml: factur_x_text.includes("factur-x.xml"),
  },
  cii: { head: new TextDecoder().decode(cii.bytes.subarray(0, 5)), contentType: cii.contentType },
  refused,
  trpc: {
    file_name: over_trpc.file_name,
    content_type: over_trpc.content_type,
    xml_starts: xml?.slice(0, 5),
    plan,
    keys: keys.keys.length,
    refused: trpc_code,
  },
}));
`;
}

/** The same calls with a misspelt field each: the compiler must refuse both. */
const MISSPELT_PROGRAM = `import { createInkClient } from "@ink/client";

const ink = createInkClient({ url: "http://127.0.0.1:8000", apiKey: "ink_live_x" });
await ink.generate({
  invoice_numbr: "INV-1",
  date: "2026-11-23",
  due_date: "2026-12-23",
  sender: { name: "A", email: "a@example.com" },
  items: [{ description: "x", quantity: 1, rate: 10, amount: 10 }],
});
await ink.trpc.admin.get_account.query({ idd: "x" });
`;

/**
 * Type-level proof that the printed router is the contract's: every
 * procedure's input, output and error as a tRPC client infers them.
 */
function router_types_equal(): string {
  return `import type {
  inferRouterError,
  inferRouterInputs,
  inferRouterOutputs,
} from "@trpc/server";
import type { AppRouter as Contract } from "${
    new URL("contract/mod.ts", CHECKOUT).href
  }";
import type { AppRouter as Printed } from "${
    new URL("router_types.d.ts", PACKAGE_DIR).href
  }";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends
  (<T>() => T extends B ? 1 : 2) ? true : false;

export const inputs: Equal<
  inferRouterInputs<Contract>,
  inferRouterInputs<Printed>
> = true;
export const outputs: Equal<
  inferRouterOutputs<Contract>,
  inferRouterOutputs<Printed>
> = true;
export const errors: Equal<
  inferRouterError<Contract>,
  inferRouterError<Printed>
> = true;
`;
}

function tsconfig(resolution: "node16" | "bundler", files: string[]) {
  return JSON.stringify({
    compilerOptions: {
      strict: true,
      noEmit: true,
      target: "es2022",
      module: resolution === "node16" ? "node16" : "esnext",
      moduleResolution: resolution,
      // @trpc/server's declarations use `Disposable`; no skipLibCheck, so
      // the package's declarations are checked too.
      lib: ["es2022", "dom", "esnext.disposable"],
      types: [],
    },
    files,
  });
}

async function write_app(dir: string, program: string): Promise<void> {
  await Deno.writeTextFile(
    `${dir}/package.json`,
    JSON.stringify({ name: "outside-app", private: true, type: "module" }),
  );
  await Deno.writeTextFile(`${dir}/main.ts`, program);
  await Deno.writeTextFile(`${dir}/misspelt.ts`, MISSPELT_PROGRAM);
  await Deno.writeTextFile(`${dir}/readme_example.ts`, await readme_example());
  for (const resolution of ["node16", "bundler"] as const) {
    await Deno.writeTextFile(
      `${dir}/tsconfig.${resolution}.json`,
      tsconfig(resolution, ["main.ts", "readme_example.ts"]),
    );
    await Deno.writeTextFile(
      `${dir}/tsconfig.${resolution}.misspelt.json`,
      tsconfig(resolution, ["misspelt.ts"]),
    );
  }
  await Deno.writeTextFile(
    `${dir}/tsconfig.build.json`,
    JSON.stringify({
      extends: "./tsconfig.node16.json",
      // Checked above; this only emits the JavaScript to run.
      compilerOptions: { noEmit: false, noCheck: true, outDir: "out" },
      files: ["main.ts"],
    }),
  );
}

function assert_misspelt_refused(result: RunResult, tool: string): void {
  const output = result.stdout + result.stderr;
  assert(result.code !== 0, `${tool} accepts a misspelt field:\n${output}`);
  assertStringIncludes(output, "'invoice_numbr' does not exist");
  assertStringIncludes(output, "'idd' does not exist");
}

function assert_app_output(stdout: string, runtime: string): void {
  const got = JSON.parse(stdout.trim().split("\n").at(-1)!);
  assertEquals(got, {
    pdf: {
      head: "%PDF-",
      contentType: "application/pdf",
      is_bytes: true,
      embeds_xml: false,
    },
    factur_x: {
      head: "%PDF-",
      contentType: "application/pdf",
      embeds_xml: true,
    },
    cii: { head: "<?xml", contentType: "application/xml; charset=utf-8" },
    refused: { status: 400, code: "invalid_request", path: "date" },
    trpc: {
      file_name: "invoice-RE-2026-0815.xml",
      content_type: "application/xml; charset=utf-8",
      xml_starts: "<?xml",
      plan: "pro",
      keys: 1,
      refused: "unauthorized",
    },
  }, runtime);
}

Deno.test("@ink/client: built, npm-installed, typed under node16 and bundler, run from Node and Deno", async (t) => {
  const work = await Deno.makeTempDir({ prefix: "ink-client-" });
  const app = `${work}/app`;
  await Deno.mkdir(app);
  const server = await start_test_server();
  try {
    const { account_id, key } = await server.create_account({ plan: "pro" });
    await write_app(app, app_program(server.url, key, account_id));

    await t.step("deno task client writes the package", async () => {
      await run_ok(Deno.execPath(), ["task", "client"], { cwd: CHECKOUT });
      const manifest = JSON.parse(
        await Deno.readTextFile(new URL("package.json", PACKAGE_DIR)),
      );
      assertEquals(manifest.name, "@ink/client");
      assertEquals(manifest.dependencies, { "@trpc/client": "11.25.2" });
      const declarations = await Deno.readTextFile(
        new URL("router_types.d.ts", PACKAGE_DIR),
      );
      for (const server_only of ["zod", "trpc-to-openapi", "contract/"]) {
        assert(!declarations.includes(server_only), server_only);
      }
    });

    await t.step("its router types equal the contract's", async () => {
      const checker = `${work}/router_types_equal.ts`;
      await Deno.writeTextFile(checker, router_types_equal());
      // As `deno task check` type-checks: with node_modules installed.
      await run_ok(Deno.execPath(), [
        "check",
        "--node-modules-dir=auto",
        "--config",
        new URL("deno.json", CHECKOUT).pathname,
        checker,
      ], { cwd: CHECKOUT });
    });

    await t.step(
      "npm packs it and installs it into a fresh project",
      async () => {
        const [packed] = JSON.parse(
          await run_ok("npm", ["pack", "--json", "--pack-destination", work], {
            cwd: PACKAGE_DIR,
          }),
        );
        assertEquals(
          packed.files.map((file: { path: string }) => file.path).sort(),
          [
            "README.md",
            "mod.d.ts",
            "mod.js",
            "package.json",
            "router_types.d.ts",
          ],
        );
        console.log(
          `@ink/client tarball ${packed.size} B, unpacked ${packed.unpackedSize} B`,
        );
        const tarball = `${work}/${packed.filename}`;
        await run_ok("npm", [
          "install",
          "--no-audit",
          "--no-fund",
          "--prefer-offline",
          "--loglevel=error",
          "--cache",
          NPM_CACHE,
          tarball,
          TYPESCRIPT,
        ], { cwd: app, timeout_ms: 5 * MINUTE });
        const installed = [...Deno.readDirSync(`${app}/node_modules`)]
          .map((entry) => entry.name).filter((name) => !name.startsWith("."))
          .sort();
        assertEquals(installed, [
          "@ink",
          "@trpc",
          "typescript",
        ]);
        const trpc = [...Deno.readDirSync(`${app}/node_modules/@trpc`)]
          .map((entry) => entry.name).sort();
        assertEquals(trpc, ["client", "server"], "@trpc/client's peer only");
      },
    );

    for (const resolution of ["node16", "bundler"]) {
      await t.step(
        `tsc (${resolution}) accepts the app and the README example, refuses a misspelt field`,
        async () => {
          const tsc = `${app}/node_modules/typescript/bin/tsc`;
          await run_ok("node", [tsc, "-p", `tsconfig.${resolution}.json`], {
            cwd: app,
          });
          assert_misspelt_refused(
            await run("node", [
              tsc,
              "-p",
              `tsconfig.${resolution}.misspelt.json`,
            ], { cwd: app }),
            `tsc (${resolution})`,
          );
        },
      );
    }

    await t.step("Deno checks the same programs", async () => {
      await run_ok(Deno.execPath(), ["check", "main.ts", "readme_example.ts"], {
        cwd: app,
      });
      assert_misspelt_refused(
        await run(Deno.execPath(), ["check", "misspelt.ts"], { cwd: app }),
        "deno check",
      );
    });

    await t.step(
      "the app gets a PDF, a Factur-X, an XML and typed tRPC answers from Node",
      async () => {
        await run_ok("node", [
          `${app}/node_modules/typescript/bin/tsc`,
          "-p",
          "tsconfig.build.json",
        ], { cwd: app });
        assert_app_output(
          await run_ok("node", ["out/main.js"], { cwd: app }),
          "node",
        );
      },
    );

    await t.step("and from Deno", async () => {
      assert_app_output(
        await run_ok(Deno.execPath(), ["run", "--allow-net", "main.ts"], {
          cwd: app,
        }),
        "deno",
      );
    });
  } finally {
    await server.close();
    await Deno.remove(work, { recursive: true });
  }
});
