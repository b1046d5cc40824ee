import { homeAt } from "../../core/home.ts";
import { createRedactor } from "../../core/secrets.ts";
import { openDatabase } from "../../core/storage/db.ts";
import { MessageStore } from "../../core/storage/messages.ts";
import { SessionStore } from "../../core/storage/sessions.ts";
import { FakeClock } from "./fake_clock.ts";
import { testIds } from "./db.ts";

/** A small history in `home`: two projects, three sessions. Returns the session ids. */
export async function seedHistory(
  home: string,
  options: { projectA: string; projectB: string; clock?: FakeClock },
): Promise<{ login: string; cache: string; other: string }> {
  const clock = options.clock ?? new FakeClock();
  const db = await openDatabase({ home: homeAt(home), clock, redactor: createRedactor() });
  try {
    const sessions = new SessionStore(db, testIds(clock, 99));
    const messages = new MessageStore(db);
    const login = sessions.create({ projectPath: options.projectA, title: "Fix the login test" });
    messages.append(login.id, [
      { role: "user", text: "The login test times out" },
      { role: "assistant", text: "Raised the timeout in auth.ts; the login test passes." },
    ]);
    clock.advance(60_000);
    const cache = sessions.create({ projectPath: options.projectA, title: "Add a cache" });
    messages.append(cache.id, [{ role: "user", text: "Add an LRU cache to the resolver" }]);
    clock.advance(60_000);
    const other = sessions.create({ projectPath: options.projectB, title: "其他项目" });
    messages.append(other.id, [{ role: "user", text: "在另一个项目里写文档" }]);
    return { login: login.id, cache: cache.id, other: other.id };
  } finally {
    db.close();
  }
}
