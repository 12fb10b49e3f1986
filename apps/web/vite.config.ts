import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'

// The Fastify server serves the API under /api and this build from apps/web/dist (SPA fallback).
// In development Vite serves the client and forwards /api to the server.
export default defineConfig({
  plugins: [react()],
  server: {
    port: 5173,
    proxy: {
      '/api': { target: 'http://localhost:3000', changeOrigin: true },
    },
  },
  preview: {
    proxy: {
      '/api': { target: 'http://localhost:3000', changeOrigin: true },
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
  },
})
