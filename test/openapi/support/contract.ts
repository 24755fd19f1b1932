import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
// ajv comes with @seriousme/openapi-schema-validator; it is the JSON Schema 2020-12 validator we replay with.
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import { toOpenApiPath, type OpenApiDocument } from '../../../src/openapi/document.js';
import type { RecordedAnswer } from '../../../src/http/recorder.js';

type AjvCtor = typeof import('ajv/dist/2020.js').default;
const Ajv2020 = ((Ajv2020Module as unknown as { default?: AjvCtor }).default ?? Ajv2020Module) as AjvCtor;
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: InstanceType<AjvCtor>) => void;

/** Where the main jest run records answers when nobody says otherwise (see test/support/global-setup.ts). */
export const DEFAULT_ANSWERS_DIR = fileURLToPath(new URL('../../artifacts/answers/latest', import.meta.url));

export interface Mismatch {
  kind: 'unknown-route' | 'undeclared-status' | 'schema';
  method: string;
  path: string;
  status: number;
  detail: string;
  url: string;
}

const COMPONENTS_ID = 'https://hearth.invalid/components.json';

function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, child]) => [
      key,
      key === '$ref' && typeof child === 'string' && child.startsWith('#/components/schemas/')
        ? `${COMPONENTS_ID}#/$defs/${child.slice('#/components/schemas/'.length)}`
        : rewriteRefs(child),
    ]),
  );
}

/**
 * Checks recorded answers against the document's response declarations: the route must be in the
 * document, the status must be declared, and a JSON body must validate against the declared schema.
 */
export function contractChecker(document: OpenApiDocument): (answer: RecordedAnswer) => Mismatch | undefined {
  const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false });
  addFormats(ajv);
  ajv.addSchema({ $id: COMPONENTS_ID, $defs: rewriteRefs(document.components.schemas) as object });
  const compiled = new Map<object, ValidateFunction>();
  const validatorOf = (schema: object): ValidateFunction => {
    let validate = compiled.get(schema);
    if (!validate) {
      validate = ajv.compile(rewriteRefs(schema) as object);
      compiled.set(schema, validate);
    }
    return validate;
  };

  return (answer) => {
    const base = { method: answer.method, path: answer.path, status: answer.status, url: answer.url };
    const operation = document.paths[toOpenApiPath(answer.path)]?.[answer.method];
    if (!operation) return { ...base, kind: 'unknown-route', detail: 'the route is not in the document' };
    const response = operation.responses[String(answer.status)];
    if (!response) {
      const declared = Object.keys(operation.responses).join(', ');
      return { ...base, kind: 'undeclared-status', detail: `status ${answer.status} is not declared (declared: ${declared})` };
    }
    const schema = response.content?.['application/json']?.schema;
    const success = answer.status >= 200 && answer.status < 300;
    if (!schema) {
      if (success && answer.body !== undefined) return { ...base, kind: 'schema', detail: 'answered a JSON body, but the declaration has no schema for it' };
      return undefined;
    }
    if (answer.body === undefined) return { ...base, kind: 'schema', detail: 'the declaration has a JSON body, but the answer had none' };
    const validate = validatorOf(schema);
    if (validate(answer.body)) return undefined;
    const errors = (validate.errors ?? []).slice(0, 5).map((error) => `${error.instancePath || '(body)'} ${error.message}${error.params && 'additionalProperty' in error.params ? ` "${String(error.params.additionalProperty)}"` : ''}`);
    return { ...base, kind: 'schema', detail: errors.join('; ') };
  };
}

/** Every answer recorded under `dir` (one JSON-lines file per process). */
export function readAnswers(dir: string): RecordedAnswer[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith('.jsonl'))
    .flatMap((name) =>
      readFileSync(join(dir, name), 'utf8')
        .split('\n')
        .filter(Boolean)
        .flatMap((line) => {
          try {
            return [JSON.parse(line) as RecordedAnswer];
          } catch {
            return []; // a line cut short by a process that was killed mid-write
          }
        }),
    );
}

/** Mismatches grouped by route, status and reason, with how often each happened: readable failure output. */
export function summarize(mismatches: Mismatch[]): string[] {
  const groups = new Map<string, { mismatch: Mismatch; count: number }>();
  for (const mismatch of mismatches) {
    const key = `${mismatch.method.toUpperCase()} ${mismatch.path} -> ${mismatch.status}: ${mismatch.detail}`;
    const group = groups.get(key);
    if (group) group.count += 1;
    else groups.set(key, { mismatch, count: 1 });
  }
  return [...groups.entries()].map(([key, { mismatch, count }]) => `${key} (x${count}, e.g. ${mismatch.url})`);
}
