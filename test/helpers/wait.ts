/** Waiting in node tests for what another process, thread or timer does. */
import assert from 'node:assert/strict'

/**
 * The first value `probe` gives that is not undefined, asked again every `everyMs`; fails the test, naming
 * `what`, once `timeoutMs` has passed without one.
 */
export async function until<T>(
  what: string,
  timeoutMs: number,
  probe: () => Promise<T | undefined> | T | undefined,
  everyMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const v = await probe()
    if (v !== undefined) return v
    if (Date.now() > deadline) assert.fail(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((r) => setTimeout(r, everyMs))
  }
}
