// Benchmark sizes. Each benchmark states its full size and a tiny one: BENCH_SMOKE=1 runs every
// benchmark end to end at the tiny sizes (test/bench-smoke.test.ts does, so that no benchmark
// can stop running unnoticed); a size's own variable, when given, wins over both.

export const SMOKE = process.env.BENCH_SMOKE === '1';

export function size(full: number, smoke: number, variable?: string): number {
  const given = variable ? process.env[variable] : undefined;
  if (given !== undefined && given !== '') return Number(given);
  return SMOKE ? smoke : full;
}
