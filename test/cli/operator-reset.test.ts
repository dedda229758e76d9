// `ssp operator-reset`, the recovery from a leaked operator token: the real server signs an
// operator in with the first start's one-time link and mints another link; the real CLI resets;
// after it, the old token, the operator session and the unused link are all dead, and the CLI
// says how many sessions it ended and links it cancelled. The same reset on PostgreSQL, through
// the test app's operator sessions.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { resetOperatorCredential } from '../../src/domain/secrets/operator-credentials.ts';
import { seedTenant, startTestApp } from '../helpers/app.ts';
import { operatorBrowser, personBrowser } from '../helpers/people.ts';
import { migratedDataDir } from '../helpers/scratch-db.ts';
import { startServerProcess as startServer } from '../helpers/server-process.ts';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');

test('operator-reset ends operator sessions and cancels unused sign-in links, and says so', async () => {
  const dataDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ssp-op-reset-')), 'data');
  try {
    // The database made and migrated, as a first start leaves it: no operator yet, so this
    // start still mints the first token and sign-in link.
    await migratedDataDir(dataDir);
    const first = await startServer(dataDir);
    let token: string;
    let cookie: string;
    let unusedLink: string;
    try {
      token = /(ssp_op_[A-Za-z0-9_-]{43})/.exec(first.output())?.[1] ?? '';
      const firstLink = /\/auth\/operator-link\/(ssp_link_[A-Za-z0-9_-]+)/.exec(first.output())?.[1];
      assert.ok(token && firstLink, first.output());
      const signedIn = await fetch(`${first.url}/auth/operator-link/${firstLink}`, {
        method: 'POST',
        redirect: 'manual',
      });
      assert.equal(signedIn.status, 303, await signedIn.text());
      cookie = (signedIn.headers.get('set-cookie') ?? '').split(';')[0];
      assert.match(cookie, /ssp_session=/);
      const me = await fetch(`${first.url}/admin/v1/me`, { headers: { cookie } });
      assert.equal(((await me.json()) as { kind: string }).kind, 'operator');
      const minted = await fetch(`${first.url}/admin/v1/operator-sign-in-links`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(minted.status, 201);
      unusedLink = new URL(((await minted.json()) as { url: string }).url).pathname;
    } finally {
      await first.stop();
    }

    const reset = await run(process.execPath, [path.join(root, 'bin/ssp.js'), 'operator-reset'], {
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', OPERATOR_TOKEN: '' },
    });
    assert.match(reset.stderr, /every operator token of the embedded database in .* is revoked/);
    assert.match(reset.stderr, /1 operator session ended/);
    assert.match(reset.stderr, /1 unused operator sign-in link cancelled/);
    const newToken = reset.stdout.trim();
    assert.match(newToken, /^ssp_op_/);

    const second = await startServer(dataDir);
    try {
      const withSession = await fetch(`${second.url}/admin/v1/me`, { headers: { cookie } });
      assert.equal(withSession.status, 401, 'the operator session ended');
      const link = await fetch(`${second.url}${unusedLink}`, { method: 'POST', redirect: 'manual' });
      assert.notEqual(link.status, 303, 'the unused link signs nobody in');
      assert.match(await link.text(), /link_expired/);
      const oldToken = await fetch(`${second.url}/admin/v1/me`, {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(oldToken.status, 401);
      const fresh = await fetch(`${second.url}/admin/v1/me`, {
        headers: { authorization: `Bearer ${newToken}` },
      });
      assert.equal(fresh.status, 200);
    } finally {
      await second.stop();
    }
  } finally {
    fs.rmSync(path.dirname(dataDir), { recursive: true, force: true });
  }
});

test('the reset ends operator sessions on PostgreSQL too, and leaves institution sessions alone', async (t) => {
  if (!process.env.TEST_DATABASE_URL) return t.skip('TEST_DATABASE_URL is not set');
  const ctx = await startTestApp('postgres');
  try {
    const tenant = await seedTenant(ctx);
    const admin = await personBrowser(ctx, tenant, { roles: ['admin'] });
    const operator = await operatorBrowser(ctx);
    assert.equal((await operator.request('GET', '/admin/v1/me')).statusCode, 200);
    const link = await ctx.admin('POST', '/admin/v1/operator-sign-in-links');
    assert.equal(link.statusCode, 201);
    const result = await resetOperatorCredential(ctx.db);
    assert.ok(result.sessionsEnded >= 1);
    assert.ok(result.linksCancelled >= 1);
    assert.equal((await operator.request('GET', '/admin/v1/me')).statusCode, 401);
    assert.equal((await admin.request('GET', '/admin/v1/me')).statusCode, 200);
    const used = await ctx.request({ method: 'POST', url: new URL(link.json().url).pathname });
    assert.notEqual(used.statusCode, 303);
  } finally {
    await ctx.close();
  }
});
