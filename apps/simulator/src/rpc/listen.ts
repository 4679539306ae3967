import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Starts `server` on host:port (0 = any free port), failing on a listen error such as a port in
 * use. Returns the port taken and the URL of a cluster path under `scheme` (IPv6 hosts bracketed).
 */
export async function listenOn(server: Server, host: string, port: number, scheme: 'http' | 'ws'): Promise<{ port: number; url(cluster: string): string }> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const actual = (server.address() as AddressInfo).port;
  const origin = `${scheme}://${host.includes(':') ? `[${host}]` : host}:${actual}`;
  return { port: actual, url: (cluster) => `${origin}/${cluster}` };
}
