// Sign-in and sessions: the whole sign-in round trip against a local OpenID provider (the
// service's redirect, the provider's pages, the callback with its code exchange and id-token
// checks, matching and the new session), and the cost a session check adds to an admin
// request: the same GET with the session cookie against the same GET with an operator token
// given by configuration (checked without the database). Target: under 2 ms at p50.
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'undici';
import { buildApp } from '../src/app/app.ts';
import { loadConfig } from '../src/config.ts';
import type { Db } from '../src/db/db.ts';
import { createRuntime } from '../src/runtime.ts';
import { signInThroughProvider, startTestIdp, TEST_CLIENT } from '../test/helpers/idp.ts';
import { openScratchPglite, openScratchPostgres } from '../test/helpers/scratch-db.ts';
import { percentile } from './bench-app.ts';
import type { BenchOptions } from './run.ts';
import { size } from './size.ts';

const ROUND_TRIPS = size(30, 2, 'BENCH_SIGN_INS');
const REQUESTS = size(2000, 20, 'BENCH_REQUESTS');
/** Requests before the timed ones, for the JIT and the connection pool. */
const WARMUP = size(100, 5);

/**
 * The app listening on a port it was configured with (its public URL is the sign-in's redirect
 * URI). Ports are drawn below Linux's ephemeral range (32768 up), which outgoing connections take
 * theirs from, and drawn again if one is in use after all (another process listening there).
 */
async function listenOnAPort(db: Db, operatorToken: string) {
  for (let attempt = 1; ; attempt++) {
    const port = 10_000 + Math.floor(Math.random() * 22_000);
    const base = `http://127.0.0.1:${port}`;
    const config = loadConfig({
      OPERATOR_TOKEN: operatorToken,
      LOG_LEVEL: 'silent',
      ENCRYPTION_KEY: randomBytes(32).toString('base64url'),
      ALLOW_LOOPBACK_OUTBOUND: 'true',
      PUBLIC_BASE_URL: base,
      RUN_WORKERS: 'false',
      // The round trips come from one address, faster than a person signs in: the limit (30 a
      // minute by default) would answer 429 from the 31st on, and the benchmark measures sign-in.
      SIGN_IN_RATE_LIMIT_PER_MINUTE: '100000',
    });
    const runtime = createRuntime({ db, config });
    const app = await buildApp(runtime, { logger: false });
    try {
      await app.listen({ host: '127.0.0.1', port });
      return { app, runtime, base };
    } catch (error) {
      await app.close();
      await runtime.close();
      if ((error as { code?: string }).code !== 'EADDRINUSE' || attempt === 5) throw error;
    }
  }
}

async function benchKind(kind: 'pglite' | 'postgres', databaseUrl?: string) {
  const db =
    kind === 'pglite'
      ? await openScratchPglite()
      : await openScratchPostgres(databaseUrl!, { prefix: 'bench' });
  const operatorToken = `ssp_op_${randomBytes(16).toString('hex')}`;
  const { app, runtime, base } = await listenOnAPort(db, operatorToken);
  const idp = await startTestIdp({ clients: [{ ...TEST_CLIENT, redirect_uris: [`${base}/auth/callback`] }] });
  const agent = new Agent({ keepAliveTimeout: 30_000 });
  const admin = (method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) =>
    request(`${base}${path}`, {
      method,
      dispatcher: agent,
      headers: { authorization: `Bearer ${operatorToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then((r) => r.body.json() as Promise<Record<string, unknown>>);
  try {
    const slug = `bench-${randomBytes(3).toString('hex')}`;
    await admin('POST', '/admin/v1/institutions', { slug, name: 'Bench' });
    await admin('PUT', `/admin/v1/institutions/${slug}/identity-provider`, {
      issuer: idp.issuer,
      client_id: TEST_CLIENT.client_id,
      client_secret: TEST_CLIENT.client_secret,
    });
    await admin('POST', `/admin/v1/institutions/${slug}/people`, {
      email: 'staff@example.edu',
      name: 'Staff',
      roles: ['admin'],
    });

    const rounds: number[] = [];
    let session = '';
    for (let i = 0; i < ROUND_TRIPS + 3; i++) {
      const started = performance.now();
      const begin = await fetch(`${base}/auth/${slug}/sign-in`, { redirect: 'manual' });
      const flow = begin.headers
        .getSetCookie()
        .find((c) => c.startsWith('ssp_signin='))!
        .split(';')[0];
      const callback = await signInThroughProvider(begin.headers.get('location')!, 'sub-staff');
      const done = await fetch(`${base}${callback.pathname}${callback.search}`, {
        redirect: 'manual',
        headers: { cookie: flow },
      });
      session = done.headers
        .getSetCookie()
        .find((c) => c.startsWith('ssp_session='))!
        .split(';')[0];
      if (i >= 3) rounds.push(performance.now() - started);
    }

    const timed = async (headers: Record<string, string>) => {
      const times: number[] = [];
      for (let i = 0; i < REQUESTS + WARMUP; i++) {
        const started = performance.now();
        const res = await request(`${base}/admin/v1/institutions/${slug}/cohorts`, {
          dispatcher: agent,
          headers,
        });
        await res.body.dump();
        if (res.statusCode !== 200) throw new Error(`GET cohorts: ${res.statusCode}`);
        if (i >= WARMUP) times.push(performance.now() - started);
      }
      return times;
    };
    const withToken = await timed({ authorization: `Bearer ${operatorToken}` });
    const withSession = await timed({ cookie: session });
    const p50 = (v: number[]) => percentile(v, 50);
    process.stdout.write(
      `${kind}: sign-in round trip p50 ${p50(rounds).toFixed(1)} ms, p95 ${percentile(rounds, 95).toFixed(1)} ms (${ROUND_TRIPS} runs)\n` +
        `${kind}: admin GET p50 ${p50(withToken).toFixed(2)} ms with the operator token, ${p50(withSession).toFixed(2)} ms with a session: ` +
        `the session check adds ${(p50(withSession) - p50(withToken)).toFixed(2)} ms at p50 (target under 2 ms); ` +
        `p95 ${percentile(withToken, 95).toFixed(2)} / ${percentile(withSession, 95).toFixed(2)} ms\n`,
    );
  } finally {
    await idp.close();
    await agent.close();
    await app.close();
    await runtime.close();
    await db.close();
  }
}

export async function run(options: BenchOptions): Promise<void> {
  await benchKind('pglite');
  if (options.databaseUrl) await benchKind('postgres', options.databaseUrl);
}
