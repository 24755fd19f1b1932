import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from '@jest/globals';

/**
 * Per-node state lives in objects `wire()` creates (`Deps`, the authenticators, the webhook pipeline),
 * never at a module's top level, where two nodes in one process (every multi-node test) would share it and
 * nothing would close it. Checked over every file of src/: no top-level `let` or `var`, and no top-level
 * Map, Set, array or object that the file ever changes.
 */
const SRC = fileURLToPath(new URL('../../src', import.meta.url));

/** Module-level registries that are no node's state, and why. */
const ALLOWED: Record<string, string> = {
  // Mongoose schemas by model name, registered once as each model file is imported: declarations, the same for every node.
  'db/mongo.ts:schemas': 'schema registry',
  // Each node's locks are attached to its own connection by `attachDocumentLocks` in wire(), and found again through it.
  'db/document-locks.ts:locksOf': 'held by the connection',
  // Each node's engine traits are attached to its own connection by `attachEngineTraits` in wire().
  'db/engine-traits.ts:traitsOf': 'held by the connection',
  // Each node's waiting takes and known buckets belong to its own connection, made on first use and gone with it.
  'db/newest-first.ts:memories': 'held by the connection',
  // One object shaped as `nextTick`'s entries, kept for the process: the maps it keeps alive are the process's, shared by its nodes.
  'shared/tick-object-shape.ts:kept': 'one per process',
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** `file:name` of each top-level binding that is mutable state. */
function moduleState(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const where = relative(SRC, file);
  const found: string[] = [];
  for (const match of text.matchAll(/^(?:export )?(?:let|var) (\w+)/gm)) found.push(`${where}:${match[1]}`);
  for (const match of text.matchAll(/^(?:export )?const (\w+)(?::[^=]+)? = (?:new (?:Map|Set|WeakMap|WeakSet)\b|\[|\{)/gm)) {
    const name = match[1];
    const changed = new RegExp(`\\b${name}(?:\\.(?:set|add|delete|clear|push|pop|shift|unshift|splice|sort)\\(|\\[[^\\]]+\\]\\s*=[^=])`).test(text);
    if (changed) found.push(`${where}:${name}`);
  }
  return found;
}

const files = sourceFiles(SRC);

describe('state of a node', () => {
  test('the checker reads src/ and finds what it is told to allow', () => {
    expect(files.length).toBeGreaterThan(50);
    const found = files.flatMap(moduleState);
    for (const allowed of Object.keys(ALLOWED)) expect(found).toContain(allowed);
  });

  test('no module of src/ keeps mutable state at its top level (it belongs to an object wire() creates)', () => {
    const found = files.flatMap(moduleState).filter((binding) => !(binding in ALLOWED));
    expect(found).toEqual([]);
  });
});
