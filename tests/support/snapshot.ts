import assert from "node:assert/strict";

const DIR = new URL("../fixtures/snapshots/", import.meta.url);

/**
 * Compares `actual` with the stored snapshot `name`. With UPDATE_SNAPSHOTS=1 the snapshot is
 * (re)written instead; a missing snapshot fails, so CI never records its own expectations.
 */
export async function assertSnapshot(name: string, actual: string): Promise<void> {
  const url = new URL(`${name}.txt`, DIR);
  if (Deno.env.get("UPDATE_SNAPSHOTS") === "1") {
    await Deno.writeTextFile(url, actual);
    return;
  }
  let expected: string;
  try {
    expected = await Deno.readTextFile(url);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      assert.fail(
        `snapshot ${name} is missing: run the test with UPDATE_SNAPSHOTS=1 and review it`,
      );
    }
    throw err;
  }
  assert.equal(actual, expected, `snapshot ${name} differs (UPDATE_SNAPSHOTS=1 rewrites it)`);
}
