import { z, type ZodType } from 'zod';

export type JsonSchema = Record<string, unknown>;
export type Io = 'input' | 'output';

const COMPONENT_PREFIX = '#/components/schemas/';
/** Refs point here until `finish` has chosen every component's final name. */
const PLACEHOLDER_PREFIX = '#/components/schemas/~';

interface PendingComponent {
  io: Io;
  /** The `.meta({id})` of the schema, or a name made from the place it was found (cycles without id). */
  id: string;
  named: boolean;
  /** The schema as zod wrote it, refs still zod's own `#/$defs/...`; compared to spot id clashes. */
  raw: string;
  json: JsonSchema;
}

function walk(value: unknown, visit: (node: Record<string, unknown>) => void): void {
  if (Array.isArray(value)) for (const item of value) walk(item, visit);
  else if (value && typeof value === 'object') {
    visit(value as Record<string, unknown>);
    for (const child of Object.values(value)) walk(child, visit);
  }
}

function sanitize(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_');
}

/**
 * Turns zod schemas into JSON Schema 2020-12 (the dialect of OpenAPI 3.1) and collects every schema
 * that carries `.meta({id})` as a shared component. Requests are converted with `io: 'input'` (what a
 * client may send), responses with `io: 'output'` (what the server answers); when a component reads
 * differently in the two directions its input form is published as `<Id>Input`. Parts JSON Schema
 * cannot express (transforms, dates, custom checks) become `{}` instead of failing the document.
 */
export class SchemaCatalog {
  private readonly pending = new Map<string, PendingComponent>();
  readonly problems: string[] = [];

  private key(io: Io, id: string): string {
    return `${io}:${id}`;
  }

  /** The JSON Schema of one zod schema; shared parts are refs into `#/components/schemas`. */
  convert(schema: ZodType, io: Io, context: string): JsonSchema {
    let json: JsonSchema;
    try {
      json = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12', cycles: 'ref', reused: 'inline' });
    } catch (error) {
      this.problems.push(`${context}: the schema cannot be converted to JSON Schema (${(error as Error).message})`);
      return {};
    }
    delete json.$schema;
    const defs = (json.$defs ?? {}) as Record<string, JsonSchema>;
    delete json.$defs;

    // zod names the defs of ided schemas by their id, and recursion without an id `__schemaN`.
    const placeholderOf = new Map<string, string>();
    for (const name of Object.keys(defs)) {
      const named = !name.startsWith('__schema');
      const id = named ? name : `${context}${name.replace('__schema', 'Node')}`;
      placeholderOf.set(`#/$defs/${name}`, PLACEHOLDER_PREFIX + this.key(io, id));
    }
    let rootRef: string | undefined;
    const rewrite = (node: JsonSchema) =>
      walk(node, (object) => {
        if (typeof object.$ref !== 'string') return;
        if (object.$ref === '#') {
          rootRef ??= PLACEHOLDER_PREFIX + this.key(io, context);
          object.$ref = rootRef;
        } else {
          object.$ref = placeholderOf.get(object.$ref) ?? object.$ref;
        }
      });

    for (const [name, def] of Object.entries(defs)) {
      const raw = JSON.stringify(def);
      rewrite(def);
      const named = !name.startsWith('__schema');
      const id = named ? name : `${context}${name.replace('__schema', 'Node')}`;
      this.register({ io, id, named, raw, json: def }, context);
    }
    const rootRaw = JSON.stringify(json);
    rewrite(json);
    if (rootRef) {
      // The root refers to itself: publish it as a component so the ref has a target.
      this.register({ io, id: context, named: false, raw: rootRaw, json }, context);
      return { $ref: rootRef };
    }
    return json;
  }

  private register(component: PendingComponent, context: string): void {
    const key = this.key(component.io, component.id);
    const known = this.pending.get(key);
    if (!known) this.pending.set(key, component);
    else if (known.raw !== component.raw) {
      this.problems.push(`${context}: two different schemas declare the component id "${component.id}"; ids must be unique.`);
    }
  }

  /**
   * Chooses final component names and rewrites every placeholder ref inside `document`. An id gets one
   * component when its input and output forms are identical (and so are all components they refer to);
   * otherwise the output keeps the id and the input becomes `<Id>Input`.
   */
  finish(document: object): Record<string, JsonSchema> {
    const refsOf = (component: PendingComponent): string[] => {
      const refs: string[] = [];
      walk(component.json, (object) => {
        if (typeof object.$ref === 'string' && object.$ref.startsWith(PLACEHOLDER_PREFIX)) refs.push(object.$ref.slice(PLACEHOLDER_PREFIX.length));
      });
      return refs;
    };
    const shared = new Set<string>();
    for (const component of this.pending.values()) {
      if (component.io !== 'input') continue;
      const output = this.pending.get(this.key('output', component.id));
      if (output && output.raw === component.raw) shared.add(component.id);
    }
    // An id stays shared only while everything it refers to is shared too.
    for (let changed = true; changed; ) {
      changed = false;
      for (const id of [...shared]) {
        const input = this.pending.get(this.key('input', id))!;
        if (refsOf(input).some((ref) => ref.startsWith('input:') && !shared.has(ref.slice('input:'.length)))) {
          shared.delete(id);
          changed = true;
        }
      }
    }

    const finalName = new Map<string, string>();
    const taken = new Set<string>();
    const claim = (wanted: string): string => {
      let name = sanitize(wanted);
      for (let n = 2; taken.has(name); n += 1) name = sanitize(`${wanted}_${n}`);
      taken.add(name);
      return name;
    };
    const ordered = [...this.pending.values()].sort((a, b) => (a.io === b.io ? 0 : a.io === 'output' ? -1 : 1));
    for (const component of ordered) {
      const key = this.key(component.io, component.id);
      if (component.io === 'input' && shared.has(component.id)) continue;
      const wanted = component.io === 'input' && this.pending.has(this.key('output', component.id)) ? `${component.id}Input` : component.id;
      finalName.set(key, claim(wanted));
    }
    for (const id of shared) finalName.set(this.key('input', id), finalName.get(this.key('output', id))!);

    const schemas: Record<string, JsonSchema> = {};
    for (const component of ordered) {
      if (component.io === 'input' && shared.has(component.id)) continue;
      schemas[finalName.get(this.key(component.io, component.id))!] = component.json;
    }
    const resolve = (node: unknown) =>
      walk(node, (object) => {
        if (typeof object.$ref === 'string' && object.$ref.startsWith(PLACEHOLDER_PREFIX)) {
          object.$ref = COMPONENT_PREFIX + finalName.get(object.$ref.slice(PLACEHOLDER_PREFIX.length));
        }
      });
    resolve(document);
    resolve(schemas);
    return Object.fromEntries(Object.keys(schemas).sort().map((name) => [name, schemas[name]]));
  }
}
