import assert from "node:assert/strict";
import {
  LIVE_WINDOW_MS,
  liveElsewhere,
  type LivenessFacts,
  ownerAlive,
} from "../../../core/session/liveness.ts";

const NOW = 1_000_000;
const row = (patch: Partial<LivenessFacts>): LivenessFacts => ({
  status: "active",
  heartbeatAt: NOW - 1_000,
  createdAt: NOW - 60_000,
  ownerPid: 42,
  ownerHost: "here",
  ...patch,
});
const me = { pid: 7, host: "here" };

Deno.test("the liveness rule: heartbeat within 15 s, owner not known dead, not this process", async (t) => {
  const cases: [string, LivenessFacts, boolean | null, boolean][] = [
    ["fresh heartbeat, owner may be alive", row({}), null, true],
    ["fresh heartbeat, owner alive", row({}), true, true],
    ["fresh heartbeat, owner dead (kill -9 a second ago)", row({}), false, false],
    [
      "heartbeat just inside the window",
      row({ heartbeatAt: NOW - LIVE_WINDOW_MS + 1 }),
      null,
      true,
    ],
    ["heartbeat just outside the window", row({ heartbeatAt: NOW - LIVE_WINDOW_MS }), null, false],
    ["stale heartbeat, owner alive (suspended)", row({ heartbeatAt: NOW - 20_000 }), true, false],
    [
      "no heartbeat yet, created just now",
      row({ heartbeatAt: null, createdAt: NOW - 10 }),
      null,
      true,
    ],
    ["no heartbeat, created long ago", row({ heartbeatAt: null }), null, false],
    [
      "no heartbeat and no owner",
      row({ heartbeatAt: null, ownerPid: null, createdAt: NOW }),
      null,
      false,
    ],
    ["completed", row({ status: "completed" }), true, false],
    ["interrupted", row({ status: "interrupted" }), true, false],
    ["owned by this process", row({ ownerPid: 7 }), true, false],
    ["same pid on another host", row({ ownerPid: 7, ownerHost: "there" }), null, true],
  ];
  for (const [name, facts, alive, expected] of cases) {
    await t.step(name, () => {
      const probe = () => alive;
      assert.equal(liveElsewhere(facts, NOW, me, probe), expected);
      if (facts.ownerPid !== me.pid) assert.equal(ownerAlive(facts, NOW, probe), expected);
    });
  }
});
