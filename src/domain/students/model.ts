// The student area's types: the signed-in student, their own requests and conversation as the
// student pages show them, and the profile the home page reads. Imports nothing from its siblings.
import type { Category, Priority, Status } from '../helpdesk/rules.ts';

/** Whose start date a cohort's six weeks count from: the cohort's, or each student's own. */
export type Clock = 'cohort' | 'individual';

/** The signed-in student, as the session names them. */
export interface StudentRef {
  institutionId: string;
  studentId: string;
}

export interface OwnRequest {
  id: string;
  status: Status;
  priority: Priority;
  category: Category | null;
  summary: string | null;
  created_at: Date;
  /** When the status last changed (the creation for a request never changed since). */
  status_changed_at: Date;
  resolved_at: Date | null;
  /** A reply or status change came after what the student last saw of the request. */
  unread: boolean;
}

/**
 * One entry of the conversation: the request was created, its status changed, the support team
 * replied, or the student wrote.
 */
export interface HistoryEntry {
  seq: number;
  kind: 'status' | 'reply' | 'student_message';
  from_status: Status | null;
  to_status: Status | null;
  /** The words of a reply or of the student's answer. */
  text: string | null;
  at: Date;
}

/** A timeline entry a student may see, as stored. */
export interface HistoryRow {
  seq: string;
  kind: string;
  from_status: Status | null;
  to_status: Status | null;
  note: string | null;
  created_at: Date;
}

export interface StudentProfile {
  id: string;
  first_name: string | null;
  program_id: string | null;
  campus_id: string | null;
  start_date: string | null;
  clock: Clock;
  cohort_start_date: string | null;
  institution_name: string;
  institution_slug: string;
  /** The institution's IANA time zone: the student's days are its days. */
  time_zone: string;
}
