import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The dashboard is a separate build served by the API server from dist/web: hashed assets
// under /assets/ (cached for a year), index.html for every dashboard route (never cached).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
  },
  server: {
    // `npx vite web` during development: the API runs on :3000.
    proxy: {
      '/v1': 'http://localhost:3000',
      '/auth': 'http://localhost:3000',
      '/radar': 'http://localhost:3000',
    },
  },
});
