// `npm run pack:cli`: the `ssp` client as an npm package for the SIS machine, written to
// dist/ssp-cli-<version>.tgz. It holds the push and admin commands (the sources that
// src/cli/main.ts loads, without the server, the database or the development servers), with
// their npm dependencies bundled, so `npm install -g ./ssp-cli-<version>.tgz` needs no registry.
//
// The sources are shipped as JavaScript: Node strips TypeScript types only outside
// node_modules, and a package is installed inside one. Each file's types are stripped by
// Node's own stripper (module.stripTypeScriptTypes, the one that runs the checkout), which
// keeps every line where it was, and its relative `.ts` specifiers become `.js`.
//
// The tarball is written by tar.ts as `npm pack` lays it out, the bundled dependencies read
// where they are installed: npm's own walk over their 16,000 files (and copying them to a
// staging directory first) cost some 25 CPU seconds.
import fs from 'node:fs';
import module from 'node:module';
import path from 'node:path';
import { writeTarball } from './tar.ts';

const root = path.resolve(import.meta.dirname, '../../..');
const entry = path.join(root, 'src/cli/main.ts');
/**
 * Loaded on demand by commands that run only beside the service (serve, worker, dev-idp …).
 * `worker.ts` is `ssp worker`'s entry: it builds the runtime, so shipping it would bring the
 * database drivers, the embedded database and the telemetry SDK into the client.
 */
const SERVER_SIDE =
  /^(\.\.\/)+(main|worker\.ts$|db\/|domain\/secrets\/|workers\/|dev-mail\/|dev-idp\/|dev-oneroster\/|demo\/serve\.ts$)/;

const SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])([^'"]+)\2/g;

/** The sources the client loads: main.ts and what it imports, except the server's side. */
export function clientSources(): { files: string[]; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    // Scanned without its types: a type-only import loads nothing.
    const text = module.stripTypeScriptTypes(fs.readFileSync(file, 'utf8'), { mode: 'strip' });
    for (const [, head, , spec] of text.matchAll(SPECIFIER)) {
      if (spec.startsWith('node:')) continue;
      if (spec.startsWith('.')) {
        // A static import is always needed; a server-side module is loaded only by its command.
        if (!spec.endsWith('.ts') || (head.includes('(') && SERVER_SIDE.test(spec))) continue;
        visit(path.resolve(path.dirname(file), spec));
      } else if (/^(@[\w.-]+\/)?[\w.-]+(\/[\w./-]*)?$/.test(spec)) {
        packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
      }
    }
  };
  visit(entry);
  // Loaded with require() at a terminal only (progress.ts), so no import names it.
  packages.add('cli-progress');
  return { files: [...files].sort(), packages };
}

/** A package and every package it depends on, as installed in the checkout's node_modules. */
function withDependencies(names: Iterable<string>): string[] {
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    const manifest = path.join(root, 'node_modules', name, 'package.json');
    if (!fs.existsSync(manifest)) return; // a type-only import (`import type … from 'x'`)
    seen.add(name);
    const pkg = JSON.parse(fs.readFileSync(manifest, 'utf8')) as { dependencies?: Record<string, string> };
    for (const dep of Object.keys(pkg.dependencies ?? {})) visit(dep);
  };
  for (const name of names) visit(name);
  return [...seen].sort();
}

function toJavaScript(source: string): string {
  const stripped = module.stripTypeScriptTypes(source, { mode: 'strip' });
  return stripped.replace(SPECIFIER, (all, head: string, quote: string, spec: string) =>
    spec.startsWith('.') && spec.endsWith('.ts') ? `${head}${quote}${spec.slice(0, -3)}.js${quote}` : all,
  );
}

// The checkout's bin/ssp.js applies bin/node-settings.js to pushes (V8's heap flags and
// MALLOC_ARENA_MAX, docs/ssp-push.md); the installed bin does the same, with the same file
// shipped beside it. The package has no serve or worker command, so only a push restarts.
const BIN = `#!/usr/bin/env node
// ssp, the client of the student-support platform: push SIS exports, manage settings.
import module from 'node:module';
import { applyNodeSettings, commandOf, PUSH_ENVIRONMENT, PUSH_V8_FLAGS } from './node-settings.js';

const [major] = process.versions.node.split('.').map(Number);
if (major < 24) {
  process.stderr.write(\`ssp needs Node.js 24 or later (this is \${process.version})\\n\`);
  process.exit(1);
}
// A push runs with the memory settings of node-settings.js (V8's heap flags, two malloc arenas).
if (commandOf(process.argv.slice(2)) === 'push') applyNodeSettings(PUSH_ENVIRONMENT, PUSH_V8_FLAGS);
module.enableCompileCache?.();
const { run } = await import('../src/cli/main.js');
await run();
`;

export function pack(outDir = path.join(root, 'dist')): string {
  const own = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const stage = fs.mkdtempSync(path.join(fs.realpathSync(process.env.TMPDIR ?? '/tmp'), 'ssp-cli-pack-'));
  try {
    const { files, packages } = clientSources();
    for (const file of files) {
      const to = path.join(stage, path.relative(root, file)).replace(/\.ts$/, '.js');
      fs.mkdirSync(path.dirname(to), { recursive: true });
      fs.writeFileSync(to, toJavaScript(fs.readFileSync(file, 'utf8')));
    }
    fs.mkdirSync(path.join(stage, 'bin'));
    fs.writeFileSync(path.join(stage, 'bin/ssp.js'), BIN, { mode: 0o755 });
    fs.copyFileSync(path.join(root, 'bin/node-settings.js'), path.join(stage, 'bin/node-settings.js'));
    const direct = [...packages].filter((name) =>
      fs.existsSync(path.join(root, 'node_modules', name, 'package.json')),
    );
    const bundled = withDependencies(direct);
    const dependencies = Object.fromEntries(direct.sort().map((name) => [name, own.dependencies[name]]));
    const manifest = {
      name: 'ssp-cli',
      version: own.version,
      description:
        'ssp, the client of the student-support platform: push SIS exports (CSV, OneRoster) and manage settings',
      type: 'module',
      bin: { ssp: './bin/ssp.js' },
      engines: { node: '>=24' },
      files: ['bin', 'src'],
      dependencies,
      bundleDependencies: bundled,
    };
    fs.writeFileSync(path.join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    fs.copyFileSync(path.join(root, 'docs/ssp-push.md'), path.join(stage, 'README.md'));
    fs.mkdirSync(outDir, { recursive: true });
    const tarball = path.join(outDir, `${manifest.name}-${manifest.version}.tgz`);
    writeTarball(tarball, [
      { dir: stage, as: '' },
      ...bundled.map((name) => ({ dir: path.join(root, 'node_modules', name), as: `node_modules/${name}` })),
    ]);
    return tarball;
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
}

if (import.meta.main) process.stdout.write(`${pack()}\n`);
