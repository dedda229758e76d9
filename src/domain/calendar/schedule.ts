// When a feed is fetched next, and the limits every fetch works within. Pure; see
// docs/calendar-feeds.md for the reasoning behind each number.

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

export const DEFAULT_REFRESH_MINUTES = 60;
export const MIN_REFRESH_MINUTES = 5;
export const MAX_REFRESH_MINUTES = 10_080; // a week

/** A failing feed is retried at most this far apart (unless its own refresh is longer). */
export const MAX_BACKOFF_MS = DAY_MS;

export interface FetchLimits {
  /** The whole fetch: connect, every redirect hop, headers and the complete body. */
  timeoutMs: number;
  /** Largest body read; a larger one is cut off (streamed, never held whole first). */
  maxBytes: number;
  /** Redirect hops followed, each one checked against the outbound URL guard. */
  maxRedirects: number;
  /**
   * Occurrences stored per feed: a feed that expands to more is stored truncated (the ones still
   * to come first, see cap.ts) and its fetch says how many were left out.
   */
  maxOccurrences: number;
  /** Recurrence steps taken per feed while expanding (guards against FREQ=SECONDLY bombs). */
  maxSteps: number;
  /** Recurrence steps of one series; a longer series stops there. */
  maxStepsPerSeries: number;
  /** Expansion window around the fetch time. */
  windowPastDays: number;
  windowFutureDays: number;
  /** Time a feed's parse (and its diff) may take in the parse worker before it is stopped. */
  parseTimeoutMs: number;
  /** Heap of the parse worker (V8 old generation); a feed that needs more fails. */
  parseMemoryMb: number;
}

/**
 * Stored occurrences per feed. A term's timetable of 10,000 weekly classes (10 weeks) fits whole;
 * anything larger is not a calendar a student reads, and the cap keeps one feed from filling the
 * database or holding a fetch's transaction for minutes.
 */
export const MAX_STORED_OCCURRENCES = 100_000;

export const DEFAULT_LIMITS: FetchLimits = {
  timeoutMs: 30_000,
  maxBytes: 10 * 1024 * 1024,
  maxRedirects: 5,
  maxOccurrences: MAX_STORED_OCCURRENCES,
  maxSteps: 2_000_000,
  maxStepsPerSeries: 100_000,
  windowPastDays: 180,
  windowFutureDays: 400,
  parseTimeoutMs: 60_000,
  parseMemoryMb: 512,
};

/**
 * What a process may change about its calendar fetches: the limits above (a test shortens them)
 * and the jitter's random source (a test fixes it). Neither is configuration: the limits are the
 * documented ones unless a test says otherwise.
 */
export interface FetchSettings {
  limits?: Partial<FetchLimits>;
  random?: () => number;
}

/** The expansion window of a fetch made at `now`. */
export function expansionWindow(now: Date, limits: FetchLimits): { windowStart: number; windowEnd: number } {
  return {
    windowStart: now.getTime() - limits.windowPastDays * DAY_MS,
    windowEnd: now.getTime() + limits.windowFutureDays * DAY_MS,
  };
}

/**
 * Delay until the next scheduled fetch. After a success (or 304): the feed's refresh interval
 * plus up to 5% jitter, so feeds added together drift apart. After the n-th failure in a row:
 * refresh x 2^(n-1) (the first retry comes at the usual time, then 2x, 4x, ...), capped at a
 * day (or the refresh interval when that is longer), +-10% jitter.
 */
export function nextFetchDelayMs(refreshMinutes: number, failures: number, random: () => number): number {
  const base = refreshMinutes * MINUTE_MS;
  if (failures <= 0) return Math.round(base * (1 + 0.05 * random()));
  const cap = Math.max(base, MAX_BACKOFF_MS);
  const delay = Math.min(base * 2 ** Math.min(failures - 1, 30), cap);
  return Math.round(delay * (0.9 + 0.2 * random()));
}
