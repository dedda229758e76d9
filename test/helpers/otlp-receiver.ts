// A local OTLP/HTTP receiver, as an OpenTelemetry collector would be: it takes POST /v1/traces
// in OTLP's JSON encoding (OTEL_EXPORTER_OTLP_PROTOCOL=http/json) and keeps the spans it decoded.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { scaled } from './time-limit.ts';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** The instrumentation that made it (its scope): @opentelemetry/instrumentation-pg, say. */
  scope: string;
  attributes: Record<string, unknown>;
  service?: string;
}

export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  /** Waits until `match` is true of the spans received (polling), at most `ms`. */
  waitFor(match: (spans: ReceivedSpan[]) => boolean, ms?: number): Promise<void>;
  close(): Promise<void>;
}

type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
};
const plain = (v: AnyValue) => v.stringValue ?? v.intValue ?? v.boolValue ?? v.doubleValue;
const attributesOf = (list: { key: string; value: AnyValue }[] = []) =>
  Object.fromEntries(list.map(({ key, value }) => [key, plain(value)]));

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      for (const resourceSpans of body.resourceSpans ?? []) {
        const service = attributesOf(resourceSpans.resource?.attributes)['service.name'] as
          | string
          | undefined;
        for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
          for (const span of scopeSpans.spans ?? []) {
            spans.push({
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId || undefined,
              name: span.name,
              scope: scopeSpans.scope?.name ?? '',
              attributes: attributesOf(span.attributes),
              service,
            });
          }
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    async waitFor(match, ms = 20_000) {
      const deadline = Date.now() + scaled(ms);
      while (!match(spans)) {
        if (Date.now() > deadline)
          throw new Error(`spans not received in time; got: ${spans.map((s) => s.name).join(', ')}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
