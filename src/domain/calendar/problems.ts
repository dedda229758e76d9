// A feed that cannot be used, with a reason written for the admin who entered it. Thrown by
// the fetch and parse steps; recorded as a failed fetch, never answered as a server error.
export class FeedProblem extends Error {}
