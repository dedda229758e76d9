// The shape of the code, checked: layers import only downwards, the JSON API and the HTML pages
// never import each other, imports form no circle (type-only ones included: a row type kept
// beside the functions instead of in the area's model module is how circles start), no file of
// src/ is over 400 lines, nothing in src/ calls the application in-process (`inject`), no
// function is over 100 lines counted over its whole span, and SQL runs only in queries modules.
// None has an exception. (Biome's noExcessiveLinesPerFunction, 150 lines, stays as a coarser net
// in the editor.)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { functionSpans } from './helpers/function-spans.ts';

const root = path.resolve(import.meta.dirname, '..');
const src = path.join(root, 'src');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

interface Edge {
  from: string;
  to: string;
  typeOnly: boolean;
}

/** Relative imports and re-exports of a file, each marked type-only or not. */
function importsOf(file: string): Edge[] {
  const text = fs.readFileSync(file, 'utf8');
  const edges: Edge[] = [];
  const statement = /^\s*(import|export)\s+(type\s+)?([^;]*?)\s*from\s*'(\.[^']+)'/gms;
  for (const match of text.matchAll(statement)) {
    const [, , typeKeyword, clause, specifier] = match;
    // `import { type A, type B } from` is type-only too; `import X, { type A }` is not.
    const named = /^\{([^}]*)\}$/.exec(clause.trim());
    const allTypes = Boolean(
      named?.[1]
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean)
        .every((part) => part.startsWith('type ')),
    );
    edges.push({
      from: file,
      to: path.resolve(path.dirname(file), specifier),
      typeOnly: Boolean(typeKeyword) || allTypes,
    });
  }
  for (const match of text.matchAll(/import\(\s*'(\.[^']+)'\s*\)/g)) {
    edges.push({ from: file, to: path.resolve(path.dirname(file), match[1]), typeOnly: false });
  }
  for (const match of text.matchAll(/new URL\(\s*'(\.[^']+\.ts)',\s*import\.meta\.url\s*\)/g)) {
    edges.push({ from: file, to: path.resolve(path.dirname(file), match[1]), typeOnly: false });
  }
  return edges;
}

/** The layer of a file: a file may import its own layer and those below it. */
const layers: [prefix: string, layer: number][] = [
  ['lib/', 0],
  ['errors.ts', 0],
  ['config.ts', 0],
  ['db/', 1],
  ['domain/', 2],
  // Worker loops claim and call the domain; nothing in workers/ builds a runtime or starts a
  // process (process entries live in main.ts and cli/).
  ['workers/', 3],
  ['runtime.ts', 4],
  ['app/types.ts', 5],
  ['app/context/', 5],
  ['app/api/', 6],
  ['app/pages/', 6],
  ['app/app.ts', 7],
  ['dev-idp/', 7],
  ['dev-oneroster/', 7],
  ['dev-mail/', 7],
  ['cli/', 8],
  ['main.ts', 8],
  // The workers' thread of `ssp serve` builds its own runtime: a process entry of a kind.
  ['workers-thread/', 8],
];

function layerOf(file: string): { layer: number; area: string } {
  const relative = path.relative(src, file).split(path.sep).join('/');
  const found = layers.find(([prefix]) => relative === prefix || relative.startsWith(prefix));
  assert.ok(found, `no layer for src/${relative}: add it to the table in test/architecture.test.ts`);
  return { layer: found[1], area: found[0] };
}

const files = sourceFiles(src);
const edges = files.flatMap(importsOf);
const short = (file: string) => path.relative(root, file);

test('layers import only downwards; the API and the pages never import each other', () => {
  const problems: string[] = [];
  for (const edge of edges) {
    const from = layerOf(edge.from);
    const to = layerOf(edge.to);
    if (to.layer > from.layer) problems.push(`${short(edge.from)} imports upward ${short(edge.to)}`);
    const siblings = new Set([from.area, to.area]);
    if (siblings.has('app/api/') && siblings.has('app/pages/'))
      problems.push(`${short(edge.from)} imports its sibling ${short(edge.to)}`);
  }
  assert.deepEqual(problems, []);
});

test('imports form no circle, type-only imports included', () => {
  const graph = new Map<string, string[]>();
  for (const edge of edges) {
    graph.set(edge.from, [...(graph.get(edge.from) ?? []), edge.to]);
  }
  // Tarjan's strongly connected components: any component of two or more files is a circle.
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (node: string) => {
    indices.set(node, index);
    low.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indices.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, indices.get(next)!));
      }
    }
    if (low.get(node) === indices.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(short(member));
      } while (member !== node);
      if (component.length > 1) circles.push(component.sort());
    }
  };
  for (const file of files) if (!indices.has(file)) visit(file);
  assert.deepEqual(circles, []);
});

test('no file of src/ is over 400 lines, and nothing calls the application in-process', () => {
  const long: string[] = [];
  const injecting: string[] = [];
  for (const file of files) {
    const text = fs.readFileSync(file, 'utf8');
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > 400) long.push(`${short(file)} (${lines} lines)`);
    if (/\.inject\(/.test(text)) injecting.push(short(file));
  }
  assert.deepEqual(long, []);
  assert.deepEqual(injecting, []);
});

/** A function's whole span, from its name or parameters to its closing brace. */
const MAX_FUNCTION_LINES = 100;

test('no function is over 100 lines, counted over its whole span', () => {
  const problems: string[] = [];
  for (const file of files) {
    const relative = path.relative(src, file).split(path.sep).join('/');
    for (const span of functionSpans(fs.readFileSync(file, 'utf8'))) {
      if (span.lines > MAX_FUNCTION_LINES)
        problems.push(`src/${relative}: ${span.name} (line ${span.line}) spans ${span.lines} lines`);
    }
  }
  assert.deepEqual(problems, []);
});

/** A queries module: an area's `queries.ts`, a `queries/` or `sql/` folder, or the database seam. */
const isQueriesModule = (relative: string) =>
  relative.startsWith('db/') || /(^|\/)queries\.ts$/.test(relative) || /(^|\/)(queries|sql)\//.test(relative);

test('SQL runs only in queries modules', () => {
  const problems: string[] = [];
  for (const file of files) {
    const relative = path.relative(src, file).split(path.sep).join('/');
    if (isQueriesModule(relative) || !/\.query\s*[<(]/.test(fs.readFileSync(file, 'utf8'))) continue;
    problems.push(`src/${relative} runs SQL outside a queries module`);
  }
  assert.deepEqual(problems, []);
});
