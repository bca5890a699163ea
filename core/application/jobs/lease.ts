/**
 * A claimed job's lease, held for as long as its run goes on: renewed every third of its length, so a run
 * slower than the lease (a supplier answering slowly) is not claimed again by another worker, and checked
 * right before anything that must happen once (a purchase): a run whose lease lapsed all the same (its
 * process stalled) learns it there and stops, instead of acting beside the run that owns the job now.
 */
import type { Clock } from '../../ports/clock.ts'
import type { Store } from '../../ports/store.ts'

/** Another worker owns the job now: what this run would do, that run does. */
export class LeaseLost extends Error {
  constructor(jobId: string) {
    super(`the lease of job ${jobId} lapsed and another worker claimed it: this run stops here`)
    this.name = 'LeaseLost'
  }
}

export class JobLease {
  #current: string
  #lost = false
  #timer: ReturnType<typeof setInterval> | undefined
  #renewing: Promise<boolean> | null = null

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    readonly jobId: string,
    lease: string,
    private readonly leaseMs: number,
  ) {
    this.#current = lease
  }

  /** The lease as the store has it now: what completing or failing the job names. */
  get current(): string {
    return this.#current
  }

  /** Renews in the background while the run goes on. */
  start(): void {
    this.#timer = setInterval(
      () => {
        void this.renew().catch(() => {})
      },
      Math.max(10, Math.floor(this.leaseMs / 3)),
    )
    // Node's timer would keep a process alive for a lease alone; a browser's (the sandbox worker) has no unref.
    ;(this.#timer as { unref?: () => void }).unref?.()
  }

  stop(): void {
    clearInterval(this.#timer)
  }

  /**
   * Stops renewing, once a renewal under way has landed: the lease the run's outcome is recorded under. (Read
   * while a renewal is in flight, `current` is the lease that renewal is replacing, and the outcome would be
   * refused as another worker's.)
   */
  async release(): Promise<string> {
    this.stop()
    // A renewal that failed leaves `current` as it was: the outcome is then refused, as it should be.
    await this.#renewing?.catch(() => false)
    return this.#current
  }

  /** Extends the lease now; false once it was lost (then it stays lost). One renewal at a time. */
  renew(): Promise<boolean> {
    this.#renewing ??= (async () => {
      if (this.#lost) return false
      const until = this.clock.now().getTime() + this.leaseMs
      // Never shorter than the lease held, and never the same: the store keeps times to the millisecond, and
      // a renewal naming the lease it replaces could not be told from it (a clock that has not moved since).
      const held = Date.parse(this.#current)
      const next = new Date(until > held ? until : held + 1)
      if (await this.store.renewJob(this.jobId, this.#current, next)) this.#current = next.toISOString()
      else this.#lost = true
      return !this.#lost
    })().finally(() => {
      this.#renewing = null
    })
    return this.#renewing
  }

  /** Throws `LeaseLost` unless the run still owns the job, renewing it for what follows. */
  async hold(): Promise<void> {
    if (!(await this.renew())) throw new LeaseLost(this.jobId)
  }
}
