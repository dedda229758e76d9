// The outbound URL guard on calendar feeds without the development setting: at save time
// (every spelling of a refused address, names that resolve to one) and at connect time (a
// saved name that now resolves to loopback is never connected to).
import assert from 'node:assert/strict';
import net, { type AddressInfo } from 'node:net';
import { test } from 'node:test';
import { seedTenant } from '../helpers/app.ts';
import { describeCalendar } from './helpers.ts';

describeCalendar(
  'calendar feed URL guard',
  (ctx) => {
    test('refused when saved: plain http, loopback, private, link-local and metadata addresses in any spelling', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const base = `/admin/v1/institutions/${tenant.slug}/calendar-feeds`;
      for (const url of [
        'http://calendar.public.example/term.ics',
        'https://127.0.0.1/cal.ics',
        'https://[::1]/cal.ics',
        'https://[::ffff:127.0.0.1]/cal.ics',
        'https://2130706433/cal.ics',
        'https://0177.0.0.1/cal.ics',
        'https://0x7f.1/cal.ics',
        'https://localhost/cal.ics',
        'https://calendar.localhost/cal.ics',
        'https://169.254.169.254/latest/meta-data/',
        'https://metadata.google.internal/computeMetadata/v1/',
        'https://[fd00:ec2::254]/cal.ics',
        'https://10.0.0.1/cal.ics',
        'https://192.168.1.20/cal.ics',
        'https://100.100.100.200/cal.ics',
        'https://calendar.rebound.example/cal.ics',
        'https://does-not-resolve.invalid/cal.ics',
        'ftp://calendar.public.example/cal.ics',
        'https://user:pass@calendar.public.example/cal.ics',
        'not a url',
      ]) {
        const res = await ctx().admin('POST', base, { url });
        assert.equal(res.statusCode, 400, url);
        assert.equal(res.json().error, url === 'not a url' ? 'url_not_allowed' : 'url_not_allowed', url);
        assert.equal(res.json().field, 'url');
      }
      const saved = await ctx().admin('POST', base, { url: 'webcal://calendar.public.example/term.ics' });
      assert.equal(saved.statusCode, 201, saved.body);
      assert.equal(saved.json().url, 'https://calendar.public.example/term.ics');
      const changed = await ctx().admin('PATCH', `${base}/${saved.json().id}`, {
        url: 'https://127.0.0.1/x.ics',
      });
      assert.equal(changed.statusCode, 400);
    });

    test('refused at connect time: a saved name that now resolves to loopback is never connected to', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      let connections = 0;
      const listener = net.createServer((socket) => {
        connections++;
        socket.destroy();
      });
      await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
      const port = (listener.address() as AddressInfo).port;
      try {
        // Public when saved (the save-time resolver says so); the connect-time lookup answers loopback.
        const created = await ctx().admin('POST', `/admin/v1/institutions/${tenant.slug}/calendar-feeds`, {
          url: `https://calendar.public.example:${port}/term.ics`,
        });
        assert.equal(created.statusCode, 201, created.body);
        const res = await ctx().admin(
          'POST',
          `/admin/v1/institutions/${tenant.slug}/calendar-feeds/${created.json().id}/fetch`,
        );
        assert.equal(res.statusCode, 200);
        assert.equal(res.json().status, 'failed');
        assert.match(
          res.json().error,
          /refused: calendar\.public\.example resolves only to non-public addresses/,
        );
      } finally {
        await new Promise((resolve) => listener.close(resolve));
      }
      assert.equal(connections, 0, 'no TCP connection was made');
    });
  },
  { allowLoopback: false },
);
