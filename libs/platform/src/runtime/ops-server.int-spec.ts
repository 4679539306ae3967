import { Registry } from 'prom-client';
import { startOpsServer, type OpsServer } from './ops-server';

/** The indexer's and projector's /health/ready: an answer in bounded time, whatever the check waits for. */
describe('ops server readiness', () => {
  const servers: OpsServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
  });
  const start = async (ready: () => Promise<{ ready: boolean; detail: unknown }>) => {
    const s = await startOpsServer({ port: 0, host: '127.0.0.1', registry: new Registry(), ready, readyTimeoutMs: 300 });
    servers.push(s);
    return (path = '/health/ready') =>
      fetch(`http://127.0.0.1:${s.port}${path}`).then(async (r) => ({ status: r.status, body: (await r.json()) as { status: string; detail: any } }));
  };

  it('answers the check when it is quick: 200 ready, 503 not ready', async () => {
    let ok = true;
    const get = await start(async () => ({ ready: ok, detail: { lag: ok ? 0 : 5 } }));
    expect(await get()).toEqual({ status: 200, body: { status: 'ready', detail: { lag: 0 } } });
    ok = false;
    expect(await get()).toEqual({ status: 503, body: { status: 'not ready', detail: { lag: 5 } } });
  });

  it('a check that hangs (a broker down) is a 503 with the reason and the last answer known, and runs once however many probes wait', async () => {
    let calls = 0;
    let hang = false;
    const get = await start(async () => {
      calls++;
      if (hang) await new Promise(() => undefined);
      return { ready: true, detail: { lag: 0 } };
    });
    expect((await get()).status).toBe(200);
    hang = true;
    const probes = await Promise.all([get(), get(), get()]);
    for (const p of probes) {
      expect(p.status).toBe(503);
      expect(p.body.detail.reasons).toEqual(['readiness check did not answer within 300 ms']);
      expect(p.body.detail.last.detail).toEqual({ lag: 0 });
    }
    expect(calls).toBe(2); // the first check, and one hanging check shared by the three probes
  });
});
