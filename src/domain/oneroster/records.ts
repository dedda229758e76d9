// The records the OneRoster mapping reads, whatever they came from: a row of a CSV bundle's
// file (`ssp push oneroster`) or an object of a OneRoster REST API (the service's pull),
// flattened to the CSV binding's columns, keyed by lower-cased column name.

export type Rec = Record<string, string>;

/** Where a record came from: a file and line, or an API collection and position. */
export interface Origin {
  file: string;
  line: number;
  /** The record's sourcedId, named in row errors of a pull. */
  sourcedId?: string;
}

export interface SourceRecord {
  origin: Origin;
  rec: Rec;
}

/** The records of one OneRoster collection, read again from the start at each call. */
export type RecordSource = () => AsyncIterable<SourceRecord>;

/** One mapped row for a feed section, or the reason the record maps to nothing. */
export interface Mapped {
  origin: Origin;
  row?: Record<string, unknown>;
  problem?: { code: string; message: string; column?: string };
  /**
   * A full sync's row naming a student it cannot import (no email), so that they do not depart:
   * the feed rejects it, as expected (students.ts, namingRows()).
   */
  namesOnly?: boolean;
}

export const COLLECTIONS = [
  'orgs',
  'academicSessions',
  'courses',
  'classes',
  'users',
  'roles',
  'enrollments',
] as const;

export type Collection = (typeof COLLECTIONS)[number];

/** The columns each collection must have (the CSV binding's names). */
export const REQUIRED: Record<Collection, string[]> = {
  orgs: ['sourcedId', 'name', 'type'],
  academicSessions: ['sourcedId', 'title', 'type', 'startDate', 'endDate'],
  courses: ['sourcedId', 'title'],
  classes: ['sourcedId', 'courseSourcedId', 'termSourcedIds'],
  users: ['sourcedId', 'givenName', 'familyName', 'email'],
  roles: ['userSourcedId', 'role', 'orgSourcedId'],
  enrollments: ['sourcedId', 'classSourcedId', 'userSourcedId', 'role'],
};

export function deleted(rec: Rec): boolean {
  return (rec.status ?? '').toLowerCase() === 'tobedeleted';
}

/** OneRoster dates are yyyy-mm-dd (1.2 allows a full date-time in some exports). */
export function date(value: string | undefined): string | undefined {
  return value ? value.slice(0, 10) : undefined;
}
