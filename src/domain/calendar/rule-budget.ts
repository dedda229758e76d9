// A budget on the work inside one recurrence step. ical.js's iterator.next() loops internally
// over candidate dates until one passes the rule's filters; for a rule that never (or almost
// never) matches, that one call can run for minutes, and each candidate day adds to ical.js's
// process-wide date caches, so the heap grows until the worker dies. The occurrence steps
// counted in expand.ts never see this, because next() does not return.
//
// So every candidate ical.js looks at is counted, whatever loop inside ical.js asks for it:
// its iterator checks each candidate with check_contracting_rules(), once per turn of its inner
// loop, and we wrap that method on the one iterator (the prototype is left alone). Past the
// rule's budget the series stops (a problem reported for that event); past the expansion
// window the series is over (no later candidate can be inside it); past the feed's budget the
// fetch fails. The date caches are emptied every CACHE_RESET candidates, so they stay small.

import ICAL from 'ical.js';
import { FeedProblem } from './problems.ts';

/** Candidates between two resets of ical.js's date caches. */
const CACHE_RESET = 200_000;

export interface CandidateBudget {
  /** Candidate dates one rule may look at, in all its steps. */
  perRule: number;
  /** Candidate dates the whole feed may look at. */
  perFeed: number;
  /** Candidates looked at so far by the feed. */
  used: number;
}

/** A rule that looked at more candidate dates than its budget: its series stops there. */
export class RuleOverBudget extends Error {}

class PastWindow extends Error {}

interface CandidateChecks {
  last: ICAL.Time;
  check_contracting_rules(): boolean;
}

interface TimeCaches {
  _dowCache: object;
  _wnCache: object;
}

/** ical.js memoises weekday and week-number answers per date, for the life of the process. */
function resetDateCaches(): void {
  const time = ICAL.Time as unknown as TimeCaches;
  time._dowCache = {};
  time._wnCache = {};
}

/**
 * Iterates `rule` from `dtstart`, with `lastDay` (yyyymmdd, local) the last day that can still
 * be in the window. next() answers null when the rule is done or past the window, and throws
 * RuleOverBudget (the rule's budget) or FeedProblem (the feed's).
 */
export function budgetedIterator(
  rule: ICAL.Recur,
  dtstart: ICAL.Time,
  lastDay: number,
  budget: CandidateBudget,
): { next(): ICAL.Time | null } {
  const iterator = rule.iterator(dtstart);
  const checks = iterator as unknown as CandidateChecks;
  const check = checks.check_contracting_rules;
  let used = 0;
  checks.check_contracting_rules = function (this: CandidateChecks) {
    if (++used > budget.perRule) throw new RuleOverBudget();
    if (++budget.used > budget.perFeed)
      throw new FeedProblem(
        `the calendar is too large: its recurrence rules need more than ${budget.perFeed} candidate dates to expand`,
      );
    if (budget.used % CACHE_RESET === 0) resetDateCaches();
    const last = this.last;
    if (last.year * 10_000 + last.month * 100 + last.day > lastDay) throw new PastWindow();
    return check.call(this);
  };
  return {
    next() {
      try {
        return iterator.next() ?? null;
      } catch (error) {
        if (error instanceof PastWindow) return null;
        throw error;
      }
    },
  };
}

/** The last local day (yyyymmdd) that can hold an occurrence starting before `windowEnd` (UTC ms). */
export function lastDayOf(windowEnd: number): number {
  // A day of margin for zones ahead of UTC (at most 14 hours).
  const d = new Date(windowEnd + 86_400_000);
  return d.getUTCFullYear() * 10_000 + (d.getUTCMonth() + 1) * 100 + d.getUTCDate();
}
