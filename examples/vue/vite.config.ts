import { defineConfig } from 'vite'
import vue from '@vitejs/plugin-vue'

export default defineConfig({
  // The svc-* tags are custom elements, not Vue components: Vue leaves them to the browser.
  plugins: [vue({ template: { compilerOptions: { isCustomElement: (tag) => tag.startsWith('svc-') } } })],
  // The API answers a page only from an origin its seller lists (README: --origin http://localhost:5173).
  server: { port: 5173, strictPort: true },
})
