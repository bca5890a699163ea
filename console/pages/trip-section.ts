/**
 * What a section of the trip page (pages/trip.ts TRIP_SECTIONS) is given: the API client, the trip's id, the
 * admin API's answer for the trip, and the session (a read-only one shows no write button). A section that
 * reads an endpoint of its own (the timeline, the webhook deliveries) fetches it through `api` with `tripId`.
 */
import { LitElement } from 'lit'
import type { Order, TripRecord } from '../../core/ports/records.ts'
import type { ConsoleApi, ConsoleSessionInfo } from '../api.ts'
import { pageStyles } from '../styles.ts'

/** The admin API's answer for one trip. */
export interface TripDetail {
  version: number
  trip: TripRecord
  orders: Order[]
}

export class TripSection extends LitElement {
  static override styles = pageStyles
  static override properties = {
    api: { attribute: false },
    tripId: { attribute: false },
    detail: { attribute: false },
    session: { attribute: false },
  }
  api!: ConsoleApi
  tripId = ''
  detail: TripDetail | null = null
  session: ConsoleSessionInfo | null = null
}
