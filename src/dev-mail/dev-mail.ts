// A development mail catcher: an SMTP server (smtp-server) that accepts every message, keeps the
// newest 100 in memory, reports each one as it arrives, and lists them on a small web page. For
// trying notifications on a laptop without a real mail server; never for production (it accepts
// mail from anyone who reaches it, with no authentication).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface CaughtMail {
  at: Date;
  from: string;
  to: string[];
  subject: string;
  text: string;
}

export interface DevMailOptions {
  /** SMTP port; 0 picks a free one. */
  smtpPort?: number;
  /** Web page port; 0 picks a free one. */
  httpPort?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Called with each message as it arrives. */
  onMail?: (mail: CaughtMail) => void;
}

const KEEP = 100;

export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The web page: the caught messages, newest first, every value escaped. */
export function mailPage(mails: CaughtMail[]): string {
  const items = [...mails]
    .reverse()
    .map(
      (m) =>
        `<article><h2>${escapeHtml(m.subject || '(no subject)')}</h2>` +
        `<p>${escapeHtml(m.at.toISOString())} · from ${escapeHtml(m.from)} · to ${escapeHtml(m.to.join(', '))}</p>` +
        `<pre>${escapeHtml(m.text)}</pre></article>`,
    )
    .join('\n');
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Development mail</title>' +
    '<meta http-equiv="refresh" content="5"></head><body><main><h1>Development mail</h1>' +
    `<p>${mails.length} message(s), newest first; this page reloads every 5 seconds.</p>${items || '<p>No mail yet.</p>'}` +
    '</main></body></html>'
  );
}

export async function startDevMail(options: DevMailOptions = {}) {
  const host = options.host ?? '127.0.0.1';
  const mails: CaughtMail[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    // Any user name and password is accepted, so a service configured with credentials works too.
    onAuth: (_auth, _session, callback) => callback(null, { user: 'dev' }),
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          const mail: CaughtMail = {
            at: new Date(),
            from: parsed.from?.text ?? (session.envelope.mailFrom || { address: '' }).address,
            to: session.envelope.rcptTo.map((r) => r.address),
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
          };
          mails.push(mail);
          if (mails.length > KEEP) mails.shift();
          options.onMail?.(mail);
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => smtp.listen(options.smtpPort ?? 1025, host, resolve));
  const web = http.createServer((_request, response) => {
    response.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': "default-src 'none'",
      'cache-control': 'no-store',
    });
    response.end(mailPage(mails));
  });
  await new Promise<void>((resolve) => web.listen(options.httpPort ?? 1080, host, resolve));
  const smtpPort = (smtp.server.address() as AddressInfo).port;
  const httpPort = (web.address() as AddressInfo).port;
  return {
    smtpUrl: `smtp://${host}:${smtpPort}`,
    pageUrl: `http://${host}:${httpPort}/`,
    mails,
    async close(): Promise<void> {
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
      await new Promise<void>((resolve) => web.close(() => resolve()));
    },
  };
}
