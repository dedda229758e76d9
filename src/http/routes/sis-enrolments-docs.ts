// OpenAPI text of POST /api/sis/enrolments: the description, each section's row shape and
// examples. Kept apart from the route so the handler stays short.
import { type SectionName, sectionLimits } from '../../domain/taxonomy/service.ts';

export const sectionDescriptions: Record<SectionName, string> = {
  programs:
    `Programs (degrees), at most ${sectionLimits.programs} per request. Row: ` +
    '`program_code` (string, required, the key, matched case-insensitively; renaming is safe), ' +
    '`name` (string; omitted, null or blank keeps the stored name), ' +
    '`coordinator_name`, `coordinator_title` (strings; omitted keeps, null or blank clears). ' +
    'Creating a program creates its audience tag.',
  campuses:
    `Campuses, at most ${sectionLimits.campuses} per request. Row: \`name\` (string, required, the key, ` +
    'matched case-insensitively; `campus_name` is accepted as an alias). A campus has no code: a campus ' +
    'renamed upstream arrives as a new name and is created as a second campus, to be merged by the operator. ' +
    'Creating a campus creates its audience tag.',
  terms:
    'Terms of the teaching calendar. Not accepted yet: a request carrying this section gets 422 section_not_supported.',
  units: 'Units. Not accepted yet: a request carrying this section gets 422 section_not_supported.',
  enrolments: 'Enrolments. Not accepted yet: a request carrying this section gets 422 section_not_supported.',
};

export function enrolmentsDescription(ratePerMinute: number): string {
  return [
    "Upserts the institution's taxonomy by natural key, idempotently: re-sending the same rows changes nothing " +
      'and reports them as `unchanged`. Sections are optional; a real run applies those present in dependency ' +
      'order (programs, campuses, terms, units, enrolments) in one transaction.',
    '',
    '**Rows are validated one by one.** A malformed row (of any shape) is reported in `errors` with its section, ' +
      'zero-based `row` position, a stable `code` and a `message`; the other rows still apply. Row codes: ' +
      '`invalid_row` (not an object), `missing_field`, `invalid_field` (wrong type, too long, unstorable characters), ' +
      '`conflicting_fields` (campus `name` and `campus_name` disagree), `duplicate_key` (the key appears earlier in the ' +
      'same section: the first row is applied, later ones are rejected).',
    '',
    '**Dry run** (`dry_run: true`) writes nothing and reports the same counts as a real run would (created, updated, ' +
      'unchanged) and every row problem. Each section of a dry run is checked against what is stored only.',
    '',
    "**Authentication**: the institution's roster secret, or the platform bootstrap secret while the institution " +
      "has never been issued one. A valid slug with another institution's secret is 401 `unauthorized`; an unknown " +
      'slug is 401 for an institution secret and 404 `institution_not_found` for the bootstrap secret.',
    '',
    '**Request errors**: 400 (`malformed_json`, `empty_body`, `missing_field`, `invalid_field`, `unknown_section` for a ' +
      'top-level field that is not one of the above), 413 `batch_too_large` with `max` and `field` naming the section ' +
      `(limits: ${Object.entries(sectionLimits)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}), ` +
      '422 `section_not_supported`, ' +
      `429 \`rate_limited\` with \`Retry-After\` beyond ${ratePerMinute} requests per minute per client, ` +
      '503 `not_configured` when no roster secret exists at all.',
  ].join('\n');
}

export const enrolmentsExamples = {
  requests: [
    {
      institution: 'northbridge',
      programs: [
        {
          program_code: 'BSC-NURS',
          name: 'Bachelor of Nursing',
          coordinator_name: 'Dr Ada Moss',
          coordinator_title: 'Course coordinator',
        },
        { program_code: 'ba-hist' },
      ],
      campuses: [{ name: 'City' }, { campus_name: 'Riverside' }, { code: 'RV' }],
    },
  ],
  responses: [
    {
      institution: 'northbridge',
      dry_run: false,
      sections: {
        programs: { received: 2, created: 1, updated: 1, unchanged: 0, rejected: 0 },
        campuses: { received: 3, created: 1, updated: 0, unchanged: 1, rejected: 1 },
      },
      errors: [
        {
          section: 'campuses',
          row: 2,
          code: 'missing_field',
          message: 'name (or its alias campus_name) is required',
          field: 'name',
        },
      ],
    },
  ],
};
