import { expect } from '@esm-bundle/chai'
import { ApiClient } from '../../client/api.ts'

it('the fixture API answers the page across origins with the trip access token', async () => {
  const f = (await (await fetch('/__fixture/trip')).json()) as { baseUrl: string; tripId: string; accessToken: string }
  const client = new ApiClient({ baseUrl: f.baseUrl, tripId: f.tripId, accessToken: f.accessToken })
  const basket = await client.getBasket()
  expect(Object.values(basket.basket).map((i) => i.product_type)).to.deep.equal(['ticket'])
})
