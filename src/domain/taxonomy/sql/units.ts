// Units' statements: the rows matched by code (case-insensitive), with the program (by code) and
// the campus (by name, or a merged name's alias) each row names.
import { campusNamesSql } from '../../campuses/names.ts';
import { matchStatement, type SectionWrites, tableWrites } from './write.ts';

export interface StoredUnit {
  i: number;
  key: string;
  id: string | null;
  code: string | null;
  name: string | null;
  program_id: string | null;
  campus_id: string | null;
  /** The program and campus the row names, when found. */
  found_program_id: string | null;
  found_campus_id: string | null;
}

export const matchUnits = matchStatement<
  { i: number; code: string; program_code: string | null; campus_name: string | null },
  StoredUnit
>(
  `WITH names AS (${campusNamesSql})
     SELECT r.i, lower(r.code) AS key, u.id, u.code, u.name, u.program_id, u.campus_id,
            p.id AS found_program_id, c.id AS found_campus_id
     FROM jsonb_to_recordset($2::jsonb) AS r(i int, code text, program_code text, campus_name text)
     LEFT JOIN units u ON u.institution_id = $1 AND lower(u.code) = lower(r.code)
     LEFT JOIN programs p ON p.institution_id = $1 AND lower(p.code) = lower(r.program_code)
     LEFT JOIN names n ON n.key = lower(r.campus_name)
     LEFT JOIN campuses c ON c.id = n.id`,
);

export const writeUnits: SectionWrites = tableWrites('units', {
  code: 'text',
  name: 'text',
  program_id: 'uuid',
  campus_id: 'uuid',
});
