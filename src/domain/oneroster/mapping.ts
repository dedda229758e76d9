// How OneRoster data maps onto the feeds: the choices docs/oneroster.md lists, each an option
// of `ssp push oneroster` and a setting of an institution's OneRoster source. Apart from the
// rest of the OneRoster code so the command's definition (its defaults in --help) loads
// without it.

/** Where programs come from (docs/oneroster.md: departments are rare in real exports). */
export const PROGRAM_SOURCES = ['orgs', 'grades', 'none'] as const;
export type ProgramSource = (typeof PROGRAM_SOURCES)[number];

export const STUDENT_IDS = ['identifier', 'sourcedId', 'username'] as const;
export type StudentId = (typeof STUDENT_IDS)[number];

export interface OneRosterMapping {
  /** Org types pushed as campuses (by name). */
  campusOrgTypes: string[];
  /**
   * Programs: `orgs` of `programOrgTypes` (code: identifier, else sourcedId), the students'
   * `grades` (K-12), or none.
   */
  programsFrom: ProgramSource;
  /** Org types pushed as programs when programsFrom is `orgs`. */
  programOrgTypes: string[];
  /** Academic session types pushed as terms. */
  termTypes: string[];
  /** User roles pushed as students. */
  studentRoles: string[];
  /** Which user field becomes student_id_ext (`identifier` falls back to sourcedId when blank). */
  studentId: StudentId;
  /** Where students go: the first of a student's orgs listed here, else `cohort`. */
  cohortForOrg: Map<string, string>;
  cohort?: string;
}

export const DEFAULT_MAPPING: Omit<OneRosterMapping, 'cohortForOrg'> = {
  campusOrgTypes: ['school'],
  programsFrom: 'orgs',
  programOrgTypes: ['department'],
  termTypes: ['term', 'semester'],
  studentRoles: ['student'],
  studentId: 'identifier',
};
