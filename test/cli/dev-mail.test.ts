// `ssp dev-mail`: a real process catching real SMTP mail, printing it and listing it on its page.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import nodemailer from 'nodemailer';
import { mailPage } from '../../src/dev-mail/dev-mail.ts';

const bin = path.resolve(import.meta.dirname, '../../bin/ssp.js');

test('ssp dev-mail prints each message and lists it on its page', async () => {
  const child = spawn(process.execPath, [bin, 'dev-mail', '--port', '0', '--http-port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  const until = async (pattern: RegExp) => {
    const deadline = Date.now() + 20_000;
    while (!pattern.test(output)) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}; output:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return pattern.exec(output) as RegExpExecArray;
  };
  try {
    const [, smtpUrl] = await until(/SMTP_URL=(smtp:\/\/\S+)/);
    const [, pageUrl] = await until(/listed at (http:\/\/\S+)/);
    const transport = nodemailer.createTransport(smtpUrl);
    await transport.sendMail({
      from: 'Student support <support@localhost>',
      to: 'kai@example.edu',
      subject: 'New crisis request at North College',
      text: 'Open the request: http://localhost:3000/console/north/inbox/1',
    });
    await until(/Subject: New crisis request at North College/);
    assert.match(output, /to kai@example\.edu/);
    assert.match(output, /Open the request: http:\/\/localhost:3000\/console\/north\/inbox\/1/);
    const page = await (await fetch(pageUrl)).text();
    assert.match(page, /New crisis request at North College/);
    assert.match(page, /kai@example\.edu/);
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
});

test('the page escapes what it lists', () => {
  const page = mailPage([
    { at: new Date(0), from: 'x', to: ['y'], subject: '<script>alert(1)</script>', text: '<b>' },
  ]);
  assert.doesNotMatch(page, /<script>alert/);
  assert.match(page, /&#60;script&#62;/);
});
