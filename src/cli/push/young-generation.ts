// The push's memory bound. V8 allocates new objects in its young generation and doubles that
// space (up to 16 MB a half, 48 MB in all) each time enough objects have survived its
// collections. A push allocates a great many short-lived objects (each row's record, row and
// JSON) and keeps almost none of them, so the young generation's first size serves it as well
// as the largest; left to grow, it was most of the client's memory (measured: 104 MB instead of
// 90 MB at 100,000 rows, and still growing at 500,000; docs/ssp-push.md, Performance).
//
// V8 reads this flag each time it decides to grow the space, so setting it once the process is
// running takes effect for the rest of it. Only the `ssp push` process itself sets it: a push
// run inside another program (the tests) leaves that program's heap alone.
import v8 from 'node:v8';

export function holdYoungGeneration(): void {
  v8.setFlagsFromString('--semi-space-growth-factor=1');
}
