// Builds the console (console/src → console/dist) with esbuild: one bundled, hashed script and
// stylesheet plus index.html. Run by `npm install` (the root package's `prepare` script) and,
// when dist is missing, by `npm start` before it listens. esbuild rather than Vite: Vite's
// rollup needs a platform package per machine kind that not every registry mirror carries,
// which breaks `npm ci`; esbuild's are already in the lock through tsx.
const path = require('node:path');
const fs = require('node:fs');

async function buildConsole({ quiet = false } = {}) {
  const esbuild = require('esbuild');
  const root = __dirname;
  const dist = path.join(root, 'dist');
  const debug = Boolean(process.env.CONSOLE_DEBUG);
  fs.rmSync(dist, { recursive: true, force: true });
  const result = await esbuild.build({
    entryPoints: { index: path.join(root, 'src/main.tsx') },
    bundle: true,
    outdir: path.join(dist, 'assets'),
    entryNames: '[name]-[hash]',
    format: 'esm',
    target: 'es2020',
    jsx: 'automatic',
    minify: !debug,
    sourcemap: false,
    metafile: true,
    define: { 'process.env.NODE_ENV': JSON.stringify(debug ? 'development' : 'production') },
    logLevel: quiet ? 'error' : 'info',
  });
  const outputs = Object.keys(result.metafile.outputs).map((file) => path.basename(file));
  const script = outputs.find((f) => f.endsWith('.js'));
  const style = outputs.find((f) => f.endsWith('.css'));
  const template = fs.readFileSync(path.join(root, 'index.html'), 'utf8');
  const html = template
    .replace(
      '<script type="module" src="/src/main.tsx"></script>',
      `<script type="module" src="/assets/${script}"></script>`,
    )
    .replace('</head>', `${style ? `    <link rel="stylesheet" href="/assets/${style}" />\n` : ''}  </head>`);
  fs.writeFileSync(path.join(dist, 'index.html'), html);
}

module.exports = { buildConsole };

if (require.main === module) {
  buildConsole().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
