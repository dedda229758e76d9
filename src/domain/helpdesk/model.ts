// The help-desk area's model types and fixed lists, apart from its functions: the rules, their
// SQL (queries.ts) and the schemas (schemas.ts) all speak of them, and none imports another's
// types back.

/** The orders of the help-request listing: newest first, or open crisis requests first. */
export const listOrders = ['newest', 'crisis_first'] as const;
export type ListOrder = (typeof listOrders)[number];

/** A person of the institution as the rules see them. */
export interface AssigneeCandidate {
  id: string;
  name: string;
  roles: readonly string[];
  removed: boolean;
}
