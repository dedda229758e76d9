// A PgBouncer of the test's own, in transaction pooling mode, in front of a PostgreSQL: its ini
// and userlist in a temp directory, listening on a free loopback port. With a small server pool,
// many clients share few server connections, so any session-level state a feature relied on
// (a session advisory lock, a named prepared statement, a SET, LISTEN) would surface as a
// failure. The ini is the one docs/scaling.md recommends.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './free-port.ts';
import { scaled } from './time-limit.ts';

export const PGBOUNCER = process.env.PGBOUNCER_BIN ?? '/usr/sbin/pgbouncer';

export interface Pgbouncer {
  /** Connection string of the pooled database (`ssp`) through the bouncer. */
  url: string;
  /** Server connections PgBouncer may open to PostgreSQL for the database. */
  poolSize: number;
  /** The bouncer's log so far (for a failure's message). */
  log(): string;
  close(): Promise<void>;
}

/** PgBouncer refuses to run as root: it then runs as this user, which must read its directory. */
function unprivilegedUser(): { name: string; uid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    try {
      return { name, uid: Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim()) };
    } catch {
      // no such user
    }
  }
  throw new Error('running as root with neither a postgres nor a nobody user for PgBouncer');
}

export async function startPgbouncer(options: {
  /** The PostgreSQL server (its user and password are the bouncer's too). */
  serverUrl: string;
  /** Database on that server that the pooled `ssp` database stands for. */
  dbname: string;
  poolSize?: number;
}): Promise<Pgbouncer> {
  const server = new URL(options.serverUrl);
  const user = decodeURIComponent(server.username || 'postgres');
  const password = decodeURIComponent(server.password);
  const poolSize = options.poolSize ?? 4;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ssp-pgbouncer-'));
  const runAs = unprivilegedUser();
  if (runAs) fs.chownSync(dir, runAs.uid, -1);
  const quote = (value: string) => `'${value.replaceAll("'", "''")}'`;
  fs.writeFileSync(path.join(dir, 'userlist.txt'), `"${user}" "${password.replaceAll('"', '""')}"\n`);
  let child: ChildProcess | undefined;
  let port = 0;
  for (let attempt = 0; attempt < 3 && !child; attempt++) {
    port = await freePort();
    const ini = [
      '[databases]',
      `ssp = host=${server.hostname} port=${server.port || 5432} dbname=${options.dbname} user=${user}` +
        (password ? ` password=${quote(password)}` : ''),
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      // Clients on loopback only; PgBouncer logs in to PostgreSQL with the password above.
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'userlist.txt')}`,
      `admin_users = ${user}`,
      'pool_mode = transaction',
      `default_pool_size = ${poolSize}`,
      'max_client_conn = 200',
      // node-postgres sends `options` (-c jit=off) at start-up, which PgBouncer 1.18 cannot pass
      // on per transaction: it is ignored here, and jit is set for the role instead (docs/scaling.md).
      'ignore_startup_parameters = extra_float_digits, options',
      `logfile = ${path.join(dir, 'pgbouncer.log')}`,
      `pidfile = ${path.join(dir, 'pgbouncer.pid')}`,
      ...(runAs ? [`user = ${runAs.name}`] : []),
    ].join('\n');
    fs.writeFileSync(path.join(dir, 'pgbouncer.ini'), `${ini}\n`);
    const started = spawn(PGBOUNCER, [path.join(dir, 'pgbouncer.ini')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let exited = false;
    started.on('exit', () => {
      exited = true;
    });
    started.stdout?.resume();
    started.stderr?.resume();
    if (await answers(port, user, () => exited)) child = started;
    else started.kill('SIGKILL');
  }
  const log = () => {
    try {
      return fs.readFileSync(path.join(dir, 'pgbouncer.log'), 'utf8');
    } catch {
      return '';
    }
  };
  if (!child) throw new Error(`PgBouncer did not start:\n${log()}`);
  const running = child;
  const auth = password
    ? `${encodeURIComponent(user)}:${encodeURIComponent(password)}`
    : encodeURIComponent(user);
  return {
    url: `postgres://${auth}@127.0.0.1:${port}/ssp`,
    poolSize,
    log,
    async close() {
      if (running.exitCode === null) {
        const exited = new Promise((resolve) => running.once('exit', resolve));
        running.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Waits up to 5 s (scaled by the machine's load) for the bouncer to answer a query. */
async function answers(port: number, user: string, exited: () => boolean): Promise<boolean> {
  const deadline = Date.now() + scaled(5_000);
  while (Date.now() < deadline && !exited()) {
    const client = new pg.Client({ host: '127.0.0.1', port, user, database: 'pgbouncer' });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query('SHOW VERSION');
      return true;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      await client.end().catch(() => {});
    }
  }
  return false;
}
