// A real SMTP server for tests (smtp-server), receiving over a real socket and parsing each
// message with mailparser, so notification emails are checked as a mail client would see them.
// `refuse` decides per message whether the server refuses it (a 451 or 550 reply, say).
import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { scaled } from './time-limit.ts';

export interface ReceivedMail {
  to: string[];
  from: string;
  subject: string;
  text: string;
  html: string;
  messageId: string;
  parsed: ParsedMail;
}

export interface TestSmtpServer {
  url: string;
  received: ReceivedMail[];
  /** Messages refused so far. */
  refused: number;
  /** Return a reply code (4xx, 5xx) to refuse this message, or undefined to accept it. */
  refuse: ((recipients: string[]) => number | undefined) | undefined;
  /** Resolves once `count` messages in all have been received. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

export async function startSmtpServer(): Promise<TestSmtpServer> {
  const state: TestSmtpServer = {
    url: '',
    received: [],
    refused: 0,
    refuse: undefined,
    waitFor: async (count, timeoutMs = 10_000) => {
      const deadline = Date.now() + scaled(timeoutMs);
      while (state.received.length < count) {
        if (Date.now() > deadline)
          throw new Error(`expected ${count} emails, received ${state.received.length}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return state.received;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const recipients = session.envelope.rcptTo.map((r) => r.address);
      const code = state.refuse?.(recipients);
      if (code !== undefined) {
        stream.resume();
        stream.on('end', () => {
          state.refused++;
          const error = Object.assign(new Error(`${code} refused for the test`), { responseCode: code });
          callback(error);
        });
        return;
      }
      simpleParser(stream)
        .then((parsed) => {
          state.received.push({
            to: recipients,
            from: parsed.from?.text ?? '',
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            html: typeof parsed.html === 'string' ? parsed.html : '',
            messageId: parsed.messageId ?? '',
            parsed,
          });
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  state.url = `smtp://127.0.0.1:${port}`;
  return state;
}
