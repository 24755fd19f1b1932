#!/usr/bin/env node
/**
 * Builds the embeddable chat widget: one minified IIFE (socket.io-client included) at public/widget.js.
 * Prints the gzipped size and fails when it exceeds the 40 KB budget.
 * `buildWidget()` is also imported by the dev server and the browser test to build on demand.
 */
import { build } from 'esbuild';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const WIDGET_OUTFILE = join(root, 'public', 'widget.js');
export const GZIP_BUDGET_BYTES = 40 * 1024;

export async function buildWidget({ outfile = WIDGET_OUTFILE } = {}) {
  const result = await build({
    entryPoints: [join(root, 'widget', 'src', 'index.ts')],
    bundle: true,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: ['es2019'],
    tsconfig: join(root, 'widget', 'tsconfig.json'),
    define: { 'process.env.NODE_ENV': '"production"' },
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0].contents;
  mkdirSync(dirname(outfile), { recursive: true });
  writeFileSync(outfile, code);
  const gzipped = gzipSync(code, { level: 9 }).length;
  return { outfile, bytes: code.length, gzipped, withinBudget: gzipped <= GZIP_BUDGET_BYTES };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    const { outfile, bytes, gzipped, withinBudget } = await buildWidget();
    const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
    console.log(`widget: ${outfile}`);
    console.log(`widget: ${kb(bytes)} minified, ${kb(gzipped)} gzipped (budget ${kb(GZIP_BUDGET_BYTES)})`);
    if (!withinBudget) {
      console.error(`widget: over the gzipped size budget by ${kb(gzipped - GZIP_BUDGET_BYTES)}`);
      process.exit(1);
    }
  } catch (error) {
    console.error(error);
    process.exit(1);
  }
}
