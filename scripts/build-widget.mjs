#!/usr/bin/env node
/**
 * Builds the static assets the server sends, each group into a folder of public/:
 * - widget/: the embeddable chat widget, one minified IIFE (socket.io-client included);
 * - console/: the agent console (Preact, socket.io-client included) and the boot script its page inlines;
 * - docs/: Swagger UI (from swagger-ui-dist) with Hearth's start script and accessibility overrides.
 * Every file is written under a content-hashed name (`widget.<hash>.js`) next to its brotli (`.br`) and
 * gzip (`.gz`) variants, compressed once here at the best quality; a group's `manifest.json` maps the
 * stable names (`widget.js`) to the hashed ones. The server negotiates the variant (src/http/static-assets.ts).
 * Prints the sizes and fails when the widget or the console (all its chunks together) exceeds its gzipped budget (40 KB, 120 KB).
 * `buildWidget()` / `buildConsole()` / `buildDocs()` are also imported by the dev server and the tests to build on demand.
 */
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, extname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const PUBLIC = join(root, 'public');

/** Each group's manifest; it exists once the group is built. */
export const WIDGET_OUTFILE = join(PUBLIC, 'widget', 'manifest.json');
export const CONSOLE_OUTFILE = join(PUBLIC, 'console', 'manifest.json');
export const DOCS_OUTFILE = join(PUBLIC, 'docs', 'manifest.json');
export const GZIP_BUDGET_BYTES = 40 * 1024;
export const CONSOLE_GZIP_BUDGET_BYTES = 120 * 1024;

/** Hashed names are `<stem>.<16 hex>.<ext>`; the server serves nothing else from these folders. */
const HASHED = /^[a-z0-9-]+\.[0-9a-f]{16}\.(js|css)$/;
/** Files of earlier builds stay this long, for pages (cached up to 5 minutes) that still name them. */
const KEEP_PREVIOUS_MS = 60 * 60 * 1000;

export async function buildWidget() {
  const code = await bundle(join(root, 'widget', 'src', 'index.ts'), join(root, 'widget', 'tsconfig.json'));
  const [asset] = writeGroup(dirname(WIDGET_OUTFILE), [['widget.js', code]]);
  return { ...asset, outfile: WIDGET_OUTFILE, budget: GZIP_BUDGET_BYTES, withinBudget: asset.gzipped <= GZIP_BUDGET_BYTES };
}

/**
 * The console is an ES module split in chunks: views loaded on demand (`import('./post-editor.js')`) are
 * files of their own, code they share with the entry another. `gzipped` (and the budget) is the whole app:
 * every file together; `lazy` lists the files loaded on demand only.
 */
export async function buildConsole() {
  const tsconfig = join(root, 'console', 'tsconfig.json');
  const files = await bundleChunks(join(root, 'console', 'src', 'index.tsx'), tsconfig, 'console');
  // The page's boot script (console/src/boot.ts), inlined by the server in `/console`: it loads with the page.
  files.push({ name: 'boot.js', bytes: await bundle(join(root, 'console', 'src', 'boot.ts'), tsconfig), lazy: false });
  const assets = writeGroup(dirname(CONSOLE_OUTFILE), files.map((file) => [file.name, file.bytes]));
  const [asset] = assets;
  const sum = (key) => assets.reduce((total, one) => total + one[key], 0);
  const total = { bytes: sum('bytes'), gzipped: sum('gzipped'), brotli: sum('brotli') };
  const lazy = assets.filter((_, i) => files[i].lazy).map((one) => one.file);
  return { ...asset, ...total, entryGzipped: asset.gzipped, assets, lazy, outfile: CONSOLE_OUTFILE, budget: CONSOLE_GZIP_BUDGET_BYTES, withinBudget: total.gzipped <= CONSOLE_GZIP_BUDGET_BYTES };
}

/**
 * Bundles `entry` with code splitting (ESM) and names every output as `writeAsset` will (`<stem>.<16 hex of
 * its bytes>.js`), rewriting the chunk names each file imports first: a file's name then covers the names it
 * refers to, so a changed chunk renames everything that loads it. The entry comes first, named `<entryName>.js`.
 */
async function bundleChunks(entry, tsconfig, entryName) {
  const result = await build({
    entryPoints: { [entryName]: entry },
    bundle: true,
    splitting: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2020'],
    tsconfig,
    outdir: join(root, 'scratch', 'bundle'),
    absWorkingDir: root,
    entryNames: '[name]',
    chunkNames: '[name]-[hash]',
    define: { 'process.env.NODE_ENV': '"production"' },
    legalComments: 'none',
    metafile: true,
    write: false,
    logLevel: 'silent',
  });
  const outdir = join(root, 'scratch', 'bundle');
  const rel = (path) => relative(outdir, resolve(root, path)).split(sep).join('/');
  const outputs = new Map(result.outputFiles.map((file) => [relative(outdir, file.path).split(sep).join('/'), file.contents]));
  const meta = Object.fromEntries(Object.entries(result.metafile.outputs).map(([path, info]) => [rel(path), info]));
  const named = new Map();
  const finals = [];
  const visit = (file) => {
    if (named.has(file)) return;
    named.set(file, null);
    const imports = meta[file].imports.filter((imp) => !imp.external);
    for (const imp of imports) visit(rel(imp.path));
    let text = Buffer.from(outputs.get(file)).toString('utf8');
    for (const imp of imports) text = text.split(`./${rel(imp.path)}`).join(`./${named.get(rel(imp.path))}`);
    const bytes = Buffer.from(text);
    const stem = file.replace(/\.js$/, '').toLowerCase().replace(/[^a-z0-9-]/g, '-');
    named.set(file, `${stem}.${contentHash(bytes)}.js`);
    finals.push({ file, name: `${stem}.js`, bytes });
  };
  const entryFile = `${entryName}.js`;
  visit(entryFile);
  // What the entry imports statically loads with it; the rest only when a lazy view is opened.
  const eager = new Set([entryFile]);
  const markEager = (file) => {
    for (const imp of meta[file].imports) {
      if (imp.kind !== 'import-statement' || eager.has(rel(imp.path))) continue;
      eager.add(rel(imp.path));
      markEager(rel(imp.path));
    }
  };
  markEager(entryFile);
  // Post-order: the entry came last; it goes first.
  return [finals.at(-1), ...finals.slice(0, -1)].map((one) => ({ name: one.name, bytes: one.bytes, lazy: !eager.has(one.file) }));
}

const contentHash = (bytes) => createHash('sha256').update(bytes).digest('hex').slice(0, 16);

/** Swagger UI's bundle and style sheet as shipped, plus src/openapi/viewer/ (start script, overrides). */
export async function buildDocs() {
  const viewer = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const own = join(root, 'src', 'openapi', 'viewer');
  const assets = writeGroup(dirname(DOCS_OUTFILE), [
    ['swagger-ui-bundle.js', readFileSync(join(viewer, 'swagger-ui-bundle.js'))],
    ['swagger-ui.css', readFileSync(join(viewer, 'swagger-ui.css'))],
    ['docs.css', readFileSync(join(own, 'docs.css'))],
    ['docs.js', readFileSync(join(own, 'docs.js'))],
  ]);
  const sum = (key) => assets.reduce((total, asset) => total + asset[key], 0);
  return { outfile: DOCS_OUTFILE, assets, bytes: sum('bytes'), gzipped: sum('gzipped'), brotli: sum('brotli') };
}

async function bundle(entry, tsconfig) {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: ['es2019'],
    tsconfig,
    define: { 'process.env.NODE_ENV': '"production"' },
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
  });
  return Buffer.from(result.outputFiles[0].contents);
}

/**
 * Writes each `[stableName, bytes]` under its hashed name with `.br` and `.gz` variants, then the
 * manifest. Every file is written to a temporary name and renamed, so a concurrent build (parallel test
 * workers) or a running server never sees half a file; a hashed file already there is already right.
 */
function writeGroup(dir, files) {
  mkdirSync(dir, { recursive: true });
  const written = files.map(([name, bytes]) => writeAsset(dir, name, bytes));
  const manifest = Object.fromEntries(written.map((asset) => [asset.name, asset.file]));
  writeAtomically(join(dir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  prune(dir, new Set(written.map((asset) => asset.file)));
  return written;
}

function writeAsset(dir, name, bytes) {
  const hash = contentHash(bytes);
  const ext = extname(name);
  const file = `${basename(name, ext)}.${hash}${ext}`;
  const path = join(dir, file);
  if (!existsSync(path)) {
    writeAtomically(`${path}.br`, compressBrotli(bytes));
    writeAtomically(`${path}.gz`, gzipSync(bytes, { level: constants.Z_BEST_COMPRESSION }));
    writeAtomically(path, bytes);
  }
  return { name, file, bytes: bytes.length, gzipped: statSync(`${path}.gz`).size, brotli: statSync(`${path}.br`).size };
}

function compressBrotli(bytes) {
  return brotliCompressSync(bytes, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    },
  });
}

function writeAtomically(path, data) {
  const temporary = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  writeFileSync(temporary, data);
  renameSync(temporary, path);
}

function prune(dir, current) {
  const cutoff = Date.now() - KEEP_PREVIOUS_MS;
  for (const entry of readdirSync(dir)) {
    const file = entry.replace(/\.(br|gz)$/, '');
    if (!HASHED.test(file) || current.has(file)) continue;
    const path = join(dir, entry);
    if (statSync(path).mtimeMs < cutoff) rmSync(path, { force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
    let failed = false;
    for (const [name, run] of [['widget', buildWidget], ['console', buildConsole], ['docs', buildDocs]]) {
      const { outfile, bytes, gzipped, brotli, budget, withinBudget } = await run();
      console.log(`${name}: ${outfile}`);
      console.log(`${name}: ${kb(bytes)} minified, ${kb(gzipped)} gzip, ${kb(brotli)} brotli${budget ? ` (gzip budget ${kb(budget)})` : ''}`);
      if (withinBudget === false) {
        console.error(`${name}: over the gzipped size budget by ${kb(gzipped - budget)}`);
        failed = true;
      }
    }
    if (failed) process.exit(1);
  } catch (error) {
    console.error(error);
    process.exit(1);
  }
}
