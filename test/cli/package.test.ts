// The ssp client package (npm run pack:cli) installed as a person installs it on the SIS
// machine: into an empty prefix, offline (every dependency is in the tarball), then
// `ssp --version` and a push against a real server through the installed command.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { pack } from '../../src/cli/pack/pack.ts';
import { seedTenant } from '../helpers/app.ts';
import { cliServer } from '../helpers/cli.ts';
import { writeCsv } from './push-helpers.ts';

const run = promisify(execFile);
const server = cliServer();

test('the packed client installs offline into an empty prefix and pushes', async () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ssp-package-'));
  const tarball = pack(path.join(work, 'dist'));
  const prefix = path.join(work, 'prefix');
  fs.mkdirSync(prefix);
  // Node 24 first on PATH, as on a SIS machine with it installed; npm with an empty cache.
  const env = {
    ...process.env,
    PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}`,
    npm_config_cache: path.join(work, 'npm-cache'),
    npm_config_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };
  await run('npm', ['install', '--global', '--prefix', prefix, tarball], { env });
  const ssp = path.join(prefix, 'bin', 'ssp');
  const own = JSON.parse(fs.readFileSync('package.json', 'utf8'));
  const version = await run(ssp, ['--version'], { env, cwd: work });
  assert.equal(version.stdout.trim(), own.version);

  const installed = path.join(prefix, 'lib', 'node_modules', 'ssp-cli');
  const files = fs.readdirSync(path.join(installed, 'src'), { recursive: true }).map(String);
  assert.ok(
    !files.some((f) => f.endsWith('.ts')),
    'JavaScript only: Node strips no types inside node_modules',
  );
  assert.ok(!fs.existsSync(path.join(installed, 'src', 'app')), 'no server in the client package');
  // The client carries what push and the admin commands load: no database driver, no embedded
  // database, no telemetry SDK (they came in once through `ssp worker`'s entry).
  const bundled = fs.readdirSync(path.join(installed, 'node_modules'));
  for (const name of [
    'pg',
    '@electric-sql',
    '@opentelemetry',
    'prom-client',
    'openid-client',
    'nodemailer',
  ]) {
    assert.ok(!bundled.includes(name), `${name} is not in the client package (it has ${bundled.join(', ')})`);
  }

  const tenant = await seedTenant(server.ctx);
  writeCsv(work, 'roster.csv', [
    ['email', 'student_id_ext', 'first_name', 'last_name'],
    ['ana@example.edu', 'S1', 'Ana', 'Lima'],
    ['ben@example.edu', 'S2', 'Ben', 'Okafor'],
  ]);
  const pushed = await run(
    ssp,
    ['--url', server.url, 'push', 'roster', '--cohort', tenant.cohortId, 'roster.csv', '--json'],
    {
      env: { ...env, SSP_ROSTER_SECRET: tenant.rosterSecret! },
      cwd: work,
    },
  );
  const body = JSON.parse(pushed.stdout);
  assert.equal(body.exit_code, 0);
  assert.equal(body.sections[0].created, 2);

  // A push runs with bin/node-settings.js's settings, as from the checkout: a preload records
  // the flags and environment of each process, the first and the one it restarts as.
  const probe = path.join(work, 'probe.mjs');
  const seen = path.join(work, 'seen.jsonl');
  fs.writeFileSync(
    probe,
    `import fs from 'node:fs';\nfs.appendFileSync(${JSON.stringify(seen)}, JSON.stringify({ argv: process.execArgv, arenas: process.env.MALLOC_ARENA_MAX ?? null }) + '\\n');\n`,
  );
  await run(ssp, ['push', '--help'], { env: { ...env, NODE_OPTIONS: `--import=${probe}` }, cwd: work });
  const last = JSON.parse(fs.readFileSync(seen, 'utf8').trim().split('\n').pop()!);
  assert.ok(last.argv.includes('--max-semi-space-size=1'), JSON.stringify(last));
  assert.ok(last.argv.includes('--heap-growing-percent=50'), JSON.stringify(last));
  assert.ok(last.argv.includes('--max-opt=2'), JSON.stringify(last));
  assert.equal(last.arenas, '2');

  for (const command of ['serve', 'worker']) {
    await assert.rejects(
      run(ssp, [command], { env, cwd: work }),
      (error: { code: number; stderr: string }) => {
        assert.equal(error.code, 64, command);
        assert.match(error.stderr, /runs beside the service/, command);
        return true;
      },
    );
  }
  fs.rmSync(work, { recursive: true, force: true });
});
