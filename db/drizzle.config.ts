/**
 * drizzle-kit's configuration, read by `deno task db:generate` only (run
 * from the repository's root): the schema in `schema.ts`, the migrations in
 * `migrations/`. See `README.md` beside this file.
 *
 * @module
 */
export default {
  dialect: "postgresql",
  schema: "./db/schema.ts",
  out: "./db/migrations",
};
