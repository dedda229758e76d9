// What the real server writes to its log: a load balancer's probes and Prometheus' scrapes only
// at debug, and the operator token given by configuration never, nor the scrape token, whatever
// requests carry them (right or wrong).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { migratedDataDir } from '../helpers/scratch-db.ts';
import { startServerProcess } from '../helpers/server-process.ts';
import { testTimeout } from '../helpers/time-limit.ts';

const OPERATOR_TOKEN = 'ssp_op_configured-operator-token-never-logged';
const METRICS_TOKEN = 'scrape-token-never-logged-either';

async function serveAndCall(level: string): Promise<string> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ssp-logs-'));
  // A later start's log (test/main.test.ts has the first start's output).
  await migratedDataDir(dataDir);
  const server = await startServerProcess(dataDir, { LOG_LEVEL: level, OPERATOR_TOKEN, METRICS_TOKEN });
  try {
    const get = (url: string, token?: string) =>
      fetch(`${server.url}${url}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    assert.equal((await get('/health/live')).status, 200);
    assert.equal((await get('/health/ready')).status, 200);
    assert.equal((await get('/metrics', METRICS_TOKEN)).status, 200);
    assert.equal((await get('/metrics', OPERATOR_TOKEN)).status, 401);
    assert.equal((await get('/admin/v1/institutions', OPERATOR_TOKEN)).status, 200);
    assert.equal((await get('/admin/v1/institutions', `${OPERATOR_TOKEN}x`)).status, 401);
    assert.equal((await get(`/admin/v1/institutions?token=${OPERATOR_TOKEN}`, OPERATOR_TOKEN)).status, 400);
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return server.output();
}

test('at info: probes and scrapes write no request lines; tokens are never written', {
  timeout: testTimeout(120_000),
}, async () => {
  const output = await serveAndCall('info');
  assert.match(output, /"url":"\/admin\/v1\/institutions"/, 'other requests are logged');
  assert.doesNotMatch(output, /"url":"\/health\//);
  assert.doesNotMatch(output, /"url":"\/metrics"/);
  assert.ok(!output.includes(OPERATOR_TOKEN.slice(8)), 'the operator token is never in the log');
  assert.ok(!output.includes(METRICS_TOKEN), 'nor the scrape token');
  assert.doesNotMatch(output, /Operator token \(shown once/, 'a configured token is not minted nor printed');
});

test('at debug: the probes are logged too, still without any token', {
  timeout: testTimeout(120_000),
}, async () => {
  const output = await serveAndCall('debug');
  assert.match(output, /"level":20,[^\n]*"url":"\/health\/live"/);
  assert.match(output, /"level":20,[^\n]*"url":"\/metrics"/);
  assert.ok(!output.includes(OPERATOR_TOKEN.slice(8)));
  assert.ok(!output.includes(METRICS_TOKEN));
});
