// npm run demo (ssp demo --serve): the whole product in one process. Started as a person would,
// through the real binary; the console answers, a staff member signs in through the development
// identity provider, the data and the term's key dates are there, and Ctrl-C stops everything
// and deletes the demo's database.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { after, test } from 'node:test';
import { sspBin } from '../helpers/cli.ts';
import { signInThroughProvider } from '../helpers/idp.ts';
import { spawnGathered } from '../helpers/server-process.ts';

let child: ChildProcess | undefined;
after(() => {
  if (child?.exitCode === null) child.kill('SIGKILL');
});

function cookiesOf(response: Response, jar: Map<string, string>) {
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const eq = pair.indexOf('=');
    jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
  }
  return [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
}

test('npm run demo: one process serves a filled demo, sign-in works, Ctrl-C stops it all', async () => {
  const demo = spawnGathered('the demo', [
    sspBin,
    'demo',
    '--serve',
    '--port',
    '0',
    '--idp-port',
    '0',
    '--students',
    '12',
  ]);
  child = demo.child;
  await demo.waitFor(/Press Ctrl-C to stop\./);
  const out = demo.output();
  assert.doesNotMatch(out, /applying migration 2 of/, 'one line for the migrations');
  assert.doesNotMatch(out, /skipped/, out);
  assert.match(out, /12 students/);
  assert.match(out, /calendar feed "Semester 1, 2027 key dates"/);
  const publicUrl = /Sign in at (http:\/\/localhost:\d+)\/auth\/sign-in/.exec(out)?.[1];
  assert.ok(publicUrl, out);
  for (const email of ['admin@example.edu', 'integrations@example.edu', 'staff@example.edu'])
    assert.match(out, new RegExp(email));
  const [, url, token] = /SSP_URL=(\S+) SSP_OPERATOR_TOKEN=(\S+)/.exec(out) ?? [];
  const dataDir = /creating the embedded database in (\S+)/.exec(out)?.[1];
  assert.ok(dataDir && fs.existsSync(dataDir));

  const admin = async (path: string) => {
    const response = await fetch(`${url}/admin/v1/institutions/northbridge-demo${path}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(response.status, 200, path);
    return (await response.json()) as { items: { summary: string }[] };
  };
  assert.equal((await admin('/students?limit=1000')).items.length, 12);
  assert.equal((await admin('/webhook-endpoints')).items.length, 1);
  // The calendar feed, served by the demo on loopback, is fetched by the service's worker.
  let events: { summary: string }[] = [];
  for (let i = 0; i < 120 && events.length === 0; i += 1) {
    events = (await admin('/calendar-events?from=2027-01-01&to=2028-01-01')).items;
    if (events.length === 0) await new Promise((r) => setTimeout(r, 500));
  }
  assert.ok(
    events.some((e) => e.summary === 'Examination period'),
    'the term of events',
  );

  // Sam Staff signs in through the development provider and sees the console.
  const jar = new Map<string, string>();
  const start = await fetch(`${publicUrl}/auth/northbridge-demo/sign-in`, { redirect: 'manual' });
  cookiesOf(start, jar);
  const back = await signInThroughProvider(String(start.headers.get('location')), 'demo-staff');
  const callback = await fetch(back, { redirect: 'manual', headers: { cookie: cookiesOf(start, jar) } });
  assert.ok([302, 303].includes(callback.status), await callback.text());
  const page = await fetch(`${publicUrl}/console/`, {
    headers: { cookie: cookiesOf(callback, jar) },
    redirect: 'follow',
  });
  assert.equal(page.status, 200);
  assert.match(await page.text(), /Northbridge University \(demo\)/);

  child.kill('SIGINT');
  assert.equal(await demo.exited, 0, demo.output());
  assert.match(demo.output(), /stopping the demo/);
  assert.equal(fs.existsSync(dataDir), false, 'the demo deletes its database');
});
