// A free TCP port on loopback, for a process or server that must be told its port up front.
//
// The port is drawn below Linux's ephemeral range (32768-60999), where the system takes the
// ports of outgoing connections and of listeners on port 0: a port the system handed out here
// and freed could be taken by any connection before the caller listens on it. Below that range
// only another caller's draw can collide, and the draw is checked by listening on it.
import net from 'node:net';

const LOW = 10_000;
const HIGH = 32_000;

/** A port in 10,000-31,999 that nothing listens on now, for the caller to take. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const port = LOW + Math.floor(Math.random() * (HIGH - LOW));
    if (await canListen(port)) return port;
    if (attempt === 50) throw new Error('no free port found in 10,000-31,999 after 50 draws');
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
