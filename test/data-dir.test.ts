// The embedded database's directory is private to the service's user, on real files: a first
// start makes it 0700 with every file 0600 (while running and after), and a directory left open
// to others (as earlier versions left it: files 0666, directories 0755) is tightened at the next
// start, which says so.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { startServerProcess } from './helpers/server-process.ts';

/** Entries under `dir` (itself included) whose mode lets group or others in, as "path mode". */
function openToOthers(dir: string): string[] {
  const found: string[] = [];
  const visit = (entry: string) => {
    const stat = fs.lstatSync(entry);
    if (stat.isSymbolicLink()) return;
    if ((stat.mode & 0o077) !== 0)
      found.push(`${path.relative(dir, entry) || '.'} ${(stat.mode & 0o777).toString(8)}`);
    if (stat.isDirectory()) for (const name of fs.readdirSync(entry)) visit(path.join(entry, name));
  };
  visit(dir);
  return found;
}

function loosen(dir: string): number {
  let count = 0;
  const visit = (entry: string) => {
    const stat = fs.lstatSync(entry);
    fs.chmodSync(entry, stat.isDirectory() ? 0o755 : 0o666);
    count++;
    if (stat.isDirectory()) for (const name of fs.readdirSync(entry)) visit(path.join(entry, name));
  };
  visit(dir);
  return count;
}

test('DATA_DIR is created 0700 with files 0600, and a looser one is tightened at start with a log line', async () => {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'ssp-data-dir-'));
  const dataDir = path.join(parent, 'data');
  try {
    const first = await startServerProcess(dataDir);
    try {
      assert.equal(fs.statSync(dataDir).mode & 0o777, 0o700);
      assert.deepEqual(openToOthers(dataDir), [], 'private while running');
      assert.ok(fs.existsSync(path.join(dataDir, 'encryption.key')));
      assert.doesNotMatch(first.output(), /open to other users/, 'nothing to tighten on a first start');
    } finally {
      await first.stop();
    }
    assert.deepEqual(openToOthers(dataDir), [], 'private once stopped');
    const files = fs.readdirSync(path.join(dataDir, 'base'), { recursive: true }).length;
    assert.ok(files > 100, `the cluster's files are there (${files})`);

    const loosened = loosen(dataDir);
    const second = await startServerProcess(dataDir);
    try {
      assert.match(
        second.output(),
        new RegExp(`ssp: ${dataDir} had ${loosened} files or directories open to other users: tightened`),
      );
      assert.deepEqual(openToOthers(dataDir), []);
      assert.equal((await fetch(`${second.url}/health/ready`)).status, 200);
    } finally {
      await second.stop();
    }
    assert.deepEqual(openToOthers(dataDir), []);
  } finally {
    fs.rmSync(parent, { recursive: true, force: true });
  }
});

test('with ENCRYPTION_KEY the embedded default keeps no key file in DATA_DIR', async () => {
  const { loadConfig } = await import('../src/config.ts');
  const { generateKey, keyringFromConfig } = await import('../src/lib/encryption.ts');
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'ssp-data-key-'));
  try {
    const config = loadConfig({ DATA_DIR: path.join(parent, 'data'), ENCRYPTION_KEY: generateKey() });
    assert.equal(config.databaseUrl, undefined, 'the embedded default');
    const sealed = keyringFromConfig(config).encrypt('a secret');
    assert.equal(keyringFromConfig(config).decrypt(sealed), 'a secret');
    assert.equal(fs.existsSync(path.join(parent, 'data', 'encryption.key')), false);
    const without = loadConfig({ DATA_DIR: path.join(parent, 'data') });
    keyringFromConfig(without);
    assert.equal(fs.existsSync(path.join(parent, 'data', 'encryption.key')), true, 'the default writes one');
  } finally {
    fs.rmSync(parent, { recursive: true, force: true });
  }
});
