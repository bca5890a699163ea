// Only the two elements this page uses: each `svc-ancillaries/elements/<tag>.js` registers its own tag.
// (`import 'svc-ancillaries/elements'` would register all of them; `import { init, showUpsell } from
// 'svc-ancillaries'` is the whole SDK, which places <svc-upsell> with a session of the trip.)
import 'svc-ancillaries/elements/svc-spinner.js'
import 'svc-ancillaries/elements/svc-price.js'

const price = document.getElementById('price')
price.amount = { amount: 2550, decimal_places: 2, currency: 'EUR' }

const changed = document.getElementById('changed')
changed.previous = { amount: 2550, decimal_places: 2, currency: 'EUR' }
changed.amount = { amount: 2990, decimal_places: 2, currency: 'EUR' }

const tags = ['svc-spinner', 'svc-price', 'svc-bag-upsell']
document.getElementById('status').textContent = tags
  .map((t) => `<${t}> ${customElements.get(t) ? 'registered' : 'not registered'}`)
  .join(', ')
