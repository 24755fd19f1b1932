#!/usr/bin/env node
/**
 * Builds the embeddable chat widget: one minified IIFE (socket.io-client included) at public/widget.js,
 * and the agent console (Preact, socket.io-client included) at public/console.js.
 * Prints the gzipped sizes and fails when one exceeds its budget (widget 40 KB, console 120 KB).
 * `buildWidget()` / `buildConsole()` are also imported by the dev server and the browser tests to build on demand.
 */
import { build } from 'esbuild';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const WIDGET_OUTFILE = join(root, 'public', 'widget.js');
export const GZIP_BUDGET_BYTES = 40 * 1024;

export const CONSOLE_OUTFILE = join(root, 'public', 'console.js');
export const CONSOLE_GZIP_BUDGET_BYTES = 120 * 1024;

export async function buildWidget({ outfile = WIDGET_OUTFILE } = {}) {
  return bundle({ entry: join(root, 'widget', 'src', 'index.ts'), tsconfig: join(root, 'widget', 'tsconfig.json'), outfile, budget: GZIP_BUDGET_BYTES });
}

export async function buildConsole({ outfile = CONSOLE_OUTFILE } = {}) {
  return bundle({ entry: join(root, 'console', 'src', 'index.tsx'), tsconfig: join(root, 'console', 'tsconfig.json'), outfile, budget: CONSOLE_GZIP_BUDGET_BYTES });
}

async function bundle({ entry, tsconfig, outfile, budget }) {
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
  const code = result.outputFiles[0].contents;
  mkdirSync(dirname(outfile), { recursive: true });
  writeFileSync(outfile, code);
  const gzipped = gzipSync(code, { level: 9 }).length;
  return { outfile, bytes: code.length, gzipped, budget, withinBudget: gzipped <= budget };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
    let failed = false;
    for (const [name, run] of [['widget', buildWidget], ['console', buildConsole]]) {
      const { outfile, bytes, gzipped, budget, withinBudget } = await run();
      console.log(`${name}: ${outfile}`);
      console.log(`${name}: ${kb(bytes)} minified, ${kb(gzipped)} gzipped (budget ${kb(budget)})`);
      if (!withinBudget) {
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
