// The clock is injected so that schedules, retries and time stamps are testable without sleeping.
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
