// Reading an HTTP answer's body from a server we do not control (a calendar feed, a OneRoster
// provider) within a byte limit: it stops as soon as the limit is passed, so an endless or
// oversized answer never sits whole in memory.

/** The body read whole, or undefined (and the body destroyed) once it sends more than `maxBytes`. */
export async function readBounded(
  body: AsyncIterable<unknown> & { destroy(): void },
  maxBytes: number,
): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      body.destroy();
      return undefined;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, size);
}
