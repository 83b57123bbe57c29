/**
 * The migrations and their tooling: the journal, the SQL files and the
 * snapshots agree (drizzle-kit numbers a new migration after the last
 * journal entry's `idx`), and `deno task db:generate` finds nothing to do for
 * the schema as committed and turns a schema change into the next migration
 * without touching the existing ones.
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { CHECKOUT_DIR } from "../helpers/service_process.ts";

const MIGRATIONS = `${CHECKOUT_DIR}db/migrations`;

interface JournalEntry {
  idx: number;
  when: number;
  tag: string;
}

function read_journal(dir = MIGRATIONS): JournalEntry[] {
  return JSON.parse(Deno.readTextFileSync(`${dir}/meta/_journal.json`))
    .entries;
}

function snapshot_ids(dir: string, number: string) {
  const snapshot = JSON.parse(
    Deno.readTextFileSync(`${dir}/meta/${number}_snapshot.json`),
  );
  return { id: snapshot.id as string, prev_id: snapshot.prevId as string };
}

Deno.test("migrations: each journal entry's number, SQL file and snapshot agree, in order", () => {
  const entries = read_journal();
  let previous = {
    idx: -1,
    when: 0,
    id: "00000000-0000-0000-0000-000000000000",
  };
  for (const entry of entries) {
    const number = /^(\d{4})_[a-z0-9_]+$/.exec(entry.tag)?.[1];
    assert(number !== undefined, `tag ${entry.tag}`);
    // drizzle-kit names the next migration after the last idx + 1.
    assertEquals(Number(number), entry.idx, `idx of ${entry.tag}`);
    assert(entry.idx > previous.idx, `${entry.tag} after ${previous.idx}`);
    // The migrator applies what is newer than the last applied `when`.
    assert(entry.when > previous.when, `when of ${entry.tag}`);
    assert(Deno.statSync(`${MIGRATIONS}/${entry.tag}.sql`).isFile);
    const { id, prev_id } = snapshot_ids(MIGRATIONS, number);
    assertEquals(prev_id, previous.id, `snapshot ${number} follows the last`);
    previous = { idx: entry.idx, when: entry.when, id };
  }
  const files = [...Deno.readDirSync(MIGRATIONS)]
    .filter((entry) => entry.name.endsWith(".sql"))
    .map((entry) => entry.name.replace(/\.sql$/, ""))
    .sort();
  assertEquals(files, entries.map((entry) => entry.tag));
});

async function copy_tree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (entry.isDirectory) {
      await copy_tree(`${from}/${entry.name}`, `${to}/${entry.name}`);
    } else await Deno.copyFile(`${from}/${entry.name}`, `${to}/${entry.name}`);
  }
}

async function db_generate(dir: string, ...args: string[]): Promise<string> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["task", "db:generate", ...args],
    cwd: dir,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(output.stdout) +
    new TextDecoder().decode(output.stderr);
  assert(output.success, `deno task db:generate failed:\n${text}`);
  return text;
}

Deno.test("migrations: deno task db:generate reproduces the committed snapshot and numbers the next migration", async () => {
  // A copy of what the task reads, so that nothing is written here.
  const dir = await Deno.makeTempDir({ prefix: "db-generate-" });
  try {
    for (const file of ["deno.json", "deno.lock"]) {
      await Deno.copyFile(`${CHECKOUT_DIR}${file}`, `${dir}/${file}`);
    }
    await copy_tree(`${CHECKOUT_DIR}db`, `${dir}/db`);
    assertMatch(
      await db_generate(dir),
      /No schema changes, nothing to migrate/,
    );

    const entries = read_journal();
    const last = entries.at(-1)!;
    const last_number = String(last.idx).padStart(4, "0");
    const next_number = String(last.idx + 1).padStart(4, "0");
    await Deno.writeTextFile(
      `${dir}/db/schema.ts`,
      `
import { integer as probe_integer, pgTable as probe_table } from "drizzle-orm/pg-core";
/** A table only this test adds. */
export const migration_probe = probe_table("migration_probe", {
  id: probe_integer("id").primaryKey(),
});
`,
      { append: true },
    );
    await db_generate(dir, "--name=migration_probe");
    const written = `${dir}/db/migrations/${next_number}_migration_probe.sql`;
    assertMatch(
      await Deno.readTextFile(written),
      /^CREATE TABLE "migration_probe" \(\n\t"id" integer PRIMARY KEY NOT NULL\n\);\s*$/,
    );
    const after = read_journal(`${dir}/db/migrations`);
    assertEquals(after.slice(0, -1), entries);
    assertEquals(after.at(-1)?.tag, `${next_number}_migration_probe`);
    assertEquals(after.at(-1)?.idx, last.idx + 1);
    // The last committed snapshot is left as it was; the new one follows it.
    assertEquals(
      await Deno.readTextFile(
        `${dir}/db/migrations/meta/${last_number}_snapshot.json`,
      ),
      await Deno.readTextFile(
        `${MIGRATIONS}/meta/${last_number}_snapshot.json`,
      ),
    );
    assertEquals(
      snapshot_ids(`${dir}/db/migrations`, next_number).prev_id,
      snapshot_ids(MIGRATIONS, last_number).id,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
