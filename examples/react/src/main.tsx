import { StrictMode, useState } from 'react'
import { createRoot } from 'react-dom/client'
import { Checkout, type CheckoutProps } from './Checkout.tsx'

function App(trip: CheckoutProps) {
  const [inCheckout, setInCheckout] = useState(true)
  if (!inCheckout) return <p>You left the checkout.</p>
  return (
    <>
      <Checkout {...trip} />
      <button type="button" onClick={() => setInCheckout(false)}>
        Leave checkout
      </button>
    </>
  )
}

// Your backend creates the trip (POST /v2.2/trip with your API key) and gives the page its id and access
// token; here they come in the address: ?api=http://localhost:3000&trip=…&token=…
const query = new URLSearchParams(location.search)
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App
      apiBaseUrl={query.get('api') ?? location.origin}
      tripId={query.get('trip') ?? ''}
      accessToken={query.get('token') ?? ''}
    />
  </StrictMode>,
)
