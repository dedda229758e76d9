// The only reader of process.env. Every setting is validated once at start-up and every
// problem is reported together, so an operator fixes a bad deployment in one go.
import path from 'node:path';
import ipaddr from 'ipaddr.js';
import { parseKey } from './lib/encryption.ts';
import { sha256Hex } from './lib/secrets.ts';

export interface Config {
  host: string;
  port: number;
  databaseUrl: string | undefined;
  dataDir: string;
  /** PostgreSQL's shared_buffers inside the embedded database (PGlite); see docs/performance.md. */
  embeddedSharedBuffers: string;
  /** The embedded database runs on a thread of its own (EMBEDDED_DATABASE_THREAD, default on). */
  embeddedThread: boolean;
  redisUrl: string | undefined;
  logLevel: string;
  /** Fastify trustProxy: false, true, a hop count, or a list of addresses/CIDRs. */
  trustProxy: boolean | number | string[];
  /** SHA-256 (hex) of the platform-wide bootstrap roster secret, if configured. */
  bootstrapRosterSecretHash: string | undefined;
  /** SHA-256 (hex) of an operator token given by configuration, if any. */
  operatorTokenHash: string | undefined;
  /** SHA-256 (hex) of the token that reads GET /metrics; undefined: /metrics is off (404). */
  metricsTokenHash: string | undefined;
  /** `ssp worker` serves GET /metrics on this port (with METRICS_TOKEN); undefined: it does not. */
  metricsPort: number | undefined;
  /** OpenTelemetry traces are exported (the OTEL_* variables ask for it): see tracingWanted. */
  tracing: boolean;
  rosterRateLimitPerMinute: number;
  /** Full-sync departures above this share of a cohort are held for an admin's decision. */
  departureHoldThreshold: number;
  enrolmentsRateLimitPerMinute: number;
  helpSyncRateLimitPerMinute: number;
  /** Sign-in starts (GET /auth/{slug}/sign-in, /auth/sign-in/operator) per client per minute. */
  signInRateLimitPerMinute: number;
  /** Sign-ins under way (started, not yet back from the provider) at most, platform-wide. */
  signInPendingMax: number;
  /** Sign-ins under way to one institution at most. */
  signInPendingPerInstitution: number;
  /** Sign-ins under way from one client network (IPv4 /24, IPv6 /64) at most. */
  signInPendingPerNetwork: number;
  /** Development only: let webhook endpoints and outbound fetches reach loopback addresses. */
  allowLoopbackOutbound: boolean;
  /** Run the background workers (outbox delivery, schedules) inside the HTTP process. */
  runWorkers: boolean;
  /**
   * Those workers run in a thread of their own (WORKERS_THREAD: `auto`, the default, is on with
   * PostgreSQL and off with the embedded database), with their own runtime and pool.
   */
  workersThread: boolean;
  shutdownTimeoutMs: number;
  /** Where browsers reach the service: sign-in redirects, cookies' Secure flag, links. */
  publicBaseUrl: string;
  /** 32-byte key that encrypts stored secrets; undefined with the embedded default (kept under dataDir). */
  encryptionKey: Buffer | undefined;
  /** Earlier keys, still accepted for decryption while stored values are re-sealed. */
  encryptionKeysPrevious: Buffer[];
  /** A console or student session ends after this long without a request. */
  sessionIdleMinutes: number;
  /** ...and after this long in any case. */
  sessionMaxHours: number;
  /** SMTP server for email notifications (smtp:// or smtps://); undefined: email is off. */
  smtpUrl: string | undefined;
  /** The From address of notification emails. */
  smtpFrom: string;
  /** Calendar feeds one institution may have (docs/calendar-feeds.md). */
  calendarFeedsPerInstitution: number;
  /** What one OneRoster pull may read and take (docs/oneroster.md, "Limits"). */
  oneRosterPull: {
    pageMaxBytes: number;
    pullMaxBytes: number;
    deadlineMs: number;
    parseMemoryMb: number;
  };
}

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.problems = problems;
  }
}

type Env = Record<string, string | undefined>;

const sha256Pattern = /^[0-9a-f]{64}$/;

export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];

  const { int, bool, share, secretHash } = envReaders(env, problems);

  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push('DATABASE_URL must start with postgres:// or postgresql://');
  }
  const redisUrl = env.REDIS_URL || undefined;
  if (redisUrl && !/^rediss?:\/\//.test(redisUrl))
    problems.push('REDIS_URL must start with redis:// or rediss://');

  const port = int('PORT', 3000, 0, 65535);
  const publicBaseUrl = parsePublicBaseUrl(env.PUBLIC_BASE_URL, port, problems);
  const encryptionKey = env.ENCRYPTION_KEY ? parseKey(env.ENCRYPTION_KEY) : undefined;
  if (env.ENCRYPTION_KEY && !encryptionKey)
    problems.push('ENCRYPTION_KEY must be 32 bytes as 64 hexadecimal or 43 base64url characters');
  if (databaseUrl && !env.ENCRYPTION_KEY)
    problems.push(
      'ENCRYPTION_KEY is required with DATABASE_URL (every instance must share it); generate one with `npx ssp encryption-key`',
    );
  const encryptionKeysPrevious: Buffer[] = [];
  for (const entry of (env.ENCRYPTION_KEYS_PREVIOUS ?? '').split(',').filter((e) => e.trim())) {
    const key = parseKey(entry);
    if (key) encryptionKeysPrevious.push(key);
    else problems.push('ENCRYPTION_KEYS_PREVIOUS must be a comma-separated list of 32-byte keys');
  }

  const config: Config = {
    host: env.HOST || '0.0.0.0',
    port,
    databaseUrl,
    dataDir: path.resolve(env.DATA_DIR || 'data'),
    embeddedSharedBuffers: parseMemorySize(env, 'EMBEDDED_SHARED_BUFFERS', '16MB', problems),
    embeddedThread: bool('EMBEDDED_DATABASE_THREAD', true),
    redisUrl,
    logLevel: parseLogLevel(env.LOG_LEVEL, problems),
    trustProxy: parseTrustProxy(env.TRUST_PROXY, problems),
    bootstrapRosterSecretHash: secretHash('BOOTSTRAP_ROSTER_SECRET', 'BOOTSTRAP_ROSTER_SECRET_SHA256'),
    operatorTokenHash: secretHash('OPERATOR_TOKEN', 'OPERATOR_TOKEN_SHA256'),
    metricsTokenHash: secretHash('METRICS_TOKEN', 'METRICS_TOKEN_SHA256'),
    metricsPort: env.METRICS_PORT ? int('METRICS_PORT', 0, 1, 65535) : undefined,
    tracing: tracingWanted(env, problems),
    rosterRateLimitPerMinute: int('ROSTER_RATE_LIMIT_PER_MINUTE', 20, 1, 1_000_000),
    departureHoldThreshold: share('DEPARTURE_HOLD_THRESHOLD', 0.1),
    enrolmentsRateLimitPerMinute: int('ENROLMENTS_RATE_LIMIT_PER_MINUTE', 20, 1, 1_000_000),
    helpSyncRateLimitPerMinute: int('HELP_SYNC_RATE_LIMIT_PER_MINUTE', 120, 1, 1_000_000),
    signInRateLimitPerMinute: int('SIGN_IN_RATE_LIMIT_PER_MINUTE', 30, 1, 1_000_000),
    signInPendingMax: int('SIGN_IN_PENDING_MAX', 10_000, 1, 10_000_000),
    signInPendingPerInstitution: int('SIGN_IN_PENDING_PER_INSTITUTION', 2_000, 1, 10_000_000),
    signInPendingPerNetwork: int('SIGN_IN_PENDING_PER_NETWORK', 200, 1, 10_000_000),
    allowLoopbackOutbound: bool('ALLOW_LOOPBACK_OUTBOUND', false),
    runWorkers: bool('RUN_WORKERS', true),
    workersThread: parseWorkersThread(env.WORKERS_THREAD, databaseUrl, problems),
    shutdownTimeoutMs: int('SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    publicBaseUrl,
    encryptionKey,
    encryptionKeysPrevious,
    sessionIdleMinutes: int('SESSION_IDLE_MINUTES', 120, 1, 7 * 24 * 60),
    sessionMaxHours: int('SESSION_MAX_HOURS', 12, 1, 24 * 90),
    smtpUrl: parseSmtpUrl(env.SMTP_URL, problems),
    smtpFrom: parseSmtpFrom(env.SMTP_FROM, publicBaseUrl, problems),
    calendarFeedsPerInstitution: int('CALENDAR_FEEDS_PER_INSTITUTION', 50, 1, 10_000),
    oneRosterPull: {
      pageMaxBytes: int('ONEROSTER_PAGE_MAX_MB', 32, 1, 1024) * 1024 * 1024,
      pullMaxBytes: int('ONEROSTER_PULL_MAX_MB', 256, 1, 65_536) * 1024 * 1024,
      deadlineMs: int('ONEROSTER_PULL_DEADLINE_MINUTES', 30, 1, 24 * 60) * 60_000,
      parseMemoryMb: int('ONEROSTER_PARSE_MEMORY_MB', 256, 32, 8192),
    },
  };
  if (config.metricsPort !== undefined && !config.metricsTokenHash)
    problems.push('METRICS_PORT needs METRICS_TOKEN (or METRICS_TOKEN_SHA256): the metrics are read with it');
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/**
 * Readers of typed variables: each gives the variable's value, or its fallback when unset, and
 * adds a problem (and gives the fallback) when the value is not one.
 */
function envReaders(env: Env, problems: string[]) {
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  };
  const bool = (name: string, fallback: boolean): boolean => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
    if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
    problems.push(`${name} must be true or false (got "${raw}")`);
    return fallback;
  };
  const share = (name: string, fallback: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < 0 || value > 1) {
      problems.push(`${name} must be a number from 0 to 1 (got "${raw}")`);
      return fallback;
    }
    return value;
  };
  const secretHash = (plainName: string, hashName: string): string | undefined => {
    const plain = env[plainName];
    const hash = env[hashName];
    if (plain && hash) {
      problems.push(`set only one of ${plainName} and ${hashName}`);
      return undefined;
    }
    if (hash) {
      const lower = hash.toLowerCase();
      if (!sha256Pattern.test(lower)) problems.push(`${hashName} must be 64 hexadecimal characters`);
      return lower;
    }
    if (plain) {
      if (plain.length < 16) problems.push(`${plainName} must be at least 16 characters long`);
      return sha256Hex(plain);
    }
    return undefined;
  };
  return { int, bool, share, secretHash };
}

const otlpProtocols = ['http/protobuf', 'http/json', 'grpc'];

/**
 * Whether OpenTelemetry traces are to be exported, by the SDK's own variables: an OTLP endpoint
 * (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) or an explicit
 * OTEL_TRACES_EXPORTER, and neither OTEL_SDK_DISABLED=true nor OTEL_TRACES_EXPORTER=none. The
 * process entries ask this before anything else is loaded (src/lib/telemetry/tracing.ts).
 */
export function tracingWanted(env: Env = process.env, problems: string[] = []): boolean {
  const exporter = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL;
  if (protocol && !otlpProtocols.includes(protocol))
    problems.push(
      `OTEL_EXPORTER_OTLP_PROTOCOL must be one of ${otlpProtocols.join(', ')} (got "${protocol}")`,
    );
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true' || exporter === 'none') return false;
  return Boolean(exporter || env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

function parsePublicBaseUrl(raw: string | undefined, port: number, problems: string[]): string {
  if (!raw) return `http://localhost:${port}`;
  try {
    const url = new URL(raw);
    if ((url.protocol === 'http:' || url.protocol === 'https:') && !url.search && !url.hash) {
      return url.href.replace(/\/+$/, '');
    }
  } catch {}
  problems.push(`PUBLIC_BASE_URL must be an http(s) URL without query or fragment (got "${raw}")`);
  return `http://localhost:${port}`;
}

function parseSmtpUrl(raw: string | undefined, problems: string[]): string | undefined {
  if (!raw) return undefined;
  try {
    const url = new URL(raw);
    if ((url.protocol === 'smtp:' || url.protocol === 'smtps:') && url.hostname) return raw;
  } catch {}
  // The URL may hold a password: never echo it.
  problems.push('SMTP_URL must be an smtp:// or smtps:// URL with a host (smtp://user:password@host:587)');
  return undefined;
}

/** An address, optionally with a display name: `Student support <support@example.edu>`. */
const fromPattern = /^(?:[^<>\r\n]{1,100} )?<?[^\s@<>]+@[^\s@<>]+>?$/;

function parseSmtpFrom(raw: string | undefined, publicBaseUrl: string, problems: string[]): string {
  if (!raw) return `Student support <no-reply@${new URL(publicBaseUrl).hostname}>`;
  if (!fromPattern.test(raw.trim()))
    problems.push(
      `SMTP_FROM must be an email address, optionally with a name: Name <address> (got "${raw}")`,
    );
  return raw.trim();
}

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function parseLogLevel(raw: string | undefined, problems: string[]): string {
  if (!raw) return 'info';
  if (!logLevels.includes(raw)) problems.push(`LOG_LEVEL must be one of ${logLevels.join(', ')}`);
  return raw;
}

function parseTrustProxy(raw: string | undefined, problems: string[]): boolean | number | string[] {
  const value = raw?.trim().toLowerCase();
  if (value === undefined || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  const list = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = list.filter((entry) => !isAddressOrCidr(entry));
  if (list.length === 0 || bad.length > 0) {
    problems.push(
      `TRUST_PROXY must be true, false, a hop count or a comma-separated list of addresses or CIDRs (bad: ${bad.join(', ') || raw})`,
    );
  }
  return list;
}

function isAddressOrCidr(entry: string): boolean {
  if (entry.includes('/')) {
    try {
      ipaddr.parseCIDR(entry);
      return true;
    } catch {
      return false;
    }
  }
  return ipaddr.isValid(entry);
}

/** A PostgreSQL memory size such as 32MB (kB, MB or GB), from 1 MB to 1 GB. */
function parseMemorySize(env: Env, name: string, fallback: string, problems: string[]): string {
  const value = env[name];
  if (value === undefined || value.trim() === '') return fallback;
  const match = /^\s*(\d+)\s*(kB|MB|GB)\s*$/.exec(value);
  const kb = match
    ? Number(match[1]) * { kB: 1, MB: 1024, GB: 1024 * 1024 }[match[2] as 'kB' | 'MB' | 'GB']
    : 0;
  if (!match || kb < 1024 || kb > 1024 * 1024) {
    problems.push(`${name} must be a size from 1MB to 1GB, such as 32MB`);
    return fallback;
  }
  return `${match[1]}${match[2]}`;
}

/**
 * WORKERS_THREAD: `on`, `off` or `auto` (on with PostgreSQL). The embedded database is one
 * session owned by one client, the server's: its workers stay on the server's thread.
 */
function parseWorkersThread(value: string | undefined, databaseUrl: string | undefined, problems: string[]) {
  const setting = (value || 'auto').toLowerCase();
  if (!['auto', 'on', 'off'].includes(setting)) {
    problems.push('WORKERS_THREAD must be auto, on or off');
    return false;
  }
  if (setting === 'on' && !databaseUrl)
    problems.push('WORKERS_THREAD=on needs PostgreSQL (DATABASE_URL): the embedded database has one client');
  return setting !== 'off' && databaseUrl !== undefined;
}
