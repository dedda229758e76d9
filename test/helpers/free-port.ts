// A free TCP port on loopback, for a process or server that must be told its port up front.
import net from 'node:net';

/** Asks the system for a free port, then frees it again for the caller to take. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
