import { defineConfig } from 'vite'
import react from '@vitejs/plugin-react'

export default defineConfig({
  plugins: [react()],
  // The API answers a page only from an origin its seller lists (README: --origin http://localhost:5173).
  server: { port: 5173, strictPort: true },
})
