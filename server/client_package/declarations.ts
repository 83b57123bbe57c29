/**
 * Prints the types the client package names as plain TypeScript
 * declarations: every procedure's input and output spelled out as the
 * compiler infers them from the zod schemas, and a router type that
 * `@trpc/client` accepts. The printed file needs neither zod nor the server.
 *
 * It reads the router through `@trpc/server`'s internal type shape
 * (`_def.record`, `_def.$types`, `_def._config.$types.errorShape`) and
 * nowhere else; `tests/contract/client_package.test.ts` proves the printed router
 * equal to the contract's for the pinned `@trpc/server`.
 *
 * @module
 */
import ts from "typescript";

/** Thrown when a type cannot be spelled out without the server's packages. */
export class DeclarationError extends Error {}

/** Name of the router type among the printed exports. */
export const ROUTER_TYPE = "AppRouter";
/** Name the printed file gives the router's tRPC error shape. */
export const ERROR_SHAPE_TYPE = "TrpcErrorShape";

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const INDENT = "  ";

/** Procedure kinds, as `_def.type` says them, and the `@trpc/server` type of each. */
const PROCEDURE_TYPES: Record<string, string> = {
  query: "TRPCQueryProcedure",
  mutation: "TRPCMutationProcedure",
  subscription: "TRPCSubscriptionProcedure",
};

/**
 * The declarations of every type `entry` exports: `AppRouter` as a tRPC
 * router of plain types, every other export as a plain type alias. A type
 * printed once under its own name is referred to by that name elsewhere.
 */
export function print_declarations(
  program: ts.Program,
  entry: string,
): string {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(entry);
  if (!source) throw new DeclarationError(`${entry} is not in the program`);
  const module_symbol = checker.getSymbolAtLocation(source);
  if (!module_symbol) throw new DeclarationError(`${entry} exports nothing`);

  const exports = checker.getExportsOfModule(module_symbol).map((symbol) => {
    const target = symbol.flags & ts.SymbolFlags.Alias
      ? checker.getAliasedSymbol(symbol)
      : symbol;
    return {
      name: symbol.name,
      type: checker.getDeclaredTypeOfSymbol(target),
      doc: ts.displayPartsToString(target.getDocumentationComment(checker)),
    };
  });
  const names = new Map<ts.Type, string>();
  for (const { name, type } of exports) {
    if (name !== ROUTER_TYPE && !names.has(type)) names.set(type, name);
  }
  const printer = type_printer(checker, names);
  const router = exports.find(({ name }) => name === ROUTER_TYPE);
  if (!router) {
    throw new DeclarationError(`${entry} does not export ${ROUTER_TYPE}`);
  }

  const blocks: string[] = [];
  for (const { name, type, doc } of exports) {
    if (name === ROUTER_TYPE) continue;
    blocks.push(
      `${js_doc(doc)}export type ${name} = ${
        printer.print(type, name, 0, true)
      };`,
    );
  }
  const generics = new Set(["TRPCBuiltRouter"]);
  blocks.push(
    ...print_router(checker, printer, router.type, router.doc, generics),
  );
  blocks.unshift(
    `import type {\n${
      [...generics].sort().map((name) => `${INDENT}${name},\n`).join("")
    }} from "@trpc/server";`,
  );
  return blocks.join("\n\n") + "\n";
}

function js_doc(text: string): string {
  if (!text.trim()) return "";
  const lines = text.trim().split("\n").map((line) =>
    ` *${line ? " " : ""}${line.replaceAll("*/", "*\\/")}`
  );
  return `/**\n${lines.join("\n")}\n */\n`;
}

function property_type(
  checker: ts.TypeChecker,
  type: ts.Type,
  name: string,
): ts.Type | undefined {
  const property = checker.getPropertyOfType(type, name);
  return property ? checker.getTypeOfSymbol(property) : undefined;
}

function required_property(
  checker: ts.TypeChecker,
  type: ts.Type,
  path: string[],
): ts.Type {
  let current = type;
  for (const name of path) {
    const next = property_type(checker, current, name);
    if (!next) {
      throw new DeclarationError(
        `the router type has no ${
          path.join(".")
        }: is @trpc/server's router shape unchanged?`,
      );
    }
    current = next;
  }
  return current;
}

/** The error shape, then `AppRouter` over the router's record of procedures. */
function print_router(
  checker: ts.TypeChecker,
  printer: TypePrinter,
  router: ts.Type,
  doc: string,
  generics: Set<string>,
): string[] {
  const error_shape = required_property(checker, router, [
    "_def",
    "_config",
    "$types",
    "errorShape",
  ]);
  const record = required_property(checker, router, ["_def", "record"]);
  const root = [
    "ctx: object;",
    "meta: object;",
    `errorShape: ${ERROR_SHAPE_TYPE};`,
    "transformer: false;",
  ].map((line) => INDENT.repeat(2) + line).join("\n");
  return [
    `/** The shape of the router's tRPC errors: the service's code, status and details are in \`data\`. */\nexport type ${ERROR_SHAPE_TYPE} = ${
      printer.print(error_shape, ERROR_SHAPE_TYPE, 0)
    };`,
    `${
      js_doc(doc)
    }export type ${ROUTER_TYPE} = TRPCBuiltRouter<\n${INDENT}{\n${root}\n${INDENT}},\n${INDENT}${
      print_record(checker, printer, record, ROUTER_TYPE, 1, generics)
    }\n>;`,
  ];
}

/** A record of procedures and nested records, as `TRPCBuiltRouter` takes it. */
function print_record(
  checker: ts.TypeChecker,
  printer: TypePrinter,
  record: ts.Type,
  path: string,
  depth: number,
  generics: Set<string>,
): string {
  const inner = INDENT.repeat(depth + 1);
  const lines = checker.getPropertiesOfType(record).map((property) => {
    const name = property_key(property.name);
    const at = `${path}.${property.name}`;
    const type = checker.getTypeOfSymbol(property);
    const definition = property_type(checker, type, "_def");
    const kind = definition && property_type(checker, definition, "type");
    if (definition && property_type(checker, definition, "procedure")) {
      const procedure = kind?.isStringLiteral() ? kind.value : "";
      const generic = PROCEDURE_TYPES[procedure];
      if (!generic) {
        throw new DeclarationError(`${at}: unknown procedure kind`);
      }
      generics.add(generic);
      const types = required_property(checker, definition, ["$types"]);
      const input = required_property(checker, types, ["input"]);
      const output = required_property(checker, types, ["output"]);
      const fields = [
        `input: ${printer.print(input, `${at} input`, depth + 2)};`,
        `output: ${printer.print(output, `${at} output`, depth + 2)};`,
        "meta: object;",
        `errorShape: ${ERROR_SHAPE_TYPE};`,
      ].map((line) => INDENT.repeat(depth + 2) + line).join("\n");
      return `${inner}${name}: ${generic}<{\n${fields}\n${inner}}>;`;
    }
    const nested = definition && property_type(checker, definition, "record");
    return `${inner}${name}: ${
      print_record(checker, printer, nested ?? type, at, depth + 1, generics)
    };`;
  });
  return `{\n${lines.join("\n")}\n${INDENT.repeat(depth)}}`;
}

function property_key(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

interface TypePrinter {
  /**
   * `type` spelled out at indentation `depth`; `path` names the place for
   * errors. With `own_name` the type itself is not replaced by its name.
   */
  print(type: ts.Type, path: string, depth: number, own_name?: boolean): string;
}

/** Spells types out structurally: literals, unions, arrays, tuples, objects. */
function type_printer(
  checker: ts.TypeChecker,
  names: Map<ts.Type, string>,
): TypePrinter {
  return new StructuralPrinter(checker, names);
}

/** Flags of the types the compiler spells out as they are. */
const PLAIN_TYPE_FLAGS = ts.TypeFlags.NumberLiteral |
  ts.TypeFlags.BooleanLiteral | ts.TypeFlags.BigIntLiteral |
  ts.TypeFlags.TemplateLiteral | ts.TypeFlags.String | ts.TypeFlags.Number |
  ts.TypeFlags.Boolean | ts.TypeFlags.BigInt | ts.TypeFlags.Null |
  ts.TypeFlags.Undefined | ts.TypeFlags.Void | ts.TypeFlags.Never |
  ts.TypeFlags.Unknown;

class StructuralPrinter implements TypePrinter {
  /** Object types being printed, to catch a type that contains itself. */
  readonly #open = new Set<ts.Type>();

  constructor(
    readonly checker: ts.TypeChecker,
    readonly names: Map<ts.Type, string>,
  ) {}

  print(type: ts.Type, path: string, depth: number, own_name = false): string {
    const name = own_name ? undefined : this.names.get(type);
    if (name) return name;
    const flags = type.flags;
    if (flags & ts.TypeFlags.Any) {
      throw new DeclarationError(
        `${path} is \`any\`: a type the compiler could not resolve (is every package of the contract installed?)`,
      );
    }
    if (flags & ts.TypeFlags.Union) {
      return this.#print_union(type as ts.UnionType, path, depth);
    }
    if (flags & ts.TypeFlags.Intersection) {
      return this.#print_intersection(
        type as ts.IntersectionType,
        path,
        depth,
      );
    }
    if (flags & ts.TypeFlags.StringLiteral) {
      return JSON.stringify((type as ts.StringLiteralType).value);
    }
    if (flags & PLAIN_TYPE_FLAGS) return this.checker.typeToString(type);
    if (flags & ts.TypeFlags.Object) {
      return this.#print_object(type, path, depth);
    }
    throw new DeclarationError(
      `${path}: cannot spell out \`${this.checker.typeToString(type)}\``,
    );
  }

  /**
   * Members of a named union print as its name (`format?: InvoiceFormat`),
   * `true | false` as `boolean`, and `null` and `undefined` come last.
   */
  #print_union(type: ts.UnionType, path: string, depth: number): string {
    let members = type.types;
    const printed: string[] = [];
    for (const [named, name] of this.names) {
      if (!(named.flags & ts.TypeFlags.Union)) continue;
      const inner = (named as ts.UnionType).types;
      if (
        inner.length < members.length &&
        inner.every((member) => members.includes(member))
      ) {
        printed.push(name);
        members = members.filter((member) => !inner.includes(member));
      }
    }
    const has_true = members.some((member) => this.#is_boolean(member, "true"));
    const has_false = members.some((member) =>
      this.#is_boolean(member, "false")
    );
    const nullish: string[] = [];
    for (const member of members) {
      if (has_true && has_false && member.flags & ts.TypeFlags.BooleanLiteral) {
        if (!printed.includes("boolean")) printed.push("boolean");
      } else if (member.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined)) {
        nullish.unshift(this.checker.typeToString(member));
      } else {
        printed.push(wrap(this.print(member, path, depth)));
      }
    }
    return [...printed, ...nullish].join(" | ");
  }

  #is_boolean(type: ts.Type, value: string): boolean {
    return (type.flags & ts.TypeFlags.BooleanLiteral) !== 0 &&
      this.checker.typeToString(type) === value;
  }

  /** Object types merge into one object; any other member stays an `&`. */
  #print_intersection(
    type: ts.IntersectionType,
    path: string,
    depth: number,
  ): string {
    const members = type.types;
    if (members.every((member) => member.flags & ts.TypeFlags.Object)) {
      return this.#print_object(type, path, depth);
    }
    return members.map((member) => wrap(this.print(member, path, depth)))
      .join(" & ");
  }

  #print_object(type: ts.Type, path: string, depth: number): string {
    if (this.checker.isArrayType(type)) {
      const [element] = this.checker.getTypeArguments(type as ts.TypeReference);
      const readonly = type.symbol?.name === "ReadonlyArray" ? "readonly " : "";
      return `${readonly}${wrap(this.print(element, `${path}[]`, depth))}[]`;
    }
    if (this.checker.isTupleType(type)) {
      return this.#print_tuple(type, path, depth);
    }
    if (
      type.getCallSignatures().length > 0 ||
      type.getConstructSignatures().length > 0
    ) {
      throw new DeclarationError(
        `${path} is a function, which JSON cannot carry`,
      );
    }
    if (this.#open.has(type)) {
      throw new DeclarationError(
        `${path} refers to itself; export it under a name to print it`,
      );
    }
    this.#open.add(type);
    try {
      return this.#print_members(type, path, depth);
    } finally {
      this.#open.delete(type);
    }
  }

  /** An object type's index signatures and properties, one a line. */
  #print_members(type: ts.Type, path: string, depth: number): string {
    const checker = this.checker;
    const inner = INDENT.repeat(depth + 1);
    const lines = checker.getIndexInfosOfType(type).map((info) =>
      `${inner}${info.isReadonly ? "readonly " : ""}[key: ${
        checker.typeToString(info.keyType)
      }]: ${this.print(info.type, `${path}[key]`, depth + 1)};`
    );
    for (const property of checker.getPropertiesOfType(type)) {
      if (property.name.startsWith("__@")) {
        throw new DeclarationError(
          `${path}: symbol-keyed property ${property.name}`,
        );
      }
      const optional = property.flags & ts.SymbolFlags.Optional ? "?" : "";
      lines.push(
        `${inner}${property_key(property.name)}${optional}: ${
          this.print(
            checker.getTypeOfSymbol(property),
            `${path}.${property.name}`,
            depth + 1,
          )
        };`,
      );
    }
    if (lines.length === 0) return "{}";
    return `{\n${lines.join("\n")}\n${INDENT.repeat(depth)}}`;
  }

  #print_tuple(type: ts.Type, path: string, depth: number): string {
    const target = (type as ts.TupleTypeReference).target;
    const elements = this.checker.getTypeArguments(type as ts.TypeReference)
      .map((element, index) => {
        const flag = target.elementFlags[index];
        const printed = this.print(element, `${path}[${index}]`, depth);
        if (flag & ts.ElementFlags.Rest) return `...${wrap(printed)}[]`;
        if (flag & ts.ElementFlags.Optional) return `${wrap(printed)}?`;
        return printed;
      });
    return `${target.readonly ? "readonly " : ""}[${elements.join(", ")}]`;
  }
}

/** Parenthesises a top-level union or intersection, which would not bind to `[]`, `|` or `&`. */
function wrap(printed: string): string {
  let nesting = 0;
  let quoted = false;
  for (let index = 0; index < printed.length; index++) {
    const char = printed[index];
    if (quoted) {
      if (char === "\\") index += 1;
      else if (char === '"') quoted = false;
    } else if (char === '"') quoted = true;
    else if ("{[(<".includes(char)) nesting += 1;
    else if ("}])>".includes(char)) nesting -= 1;
    else if (nesting === 0 && (char === "|" || char === "&")) {
      return `(${printed})`;
    }
  }
  return printed;
}
