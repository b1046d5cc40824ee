import assert from "node:assert/strict";
import { BonsaiError, type ErrorCode } from "../../core/errors.ts";

/** Awaits `fn`, asserts it fails with a BonsaiError of `code`, and returns that error. */
export async function rejectsWith(
  fn: () => Promise<unknown>,
  code: ErrorCode,
): Promise<BonsaiError> {
  try {
    await fn();
  } catch (err) {
    assert.ok(err instanceof BonsaiError, `expected BonsaiError ${code}, got ${err}`);
    assert.equal(err.code, code, err.message);
    return err;
  }
  assert.fail(`expected a BonsaiError ${code}, but nothing was thrown`);
}

/** Like rejectsWith, for synchronous code. */
export function throwsWith(fn: () => unknown, code: ErrorCode): BonsaiError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof BonsaiError, `expected BonsaiError ${code}, got ${err}`);
    assert.equal(err.code, code, err.message);
    return err;
  }
  assert.fail(`expected a BonsaiError ${code}, but nothing was thrown`);
}
