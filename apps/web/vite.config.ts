import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'

// The Fastify server serves the API under /api and this build from apps/web/dist (SPA fallback).
// In development Vite serves the client and forwards /api/* to the server. The key is a pattern
// (leading ^) so that client pages such as /api-keys are not forwarded.
const apiProxy = { '^/api/': { target: 'http://localhost:3000', changeOrigin: true } }

export default defineConfig({
  plugins: [react()],
  server: {
    port: 5173,
    proxy: apiProxy,
  },
  preview: {
    proxy: apiProxy,
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
  },
})
