// A OneRoster bundle as named files, from a folder or a zip (read with yauzl, entry by entry,
// without unpacking to disk: the central directory is read once, each entry is inflated as a
// stream when its file is read). A zip whose files sit in one top folder is read as if they
// were at its root, as SIS exports often wrap them so.
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import type { FileSource } from './csv-source.ts';

export interface Bundle {
  name: string;
  /** The file of that name (case-insensitive), if the bundle has it. */
  file(name: string): FileSource | undefined;
  close(): void;
}

export async function openBundle(location: string): Promise<Bundle> {
  const stat = fs.statSync(location, { throwIfNoEntry: false });
  if (!stat) throw new Error(`${location}: no such file or folder`);
  return stat.isDirectory() ? folderBundle(location) : zipBundle(location);
}

function folderBundle(dir: string): Bundle {
  const names = new Map(fs.readdirSync(dir).map((n) => [n.toLowerCase(), n]));
  return {
    name: dir,
    file(name) {
      const actual = names.get(name.toLowerCase());
      if (!actual) return undefined;
      const full = path.join(dir, actual);
      return { name: full, size: fs.statSync(full).size, open: async () => fs.createReadStream(full) };
    },
    close() {},
  };
}

async function zipBundle(file: string): Promise<Bundle> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(file, { lazyEntries: true, autoClose: false }, (error, z) =>
      error ? reject(error) : resolve(z!),
    ),
  ).catch((error: Error) => {
    throw new Error(`${file}: not a readable zip file (${error.message})`);
  });
  const entries = new Map<string, yauzl.Entry>();
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      if (!entry.fileName.endsWith('/')) entries.set(entry.fileName, entry);
      zip.readEntry();
    });
    zip.on('end', () => resolve());
    zip.on('error', reject);
    zip.readEntry();
  });
  // One common top folder (bundle/manifest.csv ...) is looked through.
  const tops = new Set([...entries.keys()].map((n) => (n.includes('/') ? n.split('/')[0] : '')));
  const prefix = tops.size === 1 && !tops.has('') ? `${[...tops][0]}/` : '';
  const byName = new Map<string, yauzl.Entry>();
  for (const [name, entry] of entries) {
    if (name.startsWith(prefix) && !name.slice(prefix.length).includes('/')) {
      byName.set(name.slice(prefix.length).toLowerCase(), entry);
    }
  }
  return {
    name: file,
    file(name) {
      const entry = byName.get(name.toLowerCase());
      if (!entry) return undefined;
      return {
        name: `${file}:${entry.fileName}`,
        size: entry.uncompressedSize,
        open: () =>
          new Promise<Readable>((resolve, reject) =>
            zip.openReadStream(entry, (error, stream) => (error ? reject(error) : resolve(stream!))),
          ),
      };
    },
    close() {
      zip.close();
    },
  };
}
