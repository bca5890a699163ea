/** Waiting in node tests for what another process, thread or timer does. */
import assert from 'node:assert/strict'
import { patience } from './patience.ts'

/**
 * The first value `probe` gives that is not undefined, asked again every `everyMs`; fails the test, naming
 * `what`, once `timeoutMs` (a quiet machine's limit, scaled by patience()) has passed without one.
 */
export async function until<T>(
  what: string | (() => string),
  timeoutMs: number,
  probe: () => Promise<T | undefined> | T | undefined,
  everyMs = 20,
): Promise<T> {
  const limit = patience(timeoutMs)
  const deadline = Date.now() + limit
  for (;;) {
    const v = await probe()
    if (v !== undefined) return v
    if (Date.now() > deadline)
      assert.fail(`timed out after ${limit} ms waiting for ${typeof what === 'string' ? what : what()}`)
    await new Promise((r) => setTimeout(r, everyMs))
  }
}
