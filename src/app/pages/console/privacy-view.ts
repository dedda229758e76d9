// The retention form of the privacy page: each period is a number of days, or empty for the
// default. Parsing only; the floors and ceilings are the domain's (retention-periods.ts).
import { retentionKinds } from '../../../domain/privacy/retention-periods.ts';
import { text } from './forms.ts';

/** The form's fields: one period of days for each kind of record. */
export const retentionFields: readonly string[] = retentionKinds.map((kind) => `${kind}_days`);

export function retentionForm(body: unknown) {
  const values: Record<string, string> = {};
  const input: Record<string, number | null> = {};
  const errors: Record<string, string> = {};
  for (const kind of retentionKinds) {
    const name = `${kind}_days`;
    const raw = text(body, name);
    values[name] = raw;
    if (raw === '') input[name] = null;
    else if (/^\d{1,6}$/.test(raw)) input[name] = Number(raw);
    else errors[name] = 'Enter a whole number of days, or leave it empty for the default';
  }
  return { values, input, errors };
}

/** A retention run's counts as words, for the health and privacy pages. */
export function removedWords(removed: Record<string, number> | undefined): string {
  const labels: Record<string, string> = {
    resolved_requests: 'resolved requests erased',
    departed_students: 'departed students erased',
    run_errors: 'pushes cleared of row errors',
    webhook_bodies: 'webhook attempt bodies cleared',
    notifications: 'notifications deleted',
    access_log: 'access-log entries deleted',
  };
  const parts = Object.entries(removed ?? {}).map(([k, n]) => `${n} ${labels[k] ?? k}`);
  return parts.length ? parts.join(', ') : 'nothing';
}
