// The help-desk area's model types and fixed lists, apart from its functions: the rules, their
// SQL (queries.ts) and the schemas (schemas.ts) all speak of them, and none imports another's
// types back.
import type { Clock as SixWeeksClock } from '../students/model.ts';

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

/** A request's student as read for staff, before their six weeks are worked out (./requester.ts). */
export interface RequestStudentRow {
  id: string;
  name: string | null;
  email: string;
  student_id_ext: string;
  departed: boolean;
  cohort_id: string;
  cohort_name: string;
  clock: SixWeeksClock;
  cohort_start: string | null;
  own_start: string | null;
  program_id: string | null;
  program_code: string | null;
  program_name: string | null;
  campus_id: string | null;
  campus_name: string | null;
  time_zone: string;
}
