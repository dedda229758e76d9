// The shapes of the taxonomy's listings, defined once: a term, a unit and an enrolment as the
// listings return them, and the filters each listing takes. The admin API uses them as its
// response and query schemas and the console's data pages check their filters with them, so a
// page and the API accept exactly the same values.
import { Type } from 'typebox';
import { DateTime, Nullable, Text, Uuid } from '../../lib/schema.ts';
import { enrolmentStatuses } from './rows.ts';

export const Term = Type.Object({
  id: Uuid(),
  term_code: Type.String(),
  name: Nullable(Type.String()),
  start_date: Type.String({ format: 'date' }),
  end_date: Type.String({ format: 'date' }),
  created_at: DateTime(),
  updated_at: DateTime(),
});

export const Unit = Type.Object({
  id: Uuid(),
  unit_code: Type.String(),
  name: Nullable(Type.String()),
  program_code: Nullable(Type.String()),
  campus_name: Nullable(Type.String()),
  created_at: DateTime(),
  updated_at: DateTime(),
});

export const Enrolment = Type.Object({
  id: Uuid(),
  email: Type.String(),
  student_id_ext: Type.String(),
  unit_code: Type.String(),
  term_code: Type.String(),
  status: Type.String({ enum: [...enrolmentStatuses] }),
  created_at: DateTime(),
  updated_at: DateTime(),
});

/** The units listing's filter. */
export const UnitFilters = Type.Object({
  program_code: Type.Optional(Text({ description: 'Only this program' })),
});

/** The enrolments listing's filters; they combine. */
export const EnrolmentFilters = Type.Object({
  term_code: Type.Optional(Text({ description: 'Only this term' })),
  unit_code: Type.Optional(Text({ description: 'Only this unit' })),
  email: Type.Optional(Text({ description: 'Only this student' })),
  status: Type.Optional(Type.String({ enum: [...enrolmentStatuses], description: 'Only this status' })),
});
