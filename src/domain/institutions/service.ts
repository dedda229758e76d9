// The institutions' types under their older module name, for src/domain/roster/ (whose feed
// access is being rewritten elsewhere) until it imports ./schemas.ts like every other caller.
// The area's functions are ./institutions.ts, ./listings.ts and ./archiving.ts; no facade.
export type { CohortOfInstitution, Institution } from './schemas.ts';
