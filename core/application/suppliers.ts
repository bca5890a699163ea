/**
 * Which supplier serves a seller or a trip, and with what (docs/decisions.md "Real supply: a supplier per
 * seller"): a trip's offers come from the supplier its seller had when the trip was created, called with the
 * seller's own credentials, so one adapter serves every seller with each seller's account.
 */
import type { SellerRecord, TripRecord } from '../ports/records.ts'
import type { Supplier, SupplierContext } from '../ports/supplier.ts'
import { ProblemError } from '../shared/errors.ts'
import { SupplierError } from '../ports/supplier-errors.ts'
import type { Context } from './context.ts'

export interface SupplierCall {
  supplier: Supplier
  call: SupplierContext
}

/**
 * The seller's supplier `name`, ready to call, or what keeps it from serving the seller: not offered here,
 * or credentials that do not fit (a live seller on the sandbox airline, which never sells simulated offers;
 * credentials missing, or of the other mode). Credentials are the seller's for its current supplier, or
 * those it kept of a supplier it switched away from (`kept_credentials`): a trip created on that supplier is
 * still served with them. A supplier that needs none (the sandbox airline, for a sandbox seller) serves its
 * trips whatever the seller uses now.
 */
async function resolve(ctx: Context, seller: SellerRecord, name: string): Promise<SupplierCall | string> {
  const supplier = ctx.suppliers.get(name)
  if (!supplier) return `Its supplier "${name}" is not one this service offers.`
  const credentials = await ctx.sellers.credentials(seller, name)
  const problem = supplier.credentialsProblem(credentials, seller.sandbox)
  return problem ?? { supplier, call: { seller_id: seller.seller_id, sandbox: seller.sandbox, credentials } }
}

const notConfigured = (seller: SellerRecord, problem: string) =>
  new ProblemError(
    'supplier_not_configured',
    `This seller has no supplier it may sell from. ${problem} The operator configures one with: npm run seller -- update ${seller.seller_id} --supplier duffel --duffel-token <token> (docs/suppliers.md).`,
  )

/** The seller's supplier for a new trip; one that cannot serve the seller is a 409 `supplier_not_configured` saying what to configure. */
export async function sellerSupplier(ctx: Context, seller: SellerRecord): Promise<SupplierCall> {
  const found = await resolve(ctx, seller, seller.supplier.name)
  if (typeof found === 'string') throw notConfigured(seller, found)
  return found
}

/**
 * The supplier of an existing trip (the one it was created with), for a request on it: the same 409 when it
 * can no longer serve the trip's seller.
 */
export async function requestSupplier(ctx: Context, seller: SellerRecord, trip: TripRecord): Promise<SupplierCall> {
  const found = await resolve(ctx, seller, trip.supplier ?? 'sandbox')
  if (typeof found === 'string') throw notConfigured(seller, found)
  return found
}

/**
 * The supplier of an existing trip, for its jobs (searches, checks, orders, cancellations): a trip it can no
 * longer serve is a `supplier_not_configured` failure, which no retry mends.
 */
export async function tripSupplier(ctx: Context, trip: TripRecord): Promise<SupplierCall> {
  const seller = await ctx.sellers.get(trip.seller_id)
  const found = seller ? await resolve(ctx, seller, trip.supplier ?? 'sandbox') : `its seller ${trip.seller_id} is gone`
  if (typeof found === 'string') throw new SupplierError('supplier_not_configured', `trip ${trip.trip_id}: ${found}`)
  return found
}
