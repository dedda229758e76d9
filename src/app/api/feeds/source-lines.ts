// The feeds' optional `lines`: the file line of each row, kept with the run's row errors
// (src/domain/runs/lines.ts), so the push history numbers rows as the client's file does.
import { Type } from 'typebox';

export const SourceLines = (maxItems: number, rows: string) =>
  Type.Array(Type.Integer({ minimum: 0 }), {
    maxItems,
    description:
      `The line of the file each row came from (1-based, in the order of ${rows}; 0: not known), for the push ` +
      'history: the run page and its CSV number a row by it (else by its 1-based place in the request). `row` in ' +
      '`errors` stays the 0-based index in the request.',
  });
