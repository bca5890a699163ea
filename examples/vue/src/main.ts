import { createApp } from 'vue'
import App from './App.vue'

// Your backend creates the trip (POST /v2.2/trip with your API key) and gives the page its id and access
// token; here they come in the address: ?api=http://localhost:3000&trip=…&token=…
const query = new URLSearchParams(location.search)
createApp(App, {
  apiBaseUrl: query.get('api') ?? location.origin,
  tripId: query.get('trip') ?? '',
  accessToken: query.get('token') ?? '',
}).mount('#app')
