// The push's shared types, apart from the modules that build and send pages: each of them speaks
// of sections and of where a row came from, and none imports another's types back.

/** A section of a push, in the order a push sends them. */
export type Section = 'roster' | 'programs' | 'campuses' | 'terms' | 'units' | 'enrolments';

/** Where a row came from: its file and 1-based line. */
export interface RowOrigin {
  file: string;
  line: number;
}
