// Shared by the ssp push tests: the CLI run as a child process against a listening service,
// scratch folders, a scriptable proxy in front of the service, and OneRoster 1.2 bundles.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import yazl from 'yazl';
import { registerPushCommands } from '../../src/cli/push/command.ts';
import { type SeededTenant, seedTenant, type TestContext } from '../helpers/app.ts';

const CLI = path.resolve('src/cli/main.ts');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `ssp --url <url> push ...` with the secret in SSP_ROSTER_SECRET, in `cwd`. */
export function sspPush(
  url: string,
  secret: string | undefined,
  cwd: string,
  args: string[],
): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, '--url', url, 'push', ...args],
      {
        cwd,
        env: { ...process.env, SSP_ROSTER_SECRET: secret ?? '', SSP_URL: '' },
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? ((error as { code?: number }).code ?? 1) : 0;
        resolve({ code: typeof code === 'number' ? code : 1, stdout, stderr });
      },
    );
  });
}

/**
 * The same command in this process (no start-up cost): `ssp --url <url> push <args>`, with
 * the errors CSV and the state file in `dir` unless the arguments name them, `dir` the
 * working directory meanwhile.
 */
export async function pushInProcess(
  url: string,
  secret: string | undefined,
  dir: string,
  args: string[],
): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  let code = -1;
  const program = new Command('ssp').option('--url <url>').exitOverride();
  registerPushCommands(
    program,
    {
      out: { write: (text: string) => (stdout += text) },
      err: { write: (text: string) => (stderr += text) },
      env: { SSP_ROSTER_SECRET: secret },
    },
    (exit) => {
      code = exit;
    },
  );
  const extra = [
    ...(args.includes('--errors') ? [] : ['--errors', path.join(dir, 'ssp-push-errors.csv')]),
    ...(args.includes('--state') ? [] : ['--state', path.join(dir, '.ssp-push-state.json')]),
  ];
  // Relative paths are read from `dir`, as a command run there would.
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    await program.parseAsync(['node', 'ssp', '--url', url, 'push', ...args, ...extra]);
  } finally {
    process.chdir(cwd);
  }
  return { code, stdout, stderr };
}

/** The options that aim each push command at the tenant: its institution, its cohort or both. */
const tenantOptions = {
  taxonomy: (tenant: PushTenant) => ['--institution', tenant.slug],
  roster: (tenant: PushTenant) => ['--cohort', tenant.cohortId],
  enrolments: (tenant: PushTenant) => ['--institution', tenant.slug],
  oneroster: (tenant: PushTenant) => ['--institution', tenant.slug, '--cohort', tenant.cohortId],
};

type PushTenant = { slug: string; cohortId: string; rosterSecret?: string };

/** `ssp push <command>` aimed at the tenant (tenantOptions), then `rest`, as pushInProcess. */
export function pushFor(
  url: string,
  tenant: PushTenant,
  dir: string,
  command: keyof typeof tenantOptions,
  ...rest: string[]
): Promise<CliResult> {
  return pushInProcess(url, tenant.rosterSecret, dir, [command, ...tenantOptions[command](tenant), ...rest]);
}

/** `ssp push oneroster` for the tenant (pushFor), the command most of the OneRoster tests run. */
export const pushOneRoster = (url: string, tenant: PushTenant, dir: string, ...rest: string[]) =>
  pushFor(url, tenant, dir, 'oneroster', ...rest);

/**
 * A new institution and a scratch folder from which a first bulk bundle of `students` was pushed
 * (from its `folder`), exit 0.
 */
export async function tenantWithBulkPush(
  server: { ctx: TestContext; url: string },
  students: number,
  folder: string,
): Promise<{ tenant: SeededTenant; dir: string }> {
  const tenant = await seedTenant(server.ctx);
  const dir = scratchDir();
  const bundle = writeFolder(path.join(dir, folder), oneRosterBundle({ students }));
  const first = await pushOneRoster(server.url, tenant, dir, bundle);
  assert.equal(first.code, 0, first.stderr);
  return { tenant, dir };
}

export function scratchDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'ssp-push-'));
}

/** Reads the errors CSV into rows of cells (the tests' files have no quoted newlines). */
export function readErrorsCsv(file: string): string[][] {
  return fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) =>
      line
        .match(/("([^"]|"")*"|[^,]*)(,|$)/g)!
        .map((c) => c.replace(/,$/, '').replace(/^"|"$/g, '').replace(/""/g, '"')),
    )
    .map((cells) => cells.slice(0, 6));
}

export interface FaultyProxy {
  url: string;
  /** Page requests (POST) forwarded so far. */
  forwarded: number;
  /** The next POST is answered 429 with this Retry-After, once. */
  rateLimitOnce(retryAfterSeconds: number): void;
  /** After this many forwarded POSTs, every POST's connection is cut. */
  cutAfter(posts: number): void;
  /** POSTs to these paths are answered 404 `not_found`, as by a version of the service without them. */
  withoutPaths(paths: string[]): void;
  /** The paths of the POSTs forwarded, in order. */
  posted: string[];
  close(): Promise<void>;
}

/** A real HTTP proxy in front of the service, misbehaving on request. */
export async function startProxy(target: string): Promise<FaultyProxy> {
  let limitOnce: number | undefined;
  let cutAfter = Infinity;
  let missing = new Set<string>();
  const state = { forwarded: 0, posted: [] as string[] };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      if (req.method === 'POST' && limitOnce !== undefined) {
        const seconds = limitOnce;
        limitOnce = undefined;
        res.writeHead(429, { 'retry-after': String(seconds), 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'rate_limited', max: 20 }));
        return;
      }
      if (req.method === 'POST' && state.forwarded >= cutAfter) {
        req.socket.destroy();
        return;
      }
      if (req.method === 'POST' && missing.has(req.url!)) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'not_found', detail: `no route POST ${req.url}` }));
        return;
      }
      const answer = await fetch(new URL(req.url!, target), {
        method: req.method,
        headers: {
          authorization: req.headers.authorization ?? '',
          'content-type': req.headers['content-type'] ?? '',
        },
        body: req.method === 'POST' ? Buffer.concat(chunks) : undefined,
      });
      if (req.method === 'POST') {
        state.forwarded++;
        state.posted.push(req.url!);
      }
      res.writeHead(answer.status, {
        'content-type': answer.headers.get('content-type') ?? 'application/json',
      });
      res.end(Buffer.from(await answer.arrayBuffer()));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get forwarded() {
      return state.forwarded;
    },
    rateLimitOnce(seconds) {
      limitOnce = seconds;
    },
    cutAfter(posts) {
      cutAfter = posts;
    },
    withoutPaths(paths) {
      missing = new Set(paths);
    },
    posted: state.posted,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function csvText(rows: (string | number)[][]): string {
  return `${rows.map((r) => r.map((c) => (/[",\n]/.test(String(c)) ? `"${String(c).replace(/"/g, '""')}"` : c)).join(',')).join('\n')}\n`;
}

/** Writes `rows` as the CSV file `name` in `dir`; returns the name, as a push's arguments take it. */
export function writeCsv(dir: string, name: string, rows: (string | number)[][]): string {
  fs.writeFileSync(path.join(dir, name), csvText(rows));
  return name;
}

/** A OneRoster 1.2 CSV bundle's files (name -> content). */
export function oneRosterBundle(options: {
  students: number;
  mode?: 'bulk' | 'delta';
  tobedeleted?: number[];
  omitFromManifest?: boolean;
  missingFile?: string;
}): Record<string, string> {
  const mode = options.mode ?? 'bulk';
  const status = (i: number) =>
    options.tobedeleted?.includes(i) ? 'tobedeleted' : mode === 'delta' ? 'active' : '';
  const stamp = '2026-01-10T00:00:00.000Z';
  const files: Record<string, string> = {
    'orgs.csv': csvText([
      ['sourcedId', 'status', 'dateLastModified', 'name', 'type', 'identifier', 'parentSourcedId'],
      ['org-uni', '', stamp, 'Northbridge University', 'district', 'NBU', ''],
      ['org-city', '', stamp, 'City Campus', 'school', 'CITY', 'org-uni'],
      ['org-river', '', stamp, 'Riverside Campus', 'school', 'RIVER', 'org-uni'],
      ['org-nurs', '', stamp, 'Bachelor of Nursing', 'department', 'BN', 'org-uni'],
    ]),
    'academicSessions.csv': csvText([
      [
        'sourcedId',
        'status',
        'dateLastModified',
        'title',
        'type',
        'startDate',
        'endDate',
        'parentSourcedId',
        'schoolYear',
      ],
      ['as-2026', '', stamp, '2026', 'schoolYear', '2026-01-01', '2026-12-31', '', '2026'],
      [
        'as-2026-s1',
        '',
        stamp,
        'Semester 1, 2026',
        'semester',
        '2026-02-23',
        '2026-06-19',
        'as-2026',
        '2026',
      ],
    ]),
    'courses.csv': csvText([
      [
        'sourcedId',
        'status',
        'dateLastModified',
        'schoolYearSourcedId',
        'title',
        'courseCode',
        'grades',
        'orgSourcedId',
        'subjects',
        'subjectCodes',
      ],
      ['c-101', '', stamp, 'as-2026', 'Foundations of Nursing', 'NURS101', '', 'org-nurs', '', ''],
      ['c-102', '', stamp, 'as-2026', 'Anatomy', 'NURS102', '', 'org-city', '', ''],
    ]),
    'classes.csv': csvText([
      [
        'sourcedId',
        'status',
        'dateLastModified',
        'title',
        'grades',
        'courseSourcedId',
        'classCode',
        'classType',
        'location',
        'schoolSourcedId',
        'termSourcedIds',
        'subjects',
        'subjectCodes',
        'periods',
      ],
      ...['101', '102'].map((n) => [
        `cl-${n}-a`,
        '',
        stamp,
        `NURS${n} A`,
        '',
        `c-${n}`,
        'A',
        'scheduled',
        '',
        'org-city',
        'as-2026-s1',
        '',
        '',
        '',
      ]),
    ]),
  };
  const users: (string | number)[][] = [
    [
      'sourcedId',
      'status',
      'dateLastModified',
      'enabledUser',
      'username',
      'userIds',
      'givenName',
      'familyName',
      'middleName',
      'identifier',
      'email',
      'sms',
      'phone',
      'agentSourcedIds',
      'grades',
      'password',
      'userMasterIdentifier',
      'resourceSourcedIds',
      'preferredGivenName',
      'preferredMiddleName',
      'preferredFamilyName',
      'primaryOrgSourcedId',
      'pronouns',
    ],
    [
      't-1',
      status(-1),
      stamp,
      'true',
      'teacher1',
      '',
      'Tess',
      'Teacher',
      '',
      'T1',
      'tess@nbu.example.edu',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      'org-city',
      '',
    ],
  ];
  const roles: (string | number)[][] = [
    [
      'sourcedId',
      'status',
      'dateLastModified',
      'userSourcedId',
      'roleType',
      'role',
      'beginDate',
      'endDate',
      'orgSourcedId',
      'userProfileSourcedId',
    ],
    ['r-t-1', '', stamp, 't-1', 'primary', 'teacher', '', '', 'org-city', ''],
  ];
  const enrollments: (string | number)[][] = [
    [
      'sourcedId',
      'status',
      'dateLastModified',
      'classSourcedId',
      'schoolSourcedId',
      'userSourcedId',
      'role',
      'primary',
      'beginDate',
      'endDate',
    ],
    ['e-t-1', '', stamp, 'cl-101-a', 'org-city', 't-1', 'teacher', 'true', '', ''],
  ];
  for (let i = 0; i < options.students; i++) {
    const campus = i % 2 === 0 ? 'org-city' : 'org-river';
    users.push([
      `u-${i}`,
      status(i),
      stamp,
      'true',
      `student${i}`,
      '',
      `Given${i}`,
      `Family${i}`,
      '',
      `S${i}`,
      `student${i}@nbu.example.edu`,
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      campus,
      '',
    ]);
    roles.push([`r-${i}`, '', stamp, `u-${i}`, 'primary', 'student', '', '', campus, '']);
    roles.push([`r-${i}-p`, '', stamp, `u-${i}`, 'secondary', 'student', '', '', 'org-nurs', '']);
    enrollments.push([
      `e-${i}`,
      status(i),
      stamp,
      i % 3 === 0 ? 'cl-102-a' : 'cl-101-a',
      campus,
      `u-${i}`,
      'student',
      'false',
      '',
      '',
    ]);
  }
  files['users.csv'] = csvText(users);
  files['roles.csv'] = csvText(roles);
  files['enrollments.csv'] = csvText(enrollments);
  const listed = Object.keys(files).map((f) => f.replace(/\.csv$/, ''));
  files['manifest.csv'] = csvText([
    ['propertyName', 'value'],
    ['manifest.version', '1.0'],
    ['oneroster.version', '1.2'],
    ['source.systemName', 'Test SIS'],
    ...[
      'academicSessions',
      'categories',
      'classes',
      'courses',
      'demographics',
      'enrollments',
      'lineItems',
      'orgs',
      'results',
      'users',
      'roles',
    ].map((f) => [`file.${f}`, listed.includes(f) ? mode : 'absent']),
  ]);
  if (options.missingFile) delete files[`${options.missingFile}.csv`];
  return files;
}

export function writeFolder(dir: string, files: Record<string, string>): string {
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), content);
  return dir;
}

export async function writeZip(file: string, files: Record<string, string>, folder = ''): Promise<string> {
  const zip = new yazl.ZipFile();
  for (const [name, content] of Object.entries(files))
    zip.addBuffer(Buffer.from(content), `${folder}${name}`);
  zip.end();
  await new Promise<void>((resolve, reject) => {
    const out = fs.createWriteStream(file);
    zip.outputStream.pipe(out).on('close', resolve).on('error', reject);
  });
  return file;
}
