import type { Pool } from 'pg';
import { startPageRead } from './postgres-event-log';

/** A pool whose every query fails, as during a database restart. */
const failingPool = { query: () => Promise.reject(new Error('connection terminated')) } as unknown as Pool;
const request = { clusters: ['mainnet-beta' as const], types: undefined, from: 0n, limit: 10 };

describe('startPageRead', () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (e: unknown) => unhandled.push(e);
  beforeEach(() => {
    unhandled.length = 0;
    process.on('unhandledRejection', onUnhandled);
  });
  afterEach(() => process.off('unhandledRejection', onUnhandled));
  const settle = () => new Promise((r) => setTimeout(r, 20));

  it('a failed read reaches whoever awaits its rows, and its records (never asked for) are no unhandled rejection', async () => {
    const read = startPageRead(failingPool, request);
    await expect(read.rows).rejects.toThrow('connection terminated');
    await settle();
    expect(unhandled).toEqual([]);
  });

  it('a read ahead that is dropped unawaited fails silently (an unhandled rejection ends the process)', async () => {
    startPageRead(failingPool, request);
    await settle();
    expect(unhandled).toEqual([]);
  });
});
