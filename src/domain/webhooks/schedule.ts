// Retry rules, pure: which outcomes are retried, when the next attempt is due, when to give up.

/**
 * Delay before attempt n+1 after n failed attempts (index n-1). 11 attempts in all over about
 * 23.7 hours: immediately, then 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h, 8 h.
 */
export const RETRY_DELAYS_MS = [
  5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000, 28_800_000, 28_800_000,
] as const;

export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** Each delay is multiplied by a factor drawn uniformly from [1 - JITTER, 1 + JITTER]. */
export const JITTER = 0.2;

/** A Retry-After longer than this is capped. */
export const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

/** An endpoint whose attempts have all failed for this long is disabled. */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 3_600_000;

/**
 * A failing run restarts when an endpoint fails again after a quiet gap longer than this since
 * its previous failure: longer than any wait between two attempts of one delivery (the longest
 * scheduled delay with jitter, 9.6 h, or a Retry-After, at most 24 h) plus an hour of slack. So
 * an endpoint that failed, then got no events for days, is not counted as failing all along.
 */
export const FAILING_RUN_GAP_MS = MAX_RETRY_AFTER_MS + 3_600_000;

/** How long a rotated-out secret keeps signing beside the new one. */
export const ROTATION_WINDOW_MS = 24 * 3_600_000;

export type Outcome =
  | 'success'
  | 'http_error'
  | 'timeout'
  | 'connection_error'
  | 'redirect'
  | 'blocked_address';

export interface AttemptResult {
  outcome: Outcome;
  statusCode?: number;
  /** Parsed Retry-After (ms from now), when the response had a usable one. */
  retryAfterMs?: number;
}

export type Decision =
  | { kind: 'succeeded' }
  | { kind: 'retry'; delayMs: number }
  | { kind: 'failed' }
  | { kind: 'disable_endpoint'; reason: string };

/**
 * What to do after attempt number `attempts` (1-based) ended with `result`.
 * `random` returns a number in [0, 1) (injected so tests are deterministic).
 */
export function decide(
  result: AttemptResult,
  attempts: number,
  random: () => number = Math.random,
): Decision {
  if (result.outcome === 'success') return { kind: 'succeeded' };
  if (result.statusCode === 410)
    return { kind: 'disable_endpoint', reason: 'the endpoint answered 410 Gone' };
  if (attempts >= MAX_ATTEMPTS) return { kind: 'failed' };
  if (
    (result.statusCode === 429 || result.statusCode === 503) &&
    result.retryAfterMs !== undefined &&
    result.retryAfterMs >= 0
  ) {
    return { kind: 'retry', delayMs: Math.min(Math.max(result.retryAfterMs, 1_000), MAX_RETRY_AFTER_MS) };
  }
  const base = RETRY_DELAYS_MS[Math.min(attempts, RETRY_DELAYS_MS.length) - 1];
  const factor = 1 - JITTER + 2 * JITTER * random();
  return { kind: 'retry', delayMs: Math.round(base * factor) };
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const IMF_FIXDATE =
  /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d{2}) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;

/**
 * Retry-After (RFC 9110): delay-seconds (digits only) or an HTTP date in the IMF-fixdate form
 * (`Sun, 06 Nov 1994 08:49:37 GMT`). Anything else (`1.5`, `-1`, other date spellings) is
 * unusable and yields undefined, so the normal backoff applies.
 */
export function parseRetryAfter(value: string | string[] | undefined, now: Date): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return undefined;
  const trimmed = raw.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1_000;
  const m = IMF_FIXDATE.exec(trimmed);
  if (!m) return undefined;
  const [day, month, year, hour, minute, second] = [
    Number(m[1]),
    MONTHS.indexOf(m[2] as string),
    Number(m[3]),
    Number(m[4]),
    Number(m[5]),
    Number(m[6]),
  ];
  if (day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return undefined;
  const date = Date.UTC(year, month, day, hour, minute, Math.min(second, 59));
  if (new Date(date).getUTCDate() !== day) return undefined; // e.g. 31 Feb
  return Math.max(0, date - now.getTime());
}
