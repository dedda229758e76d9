// Terms' statements: the rows matched by code (case-insensitive), dates as YYYY-MM-DD.
import { matchStatement, type SectionWrites, tableWrites } from './write.ts';

export interface StoredTerm {
  i: number;
  key: string;
  id: string | null;
  code: string | null;
  name: string | null;
  start_date: string | null;
  end_date: string | null;
}

export const matchTerms = matchStatement<{ i: number; code: string }, StoredTerm>(
  `SELECT r.i, lower(r.code) AS key, t.id, t.code, t.name,
            to_char(t.start_date, 'YYYY-MM-DD') AS start_date, to_char(t.end_date, 'YYYY-MM-DD') AS end_date
     FROM jsonb_to_recordset($2::jsonb) AS r(i int, code text)
     LEFT JOIN terms t ON t.institution_id = $1 AND lower(t.code) = lower(r.code)`,
);

export const writeTerms: SectionWrites = tableWrites('terms', {
  code: 'text',
  name: 'text',
  start_date: 'date',
  end_date: 'date',
});
