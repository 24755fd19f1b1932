import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from '@jest/globals';

/**
 * The import rules of CONTRIBUTING.md, checked over every file of src/: a file imports only from its own
 * layer or below, no domain reaches into another domain's model file, folders import each other without
 * circles, and no source file grows past 400 lines.
 */
const SRC = fileURLToPath(new URL('../../src', import.meta.url));

/** Bottom to top. A top-level folder not named here is a domain. */
const LAYERS: { name: string; rooms: string[] }[] = [
  { name: 'shared', rooms: ['shared'] },
  { name: 'config', rooms: ['config'] },
  { name: 'db', rooms: ['db'] },
  { name: 'infra', rooms: ['events', 'realtime', 'jobs', 'cache'] },
  { name: 'deps', rooms: ['deps.ts'] },
  { name: 'http', rooms: ['http', 'openapi'] },
  { name: 'domains', rooms: [] },
  { name: 'access', rooms: ['access'] },
  { name: 'app', rooms: ['app'] },
  { name: 'main', rooms: ['main.ts'] },
];
const DOMAIN_LAYER = LAYERS.findIndex((layer) => layer.name === 'domains');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** The top-level folder (or root file) of a source file: its room. */
const roomOf = (file: string) => relative(SRC, file).split('/')[0];

function layerOf(room: string): number {
  const index = LAYERS.findIndex((layer) => layer.rooms.includes(room));
  return index >= 0 ? index : DOMAIN_LAYER;
}

interface Edge {
  from: string;
  to: string;
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)'(\.{1,2}\/[^']+)'/g)].map((match) => match[1]);
  return specifiers.map((specifier) => resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
}

const files = sourceFiles(SRC);
const edges: Edge[] = files.flatMap((file) => importsOf(file).filter((target) => target.startsWith(SRC)).map((to) => ({ from: file, to })));
const show = (edge: Edge) => `${relative(SRC, edge.from)} -> ${relative(SRC, edge.to)}`;

describe('the layers of src/', () => {
  test('the checker reads imports (the graph is not empty)', () => {
    expect(files.length).toBeGreaterThan(50);
    expect(edges.length).toBeGreaterThan(100);
  });

  test('no file imports from a layer above its own', () => {
    const upward = edges.filter((edge) => layerOf(roomOf(edge.to)) > layerOf(roomOf(edge.from)));
    expect(upward.map(show)).toEqual([]);
  });

  test('no domain reaches into another domain\'s model file', () => {
    const intoModels = edges.filter(
      (edge) => roomOf(edge.from) !== roomOf(edge.to) && /\.model\.ts$/.test(edge.to) && layerOf(roomOf(edge.from)) <= DOMAIN_LAYER,
    );
    expect(intoModels.map(show)).toEqual([]);
  });

  test('folders import each other without circles', () => {
    const graph = new Map<string, Set<string>>();
    for (const edge of edges) {
      const [from, to] = [roomOf(edge.from), roomOf(edge.to)];
      if (from !== to) (graph.get(from) ?? graph.set(from, new Set()).get(from)!).add(to);
    }
    const circles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (room: string, path: string[]) => {
      if (state.get(room) === 'done') return;
      if (state.get(room) === 'open') {
        circles.push([...path.slice(path.indexOf(room)), room].join(' -> '));
        return;
      }
      state.set(room, 'open');
      for (const next of graph.get(room) ?? []) visit(next, [...path, room]);
      state.set(room, 'done');
    };
    for (const room of graph.keys()) visit(room, []);
    expect(circles).toEqual([]);
  });

  test('no source file is over 400 lines', () => {
    const long = files
      .map((file) => ({ file: relative(SRC, file), lines: readFileSync(file, 'utf8').split('\n').length }))
      .filter(({ lines }) => lines > 400);
    expect(long).toEqual([]);
  });
});

describe('the checker itself', () => {
  test('places known rooms and treats unknown folders as domains', () => {
    expect(layerOf('shared')).toBeLessThan(layerOf('db'));
    expect(layerOf('http')).toBeLessThan(layerOf('livechat'));
    expect(layerOf('livechat')).toBeLessThan(layerOf('access'));
    expect(layerOf('access')).toBeLessThan(layerOf('app'));
    expect(layerOf('some-new-domain')).toBe(DOMAIN_LAYER);
  });
});
