// `ssp runs list` at a terminal: one line a run that fits 80 columns (no JSON in cells). The
// id is shown by its first 8 characters, which `ssp runs show` and `ssp runs errors` accept
// (runIdFrom); --json prints the API's body with every field and the full ids.

export const SHORT_ID = 8;

interface RunItem {
  id: string;
  kind: string;
  dry_run: boolean;
  sections?: string[];
  received: number;
  counts: Record<string, unknown>;
  error_count: number;
  started_at: string;
}

/** created and updated of a run's counts: flat (roster) or a record per section (enrolments). */
export function changes(counts: Record<string, unknown>): { created: number; updated: number } {
  const total = { created: 0, updated: 0 };
  const add = (c: Record<string, unknown>) => {
    if (typeof c.created === 'number') total.created += c.created;
    if (typeof c.updated === 'number') total.updated += c.updated;
  };
  add(counts);
  for (const value of Object.values(counts)) {
    if (value && typeof value === 'object' && !Array.isArray(value)) add(value as Record<string, unknown>);
  }
  return total;
}

/** The rows of the human table of a page of runs (the page's cursor is kept). */
export function runsTable(body: unknown): unknown {
  const page = body as { items?: RunItem[]; next_cursor?: unknown };
  if (!Array.isArray(page?.items)) return body;
  const n = (v: number) => v.toLocaleString('en');
  return {
    items: page.items.map((run) => {
      const { created, updated } = changes(run.counts ?? {});
      return {
        id: run.id.slice(0, SHORT_ID),
        started: `${run.started_at.slice(0, 10)} ${run.started_at.slice(11, 16)}`,
        kind: `${run.kind}${run.dry_run ? ' (dry)' : ''}`,
        rows: n(run.received),
        created: n(created),
        updated: n(updated),
        errors: n(run.error_count),
      };
    }),
    next_cursor: page.next_cursor ?? null,
  };
}

/** A full run id, or the one run among the newest 100 whose id starts with `given`. */
export async function runIdFrom(given: string, newest: () => Promise<unknown>): Promise<string> {
  if (given.length >= 36 || !/^[0-9a-f-]{4,}$/i.test(given)) return given;
  const items = ((await newest()) as { items?: { id: string }[] }).items ?? [];
  const found = items.filter((r) => r.id.startsWith(given.toLowerCase()));
  return found.length === 1 ? found[0].id : given;
}
