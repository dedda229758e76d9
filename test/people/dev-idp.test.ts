// The development identity provider: its page, its people, and `ssp dev-idp`.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { createOidcClient } from '../../src/domain/people/oidc-client.ts';
import { signInThroughProvider, startTestIdp, TEST_CLIENT } from '../helpers/idp.ts';

const bin = path.resolve(import.meta.dirname, '../../bin/ssp.js');
const REDIRECT = TEST_CLIENT.redirect_uris[0];

test('the page lists the people, escaped; an unknown person is refused; a new person can sign in', async () => {
  const idp = await startTestIdp({
    people: [{ sub: 'x', email: 'x@example.edu', email_verified: true, name: '<script>alert(1)</script>' }],
  });
  const client = createOidcClient({ policy: { allowLoopback: true } });
  try {
    const provider = {
      issuer: idp.issuer,
      clientId: TEST_CLIENT.client_id,
      clientSecret: TEST_CLIENT.client_secret,
    };
    const start = await client.startSignIn(provider, REDIRECT);
    const first = await fetch(start.url, { redirect: 'manual' });
    assert.equal(first.status, 303);
    const cookies = first.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const page = await fetch(new URL(first.headers.get('location')!, idp.issuer), {
      headers: { cookie: cookies },
    });
    const html = await page.text();
    assert.equal(page.status, 200);
    assert.match(html, /DEVELOPMENT|Development identity provider/i);
    assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
    assert.ok(!html.includes('<script>alert'));
    await assert.rejects(signInThroughProvider(start.url, 'nobody'), /answered 400/);

    idp.setPeople([{ sub: 'new', email: 'new@example.edu', email_verified: true, name: 'New Person' }]);
    const again = await client.startSignIn(provider, REDIRECT);
    const callback = await signInThroughProvider(again.url, 'new');
    assert.equal((await client.finishSignIn(provider, REDIRECT, callback, again)).email, 'new@example.edu');
  } finally {
    await client.close();
    await idp.close();
  }
});

test('ssp dev-idp prints the client settings and serves discovery until stopped', async () => {
  const child = spawn(
    process.execPath,
    [bin, 'dev-idp', '--port', '0', '--public-base-url', 'https://ssp.example.edu/'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  try {
    let out = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk) => {
        out += chunk;
        if (out.includes('Press Ctrl+C')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
    });
    assert.match(out, /DEVELOPMENT ONLY, NEVER FOR PRODUCTION/);
    assert.match(out, /redirect URI: +https:\/\/ssp\.example\.edu\/auth\/callback/);
    assert.match(out, /client_id: +ssp-dev/);
    assert.match(out, /ana\.lima@student\.example\.edu/);
    const issuer = /issuer: +(\S+)/.exec(out)![1];
    const discovery = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as {
      issuer: string;
    };
    assert.equal(discovery.issuer, issuer);
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});

test('ssp dev-idp refuses to listen beyond loopback', async () => {
  await assert.rejects(
    promisify(execFile)(process.execPath, [bin, 'dev-idp', '--host', '0.0.0.0']),
    (error: { code: number; stderr: string }) => {
      assert.equal(error.code, 64);
      assert.match(error.stderr, /loopback only/);
      return true;
    },
  );
});
