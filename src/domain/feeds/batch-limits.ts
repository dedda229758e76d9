// How many rows one request of each feed may carry (spec sections 4 and 8), in one shape, and the
// one refusal of a batch over its limit: 413 `batch_too_large` with `max`, `field` naming the
// array, and advice on what to do instead. The feeds' routes document these figures from here.
import { ApiError } from '../../errors.ts';

export const batchLimits = {
  roster: { students: 5000 },
  enrolments: { programs: 1000, campuses: 200, terms: 500, units: 5000, enrolments: 5000 },
  helpSync: { updates: 100 },
} as const satisfies Record<string, Record<string, number>>;

export type Feed = keyof typeof batchLimits;

const advice: Record<Feed, string> = {
  roster: 'send the roster in pages',
  enrolments: 'split the push',
  helpSync: 'send the rest in further requests',
};

/** Throws 413 batch_too_large when `rows` is longer than the feed allows for `field`. */
export function checkBatchSize<F extends Feed>(
  feed: F,
  field: keyof (typeof batchLimits)[F] & string,
  rows: readonly unknown[],
): void {
  const max = (batchLimits[feed] as Record<string, number>)[field];
  if (rows.length <= max) return;
  throw new ApiError('batch_too_large', {
    max,
    field,
    detail: `at most ${max} ${field} per request (got ${rows.length}); ${advice[feed]}`,
  });
}
