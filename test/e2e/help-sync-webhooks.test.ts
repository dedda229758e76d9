// The whole loop: a staff change and a help-desk sync change each reach a webhook endpoint,
// signed, with the origin that lets the help desk drop its own echo.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { systemClock } from '../../src/lib/clock.ts';
import { describeEachDatabase } from '../helpers/app.ts';
import { createHelpRequest, helpSync, seedHelpdesk, staff } from '../helpers/helpdesk.ts';
import { receiverPool } from '../helpers/receiver.ts';
import { addEndpoint, workerFor } from '../helpers/webhooks.ts';

const startReceiver = receiverPool();

interface Delivered {
  type: string;
  data: {
    help_request_id: string;
    status: string;
    origin: string;
    external_ref?: string;
    actor: string;
    version: number;
  };
}

describeEachDatabase(
  'help-request changes reach webhook endpoints',
  (ctx) => {
    test('created, crisis, staff and sync changes are delivered with their origin', async () => {
      const tenant = await seedHelpdesk(ctx());
      const receiver = await startReceiver();
      const endpoint = await addEndpoint(ctx(), tenant, { url: receiver.url });

      const request = await createHelpRequest(ctx(), tenant, { priority: 'crisis' });
      const ack = await helpSync(ctx(), tenant.syncSecret, {
        institution: tenant.slug,
        actor: 'Service Desk',
        updates: [{ help_request_id: request.id, action: 'acknowledge', external_ref: 'INC-7' }],
      });
      assert.equal(ack.statusCode, 200, ack.body);
      assert.equal(ack.json().results[0].changed, true);
      const staffChange = await staff(ctx(), tenant, request.id, 'status', { status: 'in_progress' });
      assert.equal(staffChange.statusCode, 200, staffChange.body);

      const worker = workerFor(ctx(), tenant, systemClock);
      try {
        await worker.drain();
      } finally {
        await worker.close();
      }

      const delivered = receiver.received.map(
        (got) =>
          new Webhook(endpoint.secret).verify(got.body, got.headers as Record<string, string>) as Delivered,
      );
      const summary = delivered
        .map((d) => `${d.type} ${d.data.status} ${d.data.origin} v${d.data.version}`)
        .sort();
      assert.deepEqual(summary, [
        'help_request.created new platform v1',
        'help_request.crisis new platform v1',
        'help_request.updated ack integration v2',
        'help_request.updated in_progress platform v3',
      ]);
      for (const d of delivered) assert.equal(d.data.help_request_id, request.id);
      const fromSync = delivered.find((d) => d.data.origin === 'integration')!;
      assert.equal(fromSync.data.external_ref, 'INC-7');
      assert.equal(fromSync.data.actor, 'Service Desk');
      const fromStaff = delivered.find((d) => d.data.status === 'in_progress')!;
      assert.equal(fromStaff.data.external_ref, 'INC-7', 'external_ref is echoed in every later event');
      assert.equal(fromStaff.data.origin, 'platform');
    });
  },
  { config: { allowLoopbackOutbound: true } },
);
