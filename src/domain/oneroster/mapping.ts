// How a OneRoster bundle maps onto the feeds: the choices docs/ssp-push.md lists, each an
// option of `ssp push oneroster`. Apart from the rest of the OneRoster code so the command's
// definition (its defaults in --help) loads without it.

export interface OneRosterMapping {
  /** Org types pushed as campuses (by name). */
  campusOrgTypes: string[];
  /** Org types pushed as programs (code: identifier, else sourcedId). */
  programOrgTypes: string[];
  /** Academic session types pushed as terms. */
  termTypes: string[];
  /** User roles pushed as students. */
  studentRoles: string[];
  /** Which user field becomes student_id_ext. */
  studentId: 'sourcedId' | 'identifier' | 'username';
  /** Where students go: the first of a student's orgs listed here, else `cohort`. */
  cohortForOrg: Map<string, string>;
  cohort?: string;
}

export const DEFAULT_MAPPING: Omit<OneRosterMapping, 'cohortForOrg'> = {
  campusOrgTypes: ['school'],
  programOrgTypes: ['department'],
  termTypes: ['term', 'semester'],
  studentRoles: ['student'],
  studentId: 'sourcedId',
};
