// What to do after a failed attempt to send a notification email, pure: retry with exponential
// backoff, or give up. SMTP answers in two kinds: 4xx is "try again later" (a full mailbox, a
// greylisting server, a server that is busy), 5xx is "this will not work" (no such mailbox,
// refused relay). Connection failures and timeouts are retried like 4xx.

/** Attempts in all before a notification is marked failed. */
export const MAX_ATTEMPTS = 8;

/** The first retry waits this long; each further one twice as long (30 s, 1, 2, 4, 8, 16, 32 min). */
export const FIRST_RETRY_MS = 30_000;

/** Each delay is multiplied by a factor drawn from [1 - JITTER, 1 + JITTER]. */
export const JITTER = 0.2;

export interface RetryPolicy {
  maxAttempts: number;
  firstRetryMs: number;
}

export const defaultRetryPolicy: RetryPolicy = { maxAttempts: MAX_ATTEMPTS, firstRetryMs: FIRST_RETRY_MS };

/** A failed attempt: the SMTP reply code when the server answered, and a message for people. */
export interface SendFailure {
  responseCode?: number;
  message: string;
}

export type Decision = { kind: 'retry'; delayMs: number } | { kind: 'failed'; reason: string };

/**
 * After attempt number `attempts` (1-based) failed: retry after a delay, or give up (a permanent
 * SMTP refusal, or the last attempt). `random` in [0, 1) is injected so tests are deterministic.
 */
export function decideAfterFailure(
  failure: SendFailure,
  attempts: number,
  policy: RetryPolicy = defaultRetryPolicy,
  random: () => number = Math.random,
): Decision {
  const code = failure.responseCode;
  if (code !== undefined && code >= 500 && code < 600)
    return { kind: 'failed', reason: `refused by the mail server: ${failure.message}` };
  if (attempts >= policy.maxAttempts)
    return { kind: 'failed', reason: `gave up after ${attempts} attempts: ${failure.message}` };
  const base = policy.firstRetryMs * 2 ** (attempts - 1);
  const factor = 1 - JITTER + 2 * JITTER * random();
  return { kind: 'retry', delayMs: Math.round(base * factor) };
}
