// The real process: first start prints an operator token once, data persists across
// restarts, in-flight requests finish on SIGTERM and the process exits cleanly.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { childNodeFlags } from './helpers/child-flags.ts';
import { migratedDataDir } from './helpers/scratch-db.ts';
import { startServerProcess } from './helpers/server-process.ts';
import { scaled } from './helpers/time-limit.ts';

const entry = path.resolve(import.meta.dirname, '../src/main.ts');

test('first start prints an operator token once; data persists; SIGTERM shuts down cleanly', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ssp-main-'));
  try {
    const first = await startServerProcess(dataDir);
    const token = /(ssp_op_[A-Za-z0-9_-]{43})/.exec(first.output())?.[1];
    assert.ok(token, 'the first start prints an operator token');
    // The first start says what it is doing instead of staying silent while the database is made.
    assert.match(first.output(), /ssp: creating the embedded database in /);
    assert.match(
      first.output(),
      /ssp: applying migration 1 of (\d+): 0001_core\n[\s\S]*applying migration \1 of \1: /,
    );
    const created = await fetch(`${first.url}/admin/v1/institutions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ slug: 'persisted', name: 'Persisted' }),
    });
    assert.equal(created.status, 201);
    assert.equal(
      first.output().split(token!).length,
      2,
      'the token is printed exactly once and never logged',
    );
    // Beside it, a one-time console sign-in link for the operator.
    const linkPath = /\/auth\/operator-link\/(ssp_link_[A-Za-z0-9_-]{43})/.exec(first.output())?.[0];
    assert.ok(linkPath, 'the first start prints an operator sign-in link');
    const page = await fetch(`${first.url}${linkPath}`);
    assert.equal(page.status, 200, 'opening the link only shows a button');
    const signIn = await fetch(`${first.url}${linkPath}`, { method: 'POST', redirect: 'manual' });
    assert.equal(signIn.status, 303);
    const cookie = signIn.headers
      .getSetCookie()
      .find((c) => c.startsWith('ssp_session='))!
      .split(';')[0];
    const me = await fetch(`${first.url}/admin/v1/me`, { headers: { cookie } });
    assert.equal(((await me.json()) as { kind: string }).kind, 'operator');
    const reused = await fetch(`${first.url}${linkPath}`, { method: 'POST', redirect: 'manual' });
    assert.equal(reused.status, 400, 'the link works once');
    assert.equal(first.output().split(linkPath).length, 2, 'the link is printed once and never logged');
    // A request in flight when SIGTERM arrives still completes: its headers are sent before
    // the signal and its body after it.
    const body = JSON.stringify({ slug: 'in-flight', name: 'Sent during shutdown' });
    const socket = net.connect(Number(new URL(first.url).port), '127.0.0.1');
    await once(socket, 'connect');
    socket.write(
      `POST /admin/v1/institutions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    first.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Written, not ended: a client's half-close makes Node's HTTP server abort a request whose
    // answer is still waiting for I/O (the database's, on either driver). Connection: close
    // ends the socket once the answer is sent.
    socket.write(body);
    let response = '';
    socket.on('data', (chunk) => {
      response += chunk;
    });
    await once(socket, 'close');
    assert.match(response, /^HTTP\/1\.1 201/);
    assert.equal(await first.exited, 0);

    const second = await startServerProcess(dataDir);
    assert.ok(!/ssp_op_/.test(second.output()), 'no new token on a later start');
    assert.doesNotMatch(second.output(), /creating the embedded database|applying migration/);
    const list = await fetch(`${second.url}/admin/v1/institutions`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(list.status, 200);
    assert.deepEqual(
      ((await list.json()) as { items: { slug: string }[] }).items.map((i: { slug: string }) => i.slug),
      ['in-flight', 'persisted'],
    );
    second.child.kill('SIGTERM');
    assert.equal(await second.exited, 0);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a bad configuration stops the start with every problem listed', async () => {
  const child = spawn(process.execPath, [...childNodeFlags, entry], {
    env: { ...process.env, PORT: 'abc', LOG_LEVEL: 'loud', DATABASE_URL: 'mysql://x' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const code = await new Promise((resolve) => child.on('exit', resolve));
  assert.equal(code, 2);
  assert.match(stderr, /PORT/);
  assert.match(stderr, /LOG_LEVEL/);
  assert.match(stderr, /DATABASE_URL/);
});

test('requests arriving on an open connection while the app closes get 503 shutting_down', async () => {
  const { startTestApp } = await import('./helpers/app.ts');
  const ctx = await startTestApp('pglite');
  await ctx.app.listen({ host: '127.0.0.1', port: 0 });
  const port = (ctx.app.server.address() as net.AddressInfo).port;
  const socket = net.connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let response = '';
  socket.on('data', (chunk) => {
    response += chunk;
  });
  // A request in flight (headers sent, body not yet) holds the connection while close() starts;
  // a second request pipelined behind it arrives after.
  const body = '{"institution":"x","updates":[]}';
  // The server has the first request's headers before close() starts (waited for, not slept
  // for: on a loaded machine 100 ms was sometimes not enough).
  const received = once(ctx.app.server, 'request');
  socket.write(
    `POST /api/integrations/help-sync HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
  );
  await received;
  const closing = ctx.close();
  await new Promise((resolve) => setTimeout(resolve, 100));
  socket.write(`${body}GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n`);
  await Promise.race([once(socket, 'close'), new Promise((resolve) => setTimeout(resolve, scaled(3_000)))]);
  socket.destroy();
  await closing;
  assert.match(response, /^HTTP\/1\.1 401/, 'the request in flight is answered');
  assert.match(response, /HTTP\/1\.1 503[\s\S]*"error":"shutting_down"/);
});

test('the embedded database belongs to one process at a time', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ssp-lock-'));
  try {
    // Not a first start (the first test has one): the database is already there.
    await migratedDataDir(dataDir);
    const first = await startServerProcess(dataDir);
    const second = spawn(process.execPath, [...childNodeFlags, entry], {
      env: { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    second.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    assert.equal(await new Promise((resolve) => second.on('exit', resolve)), 2);
    assert.match(stderr, /in use by process \d+/);
    first.child.kill('SIGTERM');
    assert.equal(await first.exited, 0);
    // Once the owner has stopped, the directory opens again.
    const third = await startServerProcess(dataDir);
    third.child.kill('SIGTERM');
    assert.equal(await third.exited, 0);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
