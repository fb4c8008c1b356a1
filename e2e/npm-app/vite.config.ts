import { defineConfig } from 'vite';

export default defineConfig({
  build: { rollupOptions: { input: { plain: 'plain.html', react: 'react.html' } } },
});
