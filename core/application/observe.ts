/**
 * What a host may watch of the core's work, without the core knowing how it is watched: the server counts
 * job outcomes for GET /metrics (prom-client) through this port, and the core imports no metrics library.
 */
import type { JobReport } from './jobs/job.ts'

export interface CoreObserver {
  /** A claimed job's run ended, with its outcome (once per attempt). Called synchronously: keep it cheap. */
  jobFinished?(report: JobReport): void
}

export class Observers {
  readonly #list = new Set<CoreObserver>()

  /** Starts telling `observer`; returns the way to stop. */
  add(observer: CoreObserver): () => void {
    this.#list.add(observer)
    return () => {
      this.#list.delete(observer)
    }
  }

  jobFinished(report: JobReport): void {
    for (const o of this.#list) {
      // A host's counting bug must not turn a job that was done into a failure of the job runner.
      try {
        o.jobFinished?.(report)
      } catch {
        /* the observer's fault, not the job's */
      }
    }
  }
}
