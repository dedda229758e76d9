/** A count with thousands separators (1,997), the same on every machine (no locale data loaded). */
export function thousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
