// ssp demo --serve (npm run demo): the whole product in one process, for trying it. The
// embedded service on loopback, the development identity provider, the term's key dates as an
// .ics on loopback; the demo institution filled through the service's HTTP API exactly as
// `ssp demo` fills a running service; then how to sign in as each role, until Ctrl-C stops
// everything. Nothing here is for production: loopback outbound calls are on, the identity
// provider lets anyone sign in as anyone.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../config.ts';
import { DEMO_PEOPLE, demoClient } from '../../dev-idp/demo.ts';
import { startDevIdp } from '../../dev-idp/dev-idp.ts';
import { mintOperatorLink } from '../../domain/people/sign-in.ts';
import { generateSecret } from '../../lib/secrets.ts';
import { startService } from '../../main.ts';
import { CliError, createAdminClient } from '../admin-client.ts';
import { EXIT } from '../exit-codes.ts';
import { serveDemoCalendar } from './calendar.ts';
import { fillDemo, signInText } from './demo.ts';

export interface ServeDemoOptions {
  slug: string;
  students: number;
  /** The service's port (0: a free one). */
  port: number;
  /** The identity provider's port (0: a free one). */
  idpPort: number;
  /** Keep the embedded database here; without it, a new one that Ctrl-C deletes. */
  dataDir?: string;
  log: (line: string) => void;
  /** Resolves when the demo is to stop (default: SIGINT or SIGTERM). */
  stopped?: Promise<unknown>;
}

export async function serveDemo(o: ServeDemoOptions): Promise<void> {
  const dataDir = o.dataDir ? path.resolve(o.dataDir) : fs.mkdtempSync(path.join(os.tmpdir(), 'ssp-demo-'));
  const port = o.port || (await freePort());
  // A token for this run only: the demo calls the admin API with it, and prints it for the CLI.
  const token = generateSecret('ssp_op_');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_BASE_URL: `http://localhost:${port}`,
    DATA_DIR: dataDir,
    ALLOW_LOOPBACK_OUTBOUND: 'true',
    OPERATOR_TOKEN: token,
    LOG_LEVEL: process.env.LOG_LEVEL || 'warn',
  };
  // Always the embedded database: a demo never fills a real one.
  for (const name of ['DATABASE_URL', 'OPERATOR_TOKEN_SHA256', 'REDIS_URL']) delete env[name];
  const config = loadConfig(env);

  const cleanups: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
    if (!o.dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  };
  const stopped =
    o.stopped ??
    new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    });
  try {
    // One line for the migrations of a new database, not one per migration.
    const say = (line: string) =>
      /^applying migration (?!1 of)/.test(line)
        ? undefined
        : o.log(`ssp: ${line.replace(/^applying migration 1 of (\d+).*/, 'applying $1 migrations')}`);
    const service = await startService(config, say);
    cleanups.push(() => service.close());
    const idp = await startDevIdp({
      host: '127.0.0.1',
      port: o.idpPort,
      people: [...DEMO_PEOPLE],
      clients: [demoClient(config.publicBaseUrl)],
    }).catch((error: Error) => {
      throw new CliError(
        `the development identity provider cannot listen on port ${o.idpPort} (${error.message}): pass another --idp-port`,
        EXIT.failed,
      );
    });
    cleanups.push(() => idp.close());
    const calendar = await serveDemoCalendar();
    cleanups.push(() => calendar.close());

    const url = `http://127.0.0.1:${port}`;
    const admin = createAdminClient({ url, token });
    const demo = {
      url,
      publicUrl: config.publicBaseUrl,
      slug: o.slug,
      idp: idp.issuer,
      students: o.students,
      calendarUrl: calendar.url,
      webhookUrl: calendar.webhookUrl,
      log: o.log,
    };
    if (await institutionExists(admin, o.slug)) {
      o.log(`the demo institution ${o.slug} is already in ${dataDir}: signing in as before`);
      await pointAtThisRun(admin, o.slug, idp.issuer, calendar);
      o.log(signInText(demo, true));
    } else await fillDemo(admin, demo);
    const link = await mintOperatorLink(service.deps);
    o.log(
      [
        '',
        `Operator (the platform's own console; the link works once): ${link.url}`,
        `Operator token for the CLI this run: SSP_URL=${url} SSP_OPERATOR_TOKEN=${token} npx ssp institutions list`,
        o.dataDir
          ? `The data stays in ${dataDir}.`
          : 'Nothing is kept: Ctrl-C stops the demo and deletes its data (--data-dir DIR keeps it).',
        'Press Ctrl-C to stop.',
      ].join('\n'),
    );
    await stopped;
    o.log('stopping the demo…');
  } finally {
    await stopAll();
  }
}

async function institutionExists(admin: ReturnType<typeof createAdminClient>, slug: string) {
  try {
    await admin('GET', `/admin/v1/institutions/${encodeURIComponent(slug)}`);
    return true;
  } catch (error) {
    if (error instanceof CliError && error.message.startsWith('404 ')) return false;
    throw error;
  }
}

/** A kept demo started again: the provider's and the calendar's ports are this run's. */
async function pointAtThisRun(
  admin: ReturnType<typeof createAdminClient>,
  slug: string,
  issuer: string,
  feeds: { url: string; webhookUrl: string },
) {
  const inst = `/admin/v1/institutions/${encodeURIComponent(slug)}`;
  const current = (await admin('GET', `${inst}/identity-provider`).catch(() => null)) as {
    client_id?: string;
    email_domains?: string[];
  } | null;
  const { DEMO_CLIENT_ID, DEMO_CLIENT_SECRET } = await import('../../dev-idp/demo.ts');
  await admin('PUT', `${inst}/identity-provider`, {
    issuer,
    client_id: current?.client_id ?? DEMO_CLIENT_ID,
    client_secret: DEMO_CLIENT_SECRET,
    email_domains: current?.email_domains ?? ['example.edu', 'student.example.edu'],
  });
  const loopback = (url: string) => url.startsWith('http://127.0.0.1:');
  const calendars = (await admin('GET', `${inst}/calendar-feeds`)) as Listing;
  for (const feed of calendars.items.filter((f) => loopback(f.url)))
    await admin('PATCH', `${inst}/calendar-feeds/${encodeURIComponent(feed.id)}`, { url: feeds.url });
  const endpoints = (await admin('GET', `${inst}/webhook-endpoints`)) as Listing;
  for (const endpoint of endpoints.items.filter((e) => loopback(e.url)))
    await admin('PATCH', `${inst}/webhook-endpoints/${encodeURIComponent(endpoint.id)}`, {
      url: feeds.webhookUrl,
    });
}

type Listing = { items: { id: string; url: string }[] };

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
