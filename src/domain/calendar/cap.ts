// Which occurrences a feed keeps when it expands to more than it may store: those not yet over
// at the fetch time first, earliest start first (what students will look at), then past ones,
// latest end first. Ties by UID and recurrence id, so the same feed keeps the same occurrences
// from one fetch to the next whatever the order of its VEVENTs.
//
// Memory stays bounded whatever the feed expands to: once twice the cap is held, the list is
// sorted and cut back to the cap (so sorting costs O(n log cap) in all, not one sort of
// everything generated).

import type { Occurrence } from './vevent.ts';

export function keepOrder(now: number): (a: Occurrence, b: Occurrence) => number {
  return (a, b) => {
    const aUpcoming = a.end > now || a.start >= now;
    const bUpcoming = b.end > now || b.start >= now;
    if (aUpcoming !== bUpcoming) return aUpcoming ? -1 : 1;
    const byTime = aUpcoming ? a.start - b.start : b.end - a.end;
    if (byTime !== 0) return byTime;
    if (a.uid !== b.uid) return a.uid < b.uid ? -1 : 1;
    return a.recurrence_id < b.recurrence_id ? -1 : a.recurrence_id > b.recurrence_id ? 1 : 0;
  };
}

/** Collects occurrences, keeping at most `cap` of them by keepOrder. */
export function cappedList(cap: number, now: number) {
  const kept: Occurrence[] = [];
  const order = keepOrder(now);
  let total = 0;
  const cut = () => {
    kept.sort(order);
    kept.length = cap;
  };
  return {
    push(o: Occurrence): void {
      total++;
      kept.push(o);
      if (kept.length >= 2 * cap) cut();
    },
    /** The kept occurrences (in generation order when nothing was left out) and how many were left out. */
    finish(): { occurrences: Occurrence[]; truncated: number } {
      if (kept.length > cap) cut();
      return { occurrences: kept, truncated: total - kept.length };
    },
  };
}
