// Every answered request into ssp_http_request_duration_seconds (src/lib/telemetry/metrics.ts),
// labelled by the route's template, never the raw path: /admin/v1/institutions/{slug} is one
// series however many institutions there are, and a request that matched no route is `unmatched`.
import { httpRequestDuration, startProcessMetrics } from '../../lib/telemetry/metrics.ts';
import type { App } from '../types.ts';

export function registerHttpMetrics(app: App): void {
  startProcessMetrics();
  app.addHook('onResponse', async (request, reply) => {
    httpRequestDuration.observe(
      {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status_code: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
  });
}
