import { defineConfig } from 'vite'
import react from '@vitejs/plugin-react'

export default defineConfig({
  plugins: [react()],
  // The API answers a page only from an origin its seller lists (README: --origin http://localhost:5173).
  // PORT moves the dev server (PORT=5180 npm run dev); a port already taken moves it to the next free one,
  // which Vite prints: that origin must be listed too (README, "Run it"), or the API refuses the page.
  server: { port: Number(process.env.PORT) || 5173 },
})
