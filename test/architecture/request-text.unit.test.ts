import { describe, expect, test } from '@jest/globals';
import type { ZodType } from 'zod';
import { allRoutes } from '../../src/app/routes.js';

/**
 * No request body carries U+0000 to the engine (`inputText`, src/shared/text.ts): every string a route's
 * body schema accepts, at any depth (record keys included), refuses it. Free-form JSON objects are no
 * strings to the schema and keep it (stored as JSON text). A new body field declared with a bare
 * `z.string()` fails here.
 */
/** Short and long enough to pass the other bounds of most fields (a password's 8 characters). */
const NUL_TEXTS = ['a\u0000b', 'a\u0000bcdefghij'];
const refusesNul = (schema: ZodType) => NUL_TEXTS.every((text) => !schema.safeParse(text).success);

/** Strings that never reach a document or a filter, with why. */
const EXEMPT: Record<string, string> = {
  // A token that matches no open conversation is ignored (the spec): it is parsed for its id, never queried.
  'POST /external/live-chat/conversations .conversationToken': 'resume token',
};

interface ZodDef {
  type: string;
  [key: string]: unknown;
}
const defOf = (schema: ZodType) => (schema as unknown as { _zod: { def: ZodDef } })._zod.def;

/** Each string the schema takes, by its path, and whether it refuses a NUL. */
function strings(schema: ZodType, path: string, found: Map<string, boolean>): void {
  const def = defOf(schema);
  const inner = (key: string) => def[key] as ZodType;
  switch (def.type) {
    case 'string':
      found.set(path, refusesNul(schema));
      return;
    case 'object':
      for (const [key, field] of Object.entries(def.shape as Record<string, ZodType>)) strings(field, `${path}.${key}`, found);
      return;
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'catch':
    case 'readonly':
    case 'nonoptional':
      return strings(inner('innerType'), path, found);
    case 'array':
      return strings(inner('element'), `${path}[]`, found);
    case 'record':
      strings(inner('keyType'), `${path}{key}`, found);
      return strings(inner('valueType'), `${path}{}`, found);
    case 'union':
      for (const option of def.options as ZodType[]) strings(option, path, found);
      return;
    case 'intersection':
      strings(inner('left'), path, found);
      return strings(inner('right'), path, found);
    case 'tuple':
      (def.items as ZodType[]).forEach((item, index) => strings(item, `${path}[${index}]`, found));
      return;
    case 'pipe':
      // A transformed string is checked whole (the refusal may come from the transform).
      if (defOf(inner('in')).type === 'string') found.set(path, refusesNul(schema));
      else strings(inner('in'), path, found);
      return;
    default:
      return;
  }
}

describe('request bodies and U+0000', () => {
  const found = new Map<string, boolean>();
  for (const def of allRoutes) if (def.body) strings(def.body, `${def.method.toUpperCase()} ${def.path} `, found);

  test('the checker sees the bodies (chat message, submission, post title)', () => {
    expect(found.get('POST /external/live-chat/conversations/:token/messages .body')).toBe(true);
    expect(found.get('POST /external/submissions .message')).toBe(true);
    expect(found.get('POST /admin/workspaces/:wid/posts .title')).toBe(true);
    expect(found.size).toBeGreaterThan(80);
  });

  test('every string of every route body refuses U+0000, but the exempt ones', () => {
    const accepting = [...found].filter(([path, refuses]) => !refuses && !(path in EXEMPT)).map(([path]) => path);
    expect(accepting).toEqual([]);
  });

  test('the exemptions still exist', () => {
    expect(Object.keys(EXEMPT).filter((path) => !found.has(path))).toEqual([]);
  });
});
