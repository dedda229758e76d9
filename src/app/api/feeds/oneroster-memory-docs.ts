// The OneRoster memory feed's OpenAPI text: the schemas of its bodies and answers and its
// descriptions, kept apart from the route (oneroster-memory.ts), as every feed's is.
import { Type } from 'typebox';
import { KINDS, MEMORY_PAGE_MAX } from '../../../domain/oneroster/memory-api.ts';

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
    kinds: Type.Optional(
      Type.Array(Type.Union(KINDS.map((k) => Type.Literal(k))), {
        minItems: 1,
        uniqueItems: true,
        description:
          'Only entries of these kinds (all when left out): a push that asks for its enrollments through ' +
          '`/memory/placements` reads the others only',
      }),
    ),
  },
  { additionalProperties: false },
);

const PushId = Type.String({
  format: 'uuid',
  description:
    "The push's own id (a random UUID it chose): entries written with it are staged, and made current " +
    'together by `/memory/commit`',
});

export const WriteBody = Type.Object(
  {
    institution: Type.String({
      description: 'Slug of the institution; the bearer secret must be valid for it.',
    }),
    entries: Type.Array(Type.Unknown(), {
      maxItems: MEMORY_PAGE_MAX,
      description: 'Changed entries (Entry)',
    }),
    push: Type.Optional(PushId),
  },
  { additionalProperties: false },
);

export const PlacementsBody = Type.Object(
  {
    institution: Type.String({
      description: 'Slug of the institution; the bearer secret must be valid for it.',
    }),
    // No NUL: PostgreSQL's text cannot hold it, so no sourcedId stored has one.
    sourced_ids: Type.Array(Type.String({ minLength: 1, maxLength: 1000, pattern: '^[^\\u0000]+$' }), {
      maxItems: MEMORY_PAGE_MAX,
      description: 'sourcedIds of enrollments, at most 5000',
    }),
  },
  { additionalProperties: false },
);

export const placementsSummary = 'What a page of OneRoster enrollments placed';
export const placementsDescription =
  "For each enrollment sourcedId the institution's OneRoster memory holds, the student, unit and term it " +
  'placed; ids it does not hold are left out of the answer. `ssp push oneroster` asks for each page of its ' +
  'enrollments instead of reading them all before the push (docs/ssp-push.md, "Memory model").';

export const PlacementsAnswer = Type.Object({
  placements: Type.Array(
    Type.Object({
      sourced_id: Type.String(),
      student: Type.String({ description: 'The student_id_ext it placed' }),
      unit: Type.String({ description: 'unit_code' }),
      term: Type.String({ description: 'term_code' }),
    }),
  ),
});

export const CommitBody = Type.Object(
  {
    institution: Type.String({
      description: 'Slug of the institution; the bearer secret must be valid for it.',
    }),
    push: PushId,
  },
  { additionalProperties: false },
);

export const commitSummary = 'Make what a OneRoster push staged current';
export const commitDescription =
  'The entries written with this `push` id become the memory, all in one transaction (those with `data: null` ' +
  'are forgotten). A push that fails never commits, so the memory stays as it was; its staged entries are ' +
  'dropped a day later. Committing again, or a push that staged nothing, answers zeros.';

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
  'forgotten. Each is checked: the first bad one answers 400 `invalid_field` naming it (`entries[3].data.unit`). ' +
  'With `push`, the entries are staged for that push rather than made current (`/memory/commit`).';

export const WriteAnswer = Type.Object({ stored: Type.Integer(), forgotten: Type.Integer() });
