/**
 * How long a test waits for what another process, a port, a thread or a browser does: every such limit is
 * written for a quiet two-core machine and multiplied here by one factor, so a busy machine (a build beside
 * the run, a seller's shared CI runner) makes the tests slower, never red.
 *
 * The factor is TEST_PATIENCE when set (test/run-node.ts measures the machine once, before any suite starts,
 * and gives its figure to every suite and every process they start, so all agree), else measured here.
 */
import { createHash } from 'node:crypto'
import { availableParallelism, loadavg } from 'node:os'

/** A fixed piece of CPU work: about 20 ms on this project's quiet two-core CI machine (median of five). */
const REFERENCE_MS = 20
const MAX = 10

function workMs(): number {
  const start = process.hrtime.bigint()
  let h = Buffer.alloc(32)
  for (let i = 0; i < 20_000; i++) h = createHash('sha256').update(h).digest()
  return Number(process.hrtime.bigint() - start) / 1e6
}

/**
 * How much slower than the reference this machine is now: the median time of the fixed work (what a busy
 * CPU takes from us at once), and the load average per core (what was busy over the last minute, which the
 * work alone misses when a hog pauses between bursts); the larger, at least 1, at most 10.
 */
export function measurePatience(): number {
  workMs() // the first run pays for the JIT
  const runs = Array.from({ length: 5 }, workMs).sort((a, b) => a - b)
  const byWork = runs[2]! / REFERENCE_MS
  const byLoad = loadavg()[0]! / availableParallelism()
  return Math.min(MAX, Math.max(1, byWork, byLoad))
}

const given = Number(process.env.TEST_PATIENCE)
/** The factor every wait is multiplied by. */
export const PATIENCE = Number.isFinite(given) && given >= 1 ? given : measurePatience()

/** `ms`, a limit written for a quiet machine, on this one. */
export const patience = (ms: number): number => Math.round(ms * PATIENCE)
