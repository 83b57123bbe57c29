/**
 * Checks recorded REST answers against an OpenAPI 3.1 document: the
 * operation exists, the status is listed, the content type is listed, every
 * required header is present and valid, and the body is valid against the
 * schema (ajv, JSON Schema 2020-12, which OpenAPI 3.1 schemas are).
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import add_formats from "ajv-formats";
import type { RecordedAnswer } from "./rest_recorder.ts";

type Json = Record<string, unknown>;

/** Loads the committed `openapi/openapi.json`. */
export async function committed_document(): Promise<Json> {
  return JSON.parse(
    await Deno.readTextFile(
      new URL("../../openapi/openapi.json", import.meta.url),
    ),
  );
}

const DOCUMENT_ID = "openapi.json";

/** JSON pointer segment escaping (RFC 6901). */
function pointer(...segments: string[]): string {
  return segments.map((segment) =>
    segment.replaceAll("~", "~0").replaceAll("/", "~1")
  ).join("/");
}

/** The media type without parameters, lower case. */
function essence(content_type: string): string {
  return content_type.split(";")[0].trim().toLowerCase();
}

/** The listed content type an answer's `Content-Type` matches, if any. */
function listed_type(
  listed: string[],
  actual: string,
): string | undefined {
  const normal = (text: string) => text.toLowerCase().replace(/\s+/g, "");
  return listed.find((key) => normal(key) === normal(actual)) ??
    listed.find((key) =>
      !key.includes(";") && essence(key) === essence(actual)
    );
}

/** A checker of answers against one document. */
export function answer_checker(document: Json) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  // deno-lint-ignore no-explicit-any
  (add_formats as any)(ajv);
  ajv.addSchema(document, DOCUMENT_ID);
  const paths = document.paths as Record<string, Record<string, Json>>;
  const headers = ((document.components as Json).headers ?? {}) as Record<
    string,
    Json
  >;
  const templates = Object.keys(paths).map((template) => ({
    template,
    pattern: new RegExp(
      `^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`,
    ),
  }));

  function resolve_header(header: Json): Json {
    const ref = header.$ref as string | undefined;
    if (!ref) return header;
    return headers[ref.slice("#/components/headers/".length)];
  }

  function schema_problems(location: string, value: unknown): string[] {
    const validate = ajv.compile({ $ref: `${DOCUMENT_ID}#/${location}` });
    if (validate(value)) return [];
    return (validate.errors ?? []).map((error) =>
      `${error.instancePath || "(root)"} ${error.message}`
    );
  }

  /**
   * A method the path does not serve: 405 with the document's methods in
   * `Allow` (`/generate` also answers OPTIONS) and an `Error` body.
   */
  function method_not_allowed(
    template: string,
    answer: RecordedAnswer,
  ): string[] {
    const methods = Object.keys(paths[template]).map((name) =>
      name.toUpperCase()
    );
    if (template === "/generate") methods.push("OPTIONS");
    const allow = answer.headers.get("allow") ?? "";
    const problems = allow.split(/,\s*/).sort().join() === methods.sort().join()
      ? []
      : [`Allow: ${allow} is not ${methods.join(", ")}`];
    if (essence(answer.content_type ?? "") !== "application/json") {
      return [...problems, `content type ${answer.content_type}`];
    }
    const body = JSON.parse(new TextDecoder().decode(answer.body));
    return [...problems, ...schema_problems("components/schemas/Error", body)];
  }

  /** Every way the answer departs from the document (empty: it matches). */
  return function check(answer: RecordedAnswer): string[] {
    const found = templates.find(({ pattern }) => pattern.test(answer.path));
    const method = answer.method.toLowerCase();
    const operation = found && paths[found.template][method];
    if (found && !operation && answer.status === 405) {
      return method_not_allowed(found.template, answer);
    }
    if (!found || !operation) {
      return [`no operation ${answer.method} ${answer.path} in the document`];
    }
    const responses = operation.responses as Record<string, Json>;
    const status = String(answer.status);
    const response = responses[status] ?? responses.default;
    if (!response) return [`status ${status} is not listed`];
    const problems: string[] = [];
    const response_path = pointer(
      "paths",
      found.template,
      method,
      "responses",
      responses[status] ? status : "default",
    );
    for (
      const [name, declared] of Object.entries(
        (response.headers ?? {}) as Record<string, Json>,
      )
    ) {
      const header = resolve_header(declared);
      const value = answer.headers.get(name);
      if (value === null) {
        if (header.required) problems.push(`header ${name} is missing`);
        continue;
      }
      const schema = header.schema as Json;
      const typed = schema.type === "integer" && /^-?\d+$/.test(value)
        ? Number(value)
        : value;
      const header_path = (declared.$ref as string | undefined)?.slice(2) ??
        `${response_path}/headers/${pointer(name)}`;
      for (const problem of schema_problems(`${header_path}/schema`, typed)) {
        problems.push(`header ${name}: ${value}: ${problem}`);
      }
    }
    const content = (response.content ?? {}) as Record<string, Json>;
    if (Object.keys(content).length === 0) {
      if (answer.body.length > 0) problems.push("a body where none is listed");
      return problems;
    }
    const media = listed_type(Object.keys(content), answer.content_type ?? "");
    if (!media) {
      problems.push(
        `content type ${answer.content_type} is not among ${
          Object.keys(content).join(", ")
        }`,
      );
      return problems;
    }
    const schema_location = `${response_path}/content/${pointer(media)}/schema`;
    const text = new TextDecoder().decode(answer.body);
    if (essence(media) === "application/json") {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        return [...problems, "the body is not JSON"];
      }
      problems.push(...schema_problems(schema_location, value));
    } else if (essence(media) === "application/pdf") {
      if (!text.startsWith("%PDF-")) problems.push("the body is not a PDF");
    } else if (essence(media).endsWith("/xml")) {
      if (!text.startsWith("<?xml")) problems.push("the body is not XML");
      problems.push(...schema_problems(schema_location, text));
    }
    return problems;
  };
}
