import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig, tracingWanted } from './config.ts';
import { sha256Hex } from './lib/secrets.ts';

test('defaults serve on the embedded database', () => {
  const config = loadConfig({});
  assert.equal(config.port, 3000);
  assert.equal(config.databaseUrl, undefined);
  assert.equal(config.rosterRateLimitPerMinute, 20);
  assert.equal(config.trustProxy, false);
  assert.equal(config.bootstrapRosterSecretHash, undefined);
});

test('secrets are kept only as SHA-256, given in plaintext or as a hash', () => {
  const plain = 'a-long-bootstrap-secret-value';
  assert.equal(loadConfig({ BOOTSTRAP_ROSTER_SECRET: plain }).bootstrapRosterSecretHash, sha256Hex(plain));
  const hash = sha256Hex('x'.repeat(32)).toUpperCase();
  assert.equal(
    loadConfig({ BOOTSTRAP_ROSTER_SECRET_SHA256: hash }).bootstrapRosterSecretHash,
    hash.toLowerCase(),
  );
});

test('trust proxy accepts true, a hop count or a list', () => {
  assert.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true);
  assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2);
  assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.1, 10.1.0.0/16' }).trustProxy, [
    '10.0.0.1',
    '10.1.0.0/16',
  ]);
});

test('every problem is reported at once', () => {
  assert.throws(
    () =>
      loadConfig({
        PORT: '70000',
        BOOTSTRAP_ROSTER_SECRET: 'short',
        OPERATOR_TOKEN: 'a-long-enough-operator-token',
        OPERATOR_TOKEN_SHA256: 'abc',
        REDIS_URL: 'http://x',
        RUN_WORKERS: 'maybe',
      }),
    (error: ConfigError) => {
      assert.ok(error instanceof ConfigError);
      assert.equal(error.problems.length, 5);
      return true;
    },
  );
});

test('PUBLIC_BASE_URL: default from the port, trailing slash dropped, bad values reported', () => {
  assert.equal(loadConfig({}).publicBaseUrl, 'http://localhost:3000');
  assert.equal(loadConfig({ PORT: '8080' }).publicBaseUrl, 'http://localhost:8080');
  assert.equal(
    loadConfig({ PUBLIC_BASE_URL: 'https://ssp.example.edu/api/' }).publicBaseUrl,
    'https://ssp.example.edu/api',
  );
  for (const bad of ['ssp.example.edu', 'ftp://x', 'https://x/?a=1'])
    assert.throws(() => loadConfig({ PUBLIC_BASE_URL: bad }), /PUBLIC_BASE_URL/);
});

test('EMBEDDED_DATABASE_THREAD: on by default, off on request', () => {
  assert.equal(loadConfig({}).embeddedThread, true);
  assert.equal(loadConfig({ EMBEDDED_DATABASE_THREAD: 'off' }).embeddedThread, false);
});

test('EMBEDDED_SHARED_BUFFERS: 16MB by default, a size from 1MB to 1GB, bad values reported', () => {
  assert.equal(loadConfig({}).embeddedSharedBuffers, '16MB');
  assert.equal(loadConfig({ EMBEDDED_SHARED_BUFFERS: '128MB' }).embeddedSharedBuffers, '128MB');
  assert.equal(loadConfig({ EMBEDDED_SHARED_BUFFERS: ' 2048kB ' }).embeddedSharedBuffers, '2048kB');
  for (const bad of ['32', '32mb', '512kB', '2GB', 'lots']) {
    assert.throws(
      () => loadConfig({ EMBEDDED_SHARED_BUFFERS: bad }),
      (error: unknown) =>
        error instanceof ConfigError &&
        /EMBEDDED_SHARED_BUFFERS must be a size from 1MB to 1GB/.test(error.message),
      bad,
    );
  }
});

test('METRICS_TOKEN: its own credential for /metrics, kept as SHA-256; off when unset', () => {
  assert.equal(loadConfig({}).metricsTokenHash, undefined);
  const token = 'a-scrape-token-of-its-own';
  assert.equal(loadConfig({ METRICS_TOKEN: token }).metricsTokenHash, sha256Hex(token));
  assert.equal(
    loadConfig({ METRICS_TOKEN_SHA256: sha256Hex(token).toUpperCase() }).metricsTokenHash,
    sha256Hex(token),
  );
  assert.throws(() => loadConfig({ METRICS_TOKEN: 'short' }), /METRICS_TOKEN must be at least 16/);
  assert.throws(
    () => loadConfig({ METRICS_TOKEN: token, METRICS_TOKEN_SHA256: sha256Hex(token) }),
    /set only one of METRICS_TOKEN and METRICS_TOKEN_SHA256/,
  );
});

test('METRICS_PORT: a listener of its own for `ssp worker`, only with a scrape token', () => {
  assert.equal(loadConfig({}).metricsPort, undefined);
  assert.equal(
    loadConfig({ METRICS_PORT: '9464', METRICS_TOKEN: 'a-scrape-token-of-its-own' }).metricsPort,
    9464,
  );
  assert.throws(() => loadConfig({ METRICS_PORT: '9464' }), /METRICS_PORT needs METRICS_TOKEN/);
  assert.throws(
    () => loadConfig({ METRICS_PORT: '70000', METRICS_TOKEN: 'a-scrape-token-of-its-own' }),
    /METRICS_PORT must be an integer from 1 to 65535/,
  );
});

test('tracing follows the standard OTEL_* variables and is off without them', () => {
  assert.equal(loadConfig({}).tracing, false);
  assert.equal(tracingWanted({}), false);
  assert.equal(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }), true);
  assert.equal(tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' }), true);
  assert.equal(tracingWanted({ OTEL_TRACES_EXPORTER: 'otlp' }), true);
  assert.equal(
    tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }),
    false,
  );
  assert.equal(
    tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' }),
    false,
  );
  assert.throws(
    () => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'udp' }),
    /OTEL_EXPORTER_OTLP_PROTOCOL must be one of/,
  );
});
