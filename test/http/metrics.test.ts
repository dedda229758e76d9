// GET /metrics after real traffic: requests by route template and status, feed rows and runs,
// every worker's queue and jobs, the pool (PostgreSQL), Node.js's event-loop delay; readable with
// the scrape token only.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  describeEachDatabase,
  METRICS_TOKEN,
  OPERATOR_TOKEN,
  seedTenant,
  startTestApp,
} from '../helpers/app.ts';
import { databaseKinds } from '../helpers/db.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { pushRoster } from '../helpers/roster.ts';
import { addEndpoint, emitEvent, testClock, workerFor } from '../helpers/webhooks.ts';

/** The value of one sample, by its exact name and labels as printed; undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describeEachDatabase(
  'GET /metrics',
  (ctx) => {
    const scrape = async () => {
      const res = await ctx().request({ method: 'GET', url: '/metrics', token: METRICS_TOKEN });
      assert.equal(res.statusCode, 200, res.body);
      assert.match(res.headers['content-type'] as string, /^text\/plain; version=0\.0\.4/);
      return res.body;
    };

    test('after real traffic: requests, feeds, runs, workers, event loop', async () => {
      const tenant = await seedTenant(ctx());
      const push = await pushRoster(ctx(), tenant, {
        students: [
          { email: 'one@example.edu', student_id_ext: 'M1' },
          { email: 'two@example.edu', student_id_ext: 'M2' },
          { email: 'not-an-email', student_id_ext: 'M3' },
        ],
      });
      assert.equal(push.statusCode, 200, push.body);
      await ctx().request({ method: 'GET', url: '/health/live' });
      await ctx().request({
        method: 'GET',
        url: `/admin/v1/institutions/${tenant.slug}`,
        token: OPERATOR_TOKEN,
      });
      await ctx().request({ method: 'GET', url: '/no/such/route/42' });

      // A webhook delivered by the worker: one job, and its outbound request.
      const receiver = await startReceiver({ status: 204 });
      await addEndpoint(ctx(), tenant, { url: receiver.url });
      const clock = testClock();
      await emitEvent(ctx(), tenant, clock);
      const worker = workerFor(ctx(), tenant, clock);
      try {
        await worker.drain();
      } finally {
        await worker.close();
        await receiver.close();
      }
      // One more due and waiting, so the queue has depth.
      await emitEvent(ctx(), tenant, clock);

      const text = await scrape();
      const count = (labels: string) => sample(text, `ssp_http_request_duration_seconds_count{${labels}}`);
      assert.ok((count('method="POST",route="/api/sis/sync",status_code="200"') ?? 0) >= 1, 'the push');
      assert.ok((count('method="GET",route="/health/live",status_code="200"') ?? 0) >= 1, 'the probe');
      assert.ok(
        (count('method="GET",route="/admin/v1/institutions/:slug",status_code="200"') ?? 0) >= 1,
        'a route is labelled by its template, not the slug',
      );
      assert.ok((count('method="GET",route="unmatched",status_code="404"') ?? 0) >= 1, 'unmatched');
      assert.doesNotMatch(text, new RegExp(tenant.slug), 'no institution slug in any label');
      assert.doesNotMatch(text, /no\/such\/route/);

      assert.ok((sample(text, 'ssp_feed_rows_total{feed="roster",outcome="created"}') ?? 0) >= 2);
      assert.ok((sample(text, 'ssp_feed_row_errors_total{feed="roster"}') ?? 0) >= 1);
      assert.ok((sample(text, 'ssp_feed_rows_received_total{feed="roster"}') ?? 0) >= 3);
      assert.ok(
        (sample(text, 'ssp_runs_total{kind="roster",outcome="row_errors",dry_run="false"}') ?? 0) >= 1,
      );

      assert.ok(
        (sample(text, 'ssp_worker_job_duration_seconds_count{worker="webhooks",outcome="success"}') ?? 0) >=
          1,
      );
      for (const worker of ['webhooks', 'calendar', 'notifications', 'oneroster']) {
        assert.notEqual(sample(text, `ssp_worker_queue_depth{worker="${worker}"}`), undefined, worker);
        assert.notEqual(sample(text, `ssp_worker_queue_lag_seconds{worker="${worker}"}`), undefined, worker);
      }
      assert.ok((sample(text, 'ssp_worker_queue_depth{worker="webhooks"}') ?? 0) >= 1);
      assert.ok((sample(text, 'ssp_webhook_deliveries{state="pending"}') ?? 0) >= 1);
      assert.notEqual(sample(text, 'nodejs_eventloop_lag_p99_seconds'), undefined);

      if (ctx().kind === 'postgres') {
        assert.ok((sample(text, 'ssp_db_pool_connections{state="max"}') ?? 0) >= 1);
        assert.ok((sample(text, 'ssp_db_pool_wait_seconds_count') ?? 0) >= 1);
      }
    });

    test('only the scrape token reads it: not the operator token, nor nothing, nor a wrong one', async () => {
      for (const token of [undefined, OPERATOR_TOKEN, 'wrong-scrape-token-value']) {
        const res = await ctx().request({ method: 'GET', url: '/metrics', token });
        assert.equal(res.statusCode, 401, String(token));
        assert.equal(res.json().error, 'unauthorized');
      }
    });
  },
  { config: { allowLoopbackOutbound: true } },
);

test('without METRICS_TOKEN, /metrics is off: 404 with how to turn it on', async () => {
  const ctx = await startTestApp(databaseKinds()[0], { config: { metricsTokenHash: undefined } });
  try {
    const res = await ctx.request({ method: 'GET', url: '/metrics', token: OPERATOR_TOKEN });
    assert.equal(res.statusCode, 404);
    assert.match(res.json().detail, /METRICS_TOKEN/);
  } finally {
    await ctx.close();
  }
});
