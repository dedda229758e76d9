// A feed that cannot be used, with a reason written for the admin who entered it. Thrown by
// the fetch and parse steps; recorded as a failed fetch, never answered as a server error.
export class FeedProblem extends Error {}

/**
 * One event a fetch left out or cut short, for the feed's page: the fetch goes on and stores the
 * rest (a rule that can never match, one that matches too rarely to expand, an unreadable event).
 */
export interface EventProblem {
  uid: string | null;
  summary: string | null;
  problem: string;
}
