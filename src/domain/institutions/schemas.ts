// The shapes of institutions, their cohorts and the read-only listings, defined once: the admin
// API uses them as its request and response schemas and the console types its view models and
// checks its forms with them, so the two cannot drift apart.
import { type Static, Type } from 'typebox';
import { slugPattern } from '../../lib/ids.ts';
import { DateTime, DisplayName, Nullable, StringEnum, Uuid } from '../../lib/schema.ts';

export const Institution = Type.Object({
  id: Uuid(),
  slug: Type.String(),
  name: Type.String(),
  name_lookalike_of: Nullable(
    Type.String({
      description:
        'The slug of an older institution whose name this one looks like, found when names began to be compared ' +
        'by how they look (docs/display-names.md); null otherwise. The operator renames one of the two; a rename ' +
        'clears it.',
    }),
  ),
  time_zone: Type.String({
    description:
      "IANA time zone the student pages count days in: a student's today, their six weeks and the times they read",
  }),
  created_at: DateTime(),
  archived_at: Nullable(
    DateTime(
      'When the operator archived the institution (docs/archiving.md); null while it is active. ' +
        'An archived institution refuses pushes and writes with 409 `institution_archived`.',
    ),
  ),
});
export type Institution = Static<typeof Institution>;

export const TimeZone = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'An IANA time zone, e.g. Australia/Sydney (default UTC); stored by its canonical name',
});

/** What creating an institution takes. */
export const NewInstitutionBody = Type.Object({
  slug: Type.String({
    maxLength: 63,
    pattern: slugPattern.source,
    description: 'Lower-case key used by feeds (at most 63 characters)',
  }),
  name: DisplayName({ minLength: 1, maxLength: 200 }),
  time_zone: Type.Optional(TimeZone),
});
export type NewInstitutionBody = Static<typeof NewInstitutionBody>;

/** What renaming an institution or setting its time zone takes; fields left out are kept. */
export const InstitutionChangeBody = Type.Object({
  name: Type.Optional(DisplayName({ minLength: 1, maxLength: 200 })),
  time_zone: Type.Optional(TimeZone),
});
export type InstitutionChangeBody = Static<typeof InstitutionChangeBody>;

export const CohortClock = Type.Union([Type.Literal('cohort'), Type.Literal('individual')], {
  description:
    'cohort: one shared start (start_date); individual: each student starts on their own start_date',
});
export type CohortClock = Static<typeof CohortClock>;

export const Cohort = Type.Object({
  id: Uuid(),
  institution_id: Uuid(),
  name: Type.String(),
  clock: Type.Union([Type.Literal('cohort'), Type.Literal('individual')]),
  start_date: Type.Union([Type.String({ format: 'date' }), Type.Null()], {
    description:
      "First day of the cohort's six weeks (cohort clock); null until set. An individual cohort ignores it.",
  }),
  created_at: DateTime(),
  archived_at: Nullable(
    DateTime(
      'When the cohort was archived (docs/archiving.md); null while it is active. A push naming an archived ' +
        'cohort is 409 `cohort_archived`; its students stay.',
    ),
  ),
});
export type Cohort = Static<typeof Cohort>;

/** A cohort with its institution's slug and archived state (the roster feed's lookup). */
export type CohortOfInstitution = Cohort & { institution_slug: string; institution_archived_at: Date | null };

const StartDate = Type.Union([Type.String({ maxLength: 10, description: 'YYYY-MM-DD' }), Type.Null()], {
  description:
    'First day of the six weeks for a cohort-clock cohort (YYYY-MM-DD); null clears it. The student pages ' +
    'count weeks from it (docs/student-app.md).',
});

/** What creating a cohort takes (the clock defaults to `cohort`). */
export const NewCohortBody = Type.Object({
  name: DisplayName({ minLength: 1, maxLength: 200 }),
  clock: Type.Optional(CohortClock),
  start_date: Type.Optional(StartDate),
});
export type NewCohortBody = Static<typeof NewCohortBody>;

/** What changing a cohort takes; fields left out stay, a null start date clears it. */
export const CohortChangeBody = Type.Object({
  name: Type.Optional(DisplayName({ minLength: 1, maxLength: 200 })),
  clock: Type.Optional(CohortClock),
  start_date: Type.Optional(StartDate),
});
export type CohortChangeBody = Static<typeof CohortChangeBody>;

/** Which institutions or cohorts a listing shows: the active ones (the default), the archived ones, or both. */
export const archivedChoices = ['false', 'true', 'any'] as const;
export type ArchivedFilter = (typeof archivedChoices)[number];

export const ArchivedQuery = Type.Object({
  archived: Type.Optional(
    StringEnum(
      archivedChoices,
      'false (the default): active ones only; true: archived ones only; any: both. Any other value is 400.',
    ),
  ),
});

export const Student = Type.Object({
  id: Uuid(),
  cohort_id: Uuid(),
  email: Type.String(),
  student_id_ext: Type.String({ description: 'The id the SIS knows the student by' }),
  first_name: Nullable(Type.String()),
  last_name: Nullable(Type.String()),
  program_code: Nullable(Type.String()),
  campus_name: Nullable(Type.String()),
  first_in_family: Nullable(Type.Boolean()),
  start_date: Nullable(Type.String({ format: 'date' })),
  departed_at: Nullable(
    DateTime('Set when a full sync departed the student; cleared when a push names them again'),
  ),
  created_at: DateTime(),
  updated_at: DateTime(),
});

/**
 * A student as listed. Its times are text already (ISO 8601 UTC, formatted by the database: see
 * ./queries.ts), which the schema's DateTime accepts as written.
 */
export interface StudentListing {
  id: string;
  cohort_id: string;
  email: string;
  student_id_ext: string;
  first_name: string | null;
  last_name: string | null;
  program_code: string | null;
  campus_name: string | null;
  first_in_family: boolean | null;
  start_date: string | null;
  departed_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface StudentFilter {
  /** Case-insensitive prefix of the email, external id, full name or last name. */
  q?: string;
  cohortId?: string;
  /** Exact email, case-insensitive. */
  email?: string;
  /** Exact external (SIS) id. */
  studentIdExt?: string;
  /** Program code, case-insensitive. */
  program?: string;
  /** Campus name, case-insensitive. */
  campus?: string;
  status?: 'active' | 'departed';
}

export const Program = Type.Object({
  id: Uuid(),
  program_code: Type.String(),
  name: Nullable(Type.String()),
  coordinator_name: Nullable(Type.String()),
  coordinator_title: Nullable(Type.String()),
  created_at: DateTime(),
  updated_at: DateTime(),
});
export type ProgramListing = Static<typeof Program>;

export const Campus = Type.Object({
  id: Uuid(),
  name: Type.String(),
  created_at: DateTime(),
  updated_at: DateTime(),
});
export type CampusListing = Static<typeof Campus>;

export const AudienceTag = Type.Object({
  id: Uuid(),
  kind: Type.Union([Type.Literal('program'), Type.Literal('campus')]),
  source_id: Uuid('The program or campus the tag was created with'),
  label: Type.String(),
  created_at: DateTime(),
});
export type AudienceTagListing = Static<typeof AudienceTag>;
