import { createServer, type Server } from 'node:net';
import { freePort } from './free-port';

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen({ port, host: '127.0.0.1', exclusive: true }, () => resolve(s));
  });
}

describe('freePort', () => {
  it('hands out distinct ports, each one a server can then listen on, none in the kernel ephemeral range', async () => {
    const ports: number[] = [];
    for (let i = 0; i < 40; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
    for (const p of ports) {
      expect(p).toBeGreaterThanOrEqual(1024);
      expect(p).toBeLessThan(32_768);
    }
    const servers = await Promise.all(ports.map(listen)); // all at once: none collides with another
    await Promise.all(servers.map((s) => new Promise((ok) => s.close(ok))));
  });
});
