// What the OneRoster benchmarks share: a provider in a process of its own, the source settings
// they pull with, and the sampling of this process's memory while a pull runs.
import { spawn } from 'node:child_process';
import type { SourceSettings } from '../src/domain/oneroster/pull/sources.ts';

export interface ProviderProcess {
  baseUrl: string;
  tokenUrl: string;
  stop: () => void;
}

/** Runs `node args…`, a provider that prints its base and token URLs; resolves once it has. */
export function startProviderProcess(args: string[], name: string): Promise<ProviderProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const base = /base URL:\s+(\S+)/.exec(out)?.[1];
      const token = /token URL:\s+(\S+)/.exec(out)?.[1];
      if (base && token) resolve({ baseUrl: base, tokenUrl: token, stop: () => child.kill('SIGTERM') });
    });
    child.on('exit', (code) => reject(new Error(`${name} exited ${code}: ${out}`)));
  });
}

/**
 * A source pulling from `provider` into the cohort: terms and semesters, schools as campuses,
 * programmes from departments, the identifier as the student id, no schedule.
 */
export function sourceSettings(
  provider: { baseUrl: string; tokenUrl: string },
  cohortId: string,
  overrides: Partial<SourceSettings> = {},
): SourceSettings {
  return {
    base_url: provider.baseUrl,
    token_url: provider.tokenUrl,
    client_id: 'demo-client',
    client_secret: 'demo-secret',
    cohort_id: cohortId,
    org_ids: [],
    term_types: ['term', 'semester'],
    campus_org_types: ['school'],
    programs_from: 'orgs',
    program_org_types: ['department'],
    student_id: 'identifier',
    pull_every_minutes: null,
    full_every_hours: 24,
    ...overrides,
  };
}

/**
 * Samples this process's RSS every 20 ms from now (after a collection when --expose-gc gives
 * one); `stop()` ends the sampling and answers the peak above the start, in bytes.
 */
export function sampleRss(): { stop(): number } {
  global.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  return {
    stop() {
      clearInterval(sampler);
      return peak - before;
    },
  };
}
