// Sending one email over SMTP with nodemailer. One connection per message (no pool): notification
// mail is a trickle, and a fresh connection never inherits a half-broken session. Every stage has
// a timeout, so an attempt always ends well within the worker's lease (the whole send is bounded
// by about 50 s, the lease is 2 min by default). nodemailer is loaded with the first message
// (about 5 MB of heap a server without SMTP_URL, or that never sends, does not hold).
import type { Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import type { SendFailure } from './retry.ts';

export interface OutgoingEmail {
  to: string;
  subject: string;
  text: string;
  html: string;
  messageId: string;
}

export interface Mailer {
  /** Resolves when the server accepted the message; rejects never: a failure is returned. */
  send(email: OutgoingEmail): Promise<{ ok: true } | { ok: false; failure: SendFailure }>;
  close(): void;
}

export const SEND_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

/** A mailer for `smtpUrl` (smtp:// with STARTTLS when offered, smtps:// for TLS from the start). */
export function createMailer(smtpUrl: string, from: string): Mailer {
  let transport: Transporter<SMTPTransport.SentMessageInfo> | undefined;
  const open = async () => {
    const { default: nodemailer } = await import('nodemailer');
    transport ??= nodemailer.createTransport({ url: smtpUrl, ...SEND_TIMEOUTS } as SMTPTransport.Options, {
      from,
    });
    return transport;
  };
  return {
    async send(email) {
      try {
        await (transport ?? (await open())).sendMail({
          to: email.to,
          subject: email.subject,
          text: email.text,
          html: email.html,
          messageId: email.messageId,
          disableFileAccess: true,
          disableUrlAccess: true,
        });
        return { ok: true };
      } catch (error) {
        return { ok: false, failure: failureOf(error) };
      }
    },
    close: () => transport?.close(),
  };
}

/** A nodemailer error as a failure: the SMTP reply code if the server answered, a short message. */
export function failureOf(error: unknown): SendFailure {
  const e = error as { responseCode?: unknown; response?: unknown; code?: unknown; message?: unknown };
  const responseCode = typeof e.responseCode === 'number' ? e.responseCode : undefined;
  const said =
    typeof e.response === 'string' ? e.response : typeof e.message === 'string' ? e.message : 'unknown error';
  // With the server's answer, that answer alone; otherwise nodemailer's code (ECONNECTION, ...).
  const code = responseCode === undefined && typeof e.code === 'string' ? `${e.code}: ` : '';
  // The server's words, on one line and short: they are shown in the console.
  const message = `${code}${said}`.replace(/\s+/g, ' ').trim().slice(0, 300);
  return responseCode === undefined ? { message } : { responseCode, message };
}
