// The OneRoster memory feed's OpenAPI text: the schemas of its bodies and answers and its
// descriptions, kept apart from the route (oneroster-memory.ts), as every feed's is.
import { Type } from 'typebox';
import { MEMORY_PAGE_MAX } from '../../../domain/oneroster/memory-api.ts';

export const Key = Type.Object(
  { kind: Type.String(), sourced_id: Type.String() },
  { additionalProperties: false, description: 'Where a page starts: the `next` of the page before' },
);

export const Entry = Type.Object({
  kind: Type.String({ description: 'org, course, class, user or enrollment' }),
  sourced_id: Type.String({ description: "The record's sourcedId in the SIS" }),
  data: Type.Unknown({
    description:
      'org: {kind: campus|program|other, key}; course: {unit}; class: {unit, term}; user: {student: student_id_ext or ' +
      'null (not a student), orgs}; enrollment: {student, unit, term}. Writing: null forgets the entry',
  }),
});

export const ReadBody = Type.Object(
  {
    institution: Type.String({
      description: 'Slug of the institution; the bearer secret must be valid for it.',
    }),
    after: Type.Optional(Key),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MEMORY_PAGE_MAX, default: MEMORY_PAGE_MAX })),
  },
  { additionalProperties: false },
);

export const WriteBody = Type.Object(
  {
    institution: Type.String({
      description: 'Slug of the institution; the bearer secret must be valid for it.',
    }),
    entries: Type.Array(Type.Unknown(), {
      maxItems: MEMORY_PAGE_MAX,
      description: 'Changed entries (Entry)',
    }),
  },
  { additionalProperties: false },
);

export const readSummary = 'Read what OneRoster pushes and pulls placed';
export const readDescription =
  "A page of the institution's OneRoster memory in a stable order; `next` is the `after` of the next page " +
  '(null after the last). `ssp push oneroster` reads it whole before a push, so a delta resolves what it omits.';

export const ReadAnswer = Type.Object({
  entries: Type.Array(Entry),
  next: Type.Union([Key, Type.Null()]),
});

export const writeSummary = 'Record what a OneRoster push placed';
export const writeDescription =
  'Entries a completed `ssp push oneroster` changed, at most 5000 a request; an entry with `data: null` is ' +
  'forgotten. Each is checked: the first bad one answers 400 `invalid_field` naming it (`entries[3].data.unit`).';

export const WriteAnswer = Type.Object({ stored: Type.Integer(), forgotten: Type.Integer() });
