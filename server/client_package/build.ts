/**
 * `deno task client`: builds the npm package `@ink/client` from
 * `contract/client/` into `contract/client/dist/`. The TypeScript compiler
 * reads the contract and prints its types as plain declarations (see
 * `declarations.ts`), declares the client's API from its source and
 * transpiles that source to ESM JavaScript.
 *
 * @module
 */
import ts from "typescript";
import { print_declarations } from "./declarations.ts";

const ROOT = new URL("../../", import.meta.url);
const SOURCE_DIR = new URL("contract/client/", ROOT);
/** Where `deno task client` writes the package (git-ignored). */
export const PACKAGE_DIR = new URL("dist/", SOURCE_DIR);
/** The package's name on npm. */
export const PACKAGE_NAME = "@ink/client";

const ENTRY = "mod.ts";
const TYPES_MODULE = "router_types.ts";
const README = `# ${PACKAGE_NAME}

Typed calls to the Ink invoice service, built from the service's contract
(\`deno task client\` in the service's repository). See the service's
\`contract/README.md\`, section "TypeScript callers: @ink/client".

\`\`\`ts
import { createInkClient } from "${PACKAGE_NAME}";

const ink = createInkClient({ url: "http://127.0.0.1:8000", apiKey });
const { bytes, contentType } = await ink.generate(invoice, { format: "pdf" });
const answer = await ink.trpc.invoice.generate.mutate(invoice);
\`\`\`
`;

const COMPILER_OPTIONS: ts.CompilerOptions = {
  strict: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  allowImportingTsExtensions: true,
  verbatimModuleSyntax: true,
  declaration: true,
  emitDeclarationOnly: true,
  skipLibCheck: true,
  lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
  types: [],
};

/** What {@linkcode build_client_package} wrote. */
export interface BuiltPackage {
  /** The package folder. */
  dir: URL;
  /** The package's files and their sizes in bytes. */
  files: Record<string, number>;
}

/** Writes the package into `out_dir` (emptied first). */
export async function build_client_package(
  out_dir: URL = PACKAGE_DIR,
): Promise<BuiltPackage> {
  const entry = path_of(new URL(ENTRY, SOURCE_DIR));
  const program = ts.createProgram([entry], COMPILER_OPTIONS);
  const source = program.getSourceFile(entry)!;
  const files: Record<string, string> = {
    "package.json": JSON.stringify(await package_json(), null, 2) + "\n",
    "README.md": README,
    "mod.js": relative_imports_as_js(
      ts.transpileModule(source.text, {
        compilerOptions: { ...COMPILER_OPTIONS, declaration: false },
      }).outputText,
    ),
    "mod.d.ts": relative_imports_as_js(declarations_of(program, source)),
    "router_types.d.ts": print_declarations(
      program,
      path_of(new URL(TYPES_MODULE, SOURCE_DIR)),
    ),
  };
  await Deno.remove(out_dir, { recursive: true }).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
  await Deno.mkdir(out_dir, { recursive: true });
  const sizes: Record<string, number> = {};
  for (const [name, text] of Object.entries(files)) {
    const bytes = new TextEncoder().encode(text);
    await Deno.writeFile(new URL(name, out_dir), bytes);
    sizes[name] = bytes.length;
  }
  return { dir: out_dir, files: sizes };
}

function path_of(url: URL): string {
  return decodeURIComponent(url.pathname);
}

/** The client's own API, declared by the compiler from its source. */
function declarations_of(program: ts.Program, source: ts.SourceFile): string {
  let text: string | undefined;
  const result = program.emit(
    source,
    (name, output) => {
      if (name.endsWith(".d.ts")) text = output;
    },
    undefined,
    true,
  );
  const problems = [
    ...result.diagnostics,
    ...ts.getPreEmitDiagnostics(
      program,
      source,
    ),
  ];
  if (problems.length > 0 || text === undefined) {
    throw new Error(
      `contract/client/${ENTRY} does not compile:\n${
        ts.formatDiagnostics(problems, {
          getCanonicalFileName: (name) => name,
          getCurrentDirectory: () => path_of(ROOT),
          getNewLine: () => "\n",
        })
      }`,
    );
  }
  return text;
}

/** The package refers to its own modules by their published `.js` names. */
function relative_imports_as_js(text: string): string {
  return text.replace(
    /(from\s+["']\.{1,2}\/[^"']+)\.ts(["'])/g,
    "$1.js$2",
  );
}

/** The `@trpc/*` versions the service runs, pinned in `deno.json`. */
async function pinned_version(name: string): Promise<string> {
  const config = JSON.parse(
    await Deno.readTextFile(new URL("deno.json", ROOT)),
  );
  const specifier: string | undefined = config.imports?.[name];
  const version = specifier?.match(/^npm:(?:@[^/]+\/)?[^@]+@(.+)$/)?.[1];
  if (!version) throw new Error(`deno.json pins no npm version of ${name}`);
  return version;
}

async function package_json(): Promise<Record<string, unknown>> {
  const openapi = JSON.parse(
    await Deno.readTextFile(new URL("openapi/openapi.json", ROOT)),
  );
  return {
    name: PACKAGE_NAME,
    version: openapi.info.version,
    description: "Typed client of the Ink invoice service (tRPC and REST).",
    license: "UNLICENSED",
    type: "module",
    sideEffects: false,
    exports: { ".": { types: "./mod.d.ts", default: "./mod.js" } },
    types: "./mod.d.ts",
    files: ["mod.js", "mod.d.ts", "router_types.d.ts", "README.md"],
    engines: { node: ">=18" },
    dependencies: { "@trpc/client": await pinned_version("@trpc/client") },
    // Types only: `@trpc/client` needs it as its own peer, and the router
    // type is declared with its generics.
    peerDependencies: { "@trpc/server": await pinned_version("@trpc/server") },
  };
}

if (import.meta.main) {
  const built = await build_client_package();
  const total = Object.values(built.files).reduce((sum, n) => sum + n, 0);
  console.log(
    `${PACKAGE_NAME}: ${path_of(built.dir)} (${
      Object.entries(built.files).map(([name, size]) => `${name} ${size} B`)
        .join(", ")
    }; ${total} B)`,
  );
}
