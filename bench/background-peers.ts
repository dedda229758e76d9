// The background benchmark's outside parties in a process of their own (bench/background.ts
// forks it): the SIS pushing its nightly roster (each page of 5000 built and serialized, some
// 80 ms) and the webhook receiver (10,000 requests answered). In the server's process their work
// held the probes' event loop as if it were the server's own.

import { Agent, request } from 'undici';
import { startReceiver } from './webhooks.ts';

export type PeerAsk =
  | { id: number; ask: 'receiver' }
  | { id: number; ask: 'received'; count: number }
  | {
      id: number;
      ask: 'push';
      origin: string;
      secret: string;
      cohortId: string;
      version: number;
      students: number;
      page: number;
    };

export type PeerReply = { id: number; url?: string; error?: string };

async function pushStudents(ask: Extract<PeerAsk, { ask: 'push' }>) {
  const agent = new Agent({ keepAliveTimeout: 60_000 });
  try {
    for (let start = 0; start < ask.students; start += ask.page) {
      const students = Array.from({ length: Math.min(ask.page, ask.students - start) }, (_, k) => ({
        email: `student${start + k}@night.example.edu`,
        student_id_ext: `N${start + k}`,
        first_name: `Given${start + k}`,
        last_name: `Family${start + k}v${ask.version}`,
        start_date: '2026-02-23',
      }));
      const res = await request(`${ask.origin}/api/sis/sync`, {
        method: 'POST',
        dispatcher: agent,
        headers: { authorization: `Bearer ${ask.secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ cohort_id: ask.cohortId, students }),
      });
      const text = await res.body.text();
      if (res.statusCode >= 300) throw new Error(`roster push: ${res.statusCode} ${text.slice(0, 300)}`);
    }
  } finally {
    await agent.close();
  }
}

const receiver = await startReceiver();
const send = (reply: PeerReply) => process.send!(reply);

process.on('message', (ask: PeerAsk) => {
  if (ask.ask === 'receiver') send({ id: ask.id, url: receiver.url });
  else if (ask.ask === 'received') {
    const check = () => (receiver.count >= ask.count ? send({ id: ask.id }) : setTimeout(check, 20));
    check();
  } else {
    pushStudents(ask).then(
      () => send({ id: ask.id }),
      (error: Error) => send({ id: ask.id, error: error.message }),
    );
  }
});
process.on('disconnect', () => {
  void receiver.close().then(() => process.exit(0));
});
process.send!({ id: 0 });
