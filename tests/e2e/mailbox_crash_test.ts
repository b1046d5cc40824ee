// P3 with real processes: a sender or a consumer killed with SIGKILL at any point of a
// delivery (before and after its lease, after the acknowledgement and after the effect
// inside the transaction, after the commit, or at random) loses no message and applies
// none twice. `deno task bench peers` runs 1,000 of these trials.
import assert from "node:assert/strict";
import { KILL_POINTS, runMailTrials } from "../../scripts/lib/mail_trials.ts";
import { tempDir } from "../support/temp.ts";

Deno.test("mailbox: kill -9 the sender or the consumer at every point of a delivery; nothing is dropped or applied twice", async () => {
  await using dir = await tempDir();
  const trials = 3 * KILL_POINTS.length;
  const report = await runMailTrials({ home: dir.path, trials, seed: 13 });
  assert.deepEqual(report.problems, []);
  assert.equal(report.trials, trials);
  for (const point of KILL_POINTS) assert.equal(report.by_kill_point[point], 3, point);
  assert.ok(report.messages_sent >= trials * 3, `${report.messages_sent} messages sent`);
  assert.equal(report.dropped, 0);
  assert.equal(report.applied_twice, 0);
  assert.equal(report.unacknowledged, 0);
  // Killing a consumer after it leased a delivery and before its commit means that
  // delivery came again: the trials really crashed mid-delivery.
  assert.ok(report.redeliveries >= 6, `${report.redeliveries} redeliveries`);
});
