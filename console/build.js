// Builds the console (console/src → console/dist) with Vite. Run by `npm install` (the root
// package's `prepare` script) and, when dist is missing, by `npm start` before it listens.
const path = require('node:path');

async function buildConsole({ quiet = false } = {}) {
  const { build } = await import('vite');
  const root = __dirname;
  await build({
    root,
    configFile: false,
    base: '/',
    logLevel: quiet ? 'error' : 'info',
    esbuild: { jsx: 'automatic' },
    ...(process.env.CONSOLE_DEBUG ? { mode: 'development', define: { 'process.env.NODE_ENV': '"development"' } } : {}),
    build: { outDir: path.join(root, 'dist'), emptyOutDir: true, sourcemap: false, minify: !process.env.CONSOLE_DEBUG },
  });
}

module.exports = { buildConsole };

if (require.main === module) {
  buildConsole().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
