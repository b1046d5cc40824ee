// Run as a subprocess by tests: opens the database at argv[0] with the bundled migrations
// plus one extra test migration, so an upgrade (and its backup) happens in a fresh process
// with whatever umask the test chose.
import { MIGRATIONS } from "../../migrations/mod.ts";
import { systemClock } from "../../core/clock.ts";
import { homeAt } from "../../core/home.ts";
import { createRedactor } from "../../core/secrets.ts";
import { openDatabase } from "../../core/storage/db.ts";

const [home, mode] = Deno.args;
const migrations = mode === "upgrade"
  ? [...MIGRATIONS, {
    version: MIGRATIONS.length + 1,
    name: "9999_test_extra",
    sql: "CREATE TABLE extra (x);",
  }]
  : MIGRATIONS;
const db = await openDatabase({
  home: homeAt(home!),
  clock: systemClock,
  redactor: createRedactor(),
  migrations,
});
db.close();
