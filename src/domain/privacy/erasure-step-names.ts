// The erasure's steps, by name: the data map (data-map.ts) says which step covers each table, and
// the data-map test checks that every table holding a student's data names one that exists.
export const erasureStepNames = [
  'students',
  'help_requests',
  'run_errors',
  'oneroster_memory',
  'audit_targets',
  'access_log',
  'idempotency',
] as const;
export type ErasureStepName = (typeof erasureStepNames)[number];
