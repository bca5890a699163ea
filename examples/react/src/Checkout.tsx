import { useEffect, useState } from 'react'
import { ApiClient, Session, formatPrice, type BasketChange } from 'svc-ancillaries'
import 'svc-ancillaries/elements/svc-bag-upsell.js'
import type {} from 'svc-ancillaries/types/react'

export interface CheckoutProps {
  apiBaseUrl: string
  tripId: string
  accessToken: string
}

export function Checkout({ apiBaseUrl, tripId, accessToken }: CheckoutProps) {
  const [session, setSession] = useState<Session>()
  const [status, setStatus] = useState('Loading the extras…')
  const [basket, setBasket] = useState<BasketChange['basket']>({})

  // The session is made in the effect and disposed by its cleanup (which closes its event stream), not
  // made during render: StrictMode mounts twice in development, and a disposed session stays disposed.
  useEffect(() => {
    const tripSession = new Session(new ApiClient({ baseUrl: apiBaseUrl, tripId, accessToken }))
    tripSession.follow()
    setSession(tripSession)
    return () => tripSession.dispose()
  }, [apiBaseUrl, tripId, accessToken])

  const extras = Object.values(basket).filter((item) => item.product_type !== 'ticket')
  const count = extras.reduce((sum, item) => sum + item.quantity, 0)
  const total = extras.reduce((sum, item) => sum + item.price.total.amount, 0)
  const money = extras[0]?.price.total

  return (
    <section aria-label="Extras">
      {/* React 19 sets `session` as a property, and listens to `onsvc-load` as the svc-load event. */}
      {session && (
        <svc-bag-upsell
          session={session}
          display="embedded"
          onsvc-load={() => setStatus('')}
          onsvc-fail={(e) => setStatus(`Something went wrong with the extras (${e.detail.error.code}).`)}
          onsvc-basket-change={(e) => setBasket(e.detail.basket)}
        />
      )}
      <p role="status">{status}</p>
      <p>
        {money
          ? `Extras: ${count}, ${formatPrice(total, money.decimal_places, money.currency, navigator.language)}`
          : 'No extras yet'}
      </p>
    </section>
  )
}
