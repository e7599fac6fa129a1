import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The web UI, served by the api role at /ui/ from dist/ui (libs/roles/src/api/web-ui).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/ui/',
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/ui', import.meta.url)),
    emptyOutDir: true,
    // One chunk is over Vite's 500 kB warning line (React, React Flow, dagre); the size is printed either way.
    chunkSizeWarningLimit: 1000,
    rolldownOptions: {
      // React Query marks its hooks "use client" for server components; a browser bundle has no use for the directive.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
});
