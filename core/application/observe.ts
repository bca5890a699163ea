/**
 * What a host may watch of the core's work, without the core knowing how it is watched: the server counts
 * job outcomes for GET /metrics (prom-client) through this port, and the core imports no metrics library.
 */
import type { JobReport } from './jobs/job.ts'
import type { SupplierCallDetail } from '../ports/records.ts'

/** A supplier call as observers are told of it (core/application/supplier-calls.ts): whose it was, and what for. */
export interface SupplierCallReport extends SupplierCallDetail {
  supplier: string
  seller_id: string
  trip_id: string
  order_id?: string
}

export interface CoreObserver {
  /** A claimed job's run ended, with its outcome (once per attempt). Called synchronously: keep it cheap. */
  jobFinished?(report: JobReport): void
  /** A request to a trip's supplier ended (core/application/supplier-calls.ts). Called synchronously: keep it cheap. */
  supplierCalled?(report: SupplierCallReport): void
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
    this.#tell((o) => o.jobFinished?.(report))
  }

  supplierCalled(report: SupplierCallReport): void {
    this.#tell((o) => o.supplierCalled?.(report))
  }

  #tell(f: (o: CoreObserver) => void): void {
    for (const o of this.#list) {
      // A host's counting bug must not turn a job that was done (or a supplier's answer) into a failure.
      try {
        f(o)
      } catch {
        /* the observer's fault, not the job's */
      }
    }
  }
}
