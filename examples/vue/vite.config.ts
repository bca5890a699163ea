import { defineConfig } from 'vite'
import vue from '@vitejs/plugin-vue'

export default defineConfig({
  // The svc-* tags are custom elements, not Vue components: Vue leaves them to the browser.
  plugins: [vue({ template: { compilerOptions: { isCustomElement: (tag) => tag.startsWith('svc-') } } })],
  // The API answers a page only from an origin its seller lists (README: --origin http://localhost:5173).
  // PORT moves the dev server (PORT=5180 npm run dev); a port already taken moves it to the next free one,
  // which Vite prints: that origin must be listed too (README, "Run it"), or the API refuses the page.
  server: { port: Number(process.env.PORT) || 5173 },
})
