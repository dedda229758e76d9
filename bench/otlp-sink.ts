// An OTLP/HTTP receiver that answers 200 and drops what it is sent, counting requests and bytes,
// for measuring the cost of tracing (bench/tracing-preload.ts). Port from argv[2] (default 4318).
import http from 'node:http';

let requests = 0;
let bytes = 0;
const server = http.createServer((request, response) => {
  request.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
  });
  request.on('end', () => {
    requests++;
    response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
  });
});
server.listen(Number(process.argv[2] ?? 4318), '127.0.0.1');
process.on('SIGTERM', () => {
  process.stdout.write(`otlp sink: ${requests} export requests, ${(bytes / 1e6).toFixed(1)} MB\n`);
  process.exit(0);
});
