import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@jest/globals';

/**
 * `process.nextTick`'s entries keep one shape through full garbage collections, so V8 keeps defining their
 * properties in compiled code: once it saw a second shape, every `nextTick` of the process (each stream and
 * HTTP step that defers work) defined its four properties in V8's runtime: warm reads took 12-22 % more CPU.
 */

/** The states V8 gives the keyed definitions of `nextTick`'s entry literal, after a full GC with no entry queued. */
function entryDefinitionsAfterFullGc(keepShape: boolean): string[] {
  const script = `
    import { keepTickObjectShape } from './src/shared/tick-object-shape.ts';
    const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
    if (${keepShape}) keepTickObjectShape();
    for (let i = 0; i < 2000; i += 1) process.nextTick(() => {});
    await settle();
    globalThis.gc();
    globalThis.gc();
    await settle();
    for (let i = 0; i < 10; i += 1) process.nextTick(() => {});
    await settle();
    new Function('f', '%DebugPrint(f)')(process.nextTick);
  `;
  // V8 prints through C's stdout, which loses what a pipe made non-blocking cannot take at once: a file takes it all.
  const dir = mkdtempSync(join(tmpdir(), 'hearth-tick-shape-'));
  const out = openSync(join(dir, 'stdout'), 'w');
  try {
    const result = spawnSync(process.execPath, ['--allow-natives-syntax', '--expose-gc', '--import', 'tsx', '--input-type=module', '--eval', script], {
      encoding: 'utf8',
      timeout: 60_000,
      stdio: ['ignore', out, 'pipe'],
      // Jest's own `--experimental-vm-modules` is not the child's business.
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    if (result.status !== 0) throw new Error(`child failed (${result.status}): ${result.stderr}`);
    return [...readFileSync(join(dir, 'stdout'), 'utf8').matchAll(/DefineKeyedOwnPropertyInLiteral (\w+)/g)].map((match) => match[1]);
  } finally {
    closeSync(out);
    rmSync(dir, { recursive: true, force: true });
  }
}

test('the kept shape keeps every definition of the entry literal monomorphic through a full GC', () => {
  const states = entryDefinitionsAfterFullGc(true);
  expect(states.length).toBeGreaterThan(0);
  expect(states.every((state) => state === 'MONOMORPHIC')).toBe(true);
}, 60_000);

test('without it, the same full GC leaves them megamorphic (the cost the kept shape avoids, on this Node)', () => {
  expect(entryDefinitionsAfterFullGc(false)).toContain('MEGAMORPHIC');
}, 60_000);
