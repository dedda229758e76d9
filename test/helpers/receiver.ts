// Real local webhook receivers: node:http servers on 127.0.0.1 whose behaviour a test sets.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after } from 'node:test';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  path: string;
  at: number;
}

export type Behaviour =
  | { status: number; headers?: Record<string, string>; body?: string }
  | 'hang'
  | ((received: Received, index: number) => { status: number; headers?: Record<string, string> } | 'hang');

export interface Receiver {
  url: string;
  received: Received[];
  behaviour: Behaviour;
  close(): Promise<void>;
}

export async function startReceiver(behaviour: Behaviour = { status: 200 }): Promise<Receiver> {
  const received: Received[] = [];
  const receiver: Receiver = { url: '', received, behaviour, close: async () => {} };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry: Received = {
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        path: req.url ?? '/',
        at: performance.now(),
      };
      received.push(entry);
      const b = receiver.behaviour;
      const answer = typeof b === 'function' ? b(entry, received.length - 1) : b;
      if (answer === 'hang') return; // never answers
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end('body' in answer && answer.body ? answer.body : '{"ok":true}');
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/** Starts receivers for one test file and closes every one of them after the file's tests. */
export function receiverPool(): (behaviour?: Behaviour) => Promise<Receiver> {
  const started: Receiver[] = [];
  after(async () => {
    await Promise.all(started.map((r) => r.close()));
  });
  return async (behaviour) => {
    const r = await startReceiver(behaviour);
    started.push(r);
    return r;
  };
}
