import type { AccountState, PoolStatic } from '../discovery/pool-accounts';
import type { AdminScan } from './admin-scan';
import { attribute } from './attribution';

const pool: PoolStatic = {
  config: 'CONFIG',
  programId: 'P',
  version: 'v2',
  seed: '1',
  mintX: 'X',
  mintY: 'Y',
  tokenProgramX: 'T',
  tokenProgramY: 'T',
  vaultX: 'VX',
  vaultY: 'VY',
  oracle: 'ORACLE',
  poolFeeConfig: 'POOLFEE',
  globalFeeConfig: 'GLOBALFEE',
};
const state = (over: Partial<AccountState> = {}): AccountState => ({
  state: 1,
  authority: 'A',
  oracleMode: 0,
  spreadConfigInitialized: false,
  hasPoolFee: true,
  feeConfig: 'POOLFEE',
  fee: { feePpm: 10, feeRecipient: 'R', split: [] },
  oracle: { quotingAuthority: 'Q', sequence: '1', midpriceQ32: '1', spreadFactorQ32: '1' },
  ...over,
});
const scan = (written: string[] = [], named: string[] = written): AdminScan => ({ written: new Set(written), named: new Set(named), initializes: [] });

describe('where an observed account change goes (lookahead batch)', () => {
  it('given a config write in the batch, then PoolConfigChanged goes after the last such write', () => {
    const [a] = attribute([{ pool, observed: state({ state: 2 }), published: state() }], [scan(), scan(['CONFIG']), scan(), scan(['CONFIG']), scan()]);
    expect(a).toMatchObject({ configChangeAt: 3, discoverAt: null });
  });

  it('given a fee-config write, then the split takes effect after it; a config-only change leaves the split at its own writes', () => {
    const [a] = attribute(
      [{ pool, observed: state({ fee: { feePpm: 25, feeRecipient: 'R', split: [{ recipient: 'S', ppm: 1_000_000 }] } }), published: state() }],
      [scan(['POOLFEE']), scan()],
    );
    expect(a.splitAt).toBe(0);
    expect(a.configChangeAt).toBe(0); // fee_ppm is part of the pool snapshot too
  });

  it('given a change but no write in the batch, then it is placed at the end (the read slot)', () => {
    const [a] = attribute([{ pool, observed: state({ authority: 'B' }), published: state() }], [scan(['SOMETHING_ELSE'])]);
    expect(a).toMatchObject({ configChangeAt: 'end', splitAt: 'end' });
  });

  it('given no change, then no PoolConfigChanged', () => {
    const [a] = attribute([{ pool, observed: state(), published: state() }], [scan(['CONFIG'])]);
    expect(a.configChangeAt).toBeNull();
  });

  it('given a new pool created in the batch, then PoolDiscovered goes after its last write, else after the first transaction naming it, else at the end', () => {
    expect(attribute([{ pool, observed: state(), published: null }], [scan(), scan(['CONFIG', 'ORACLE', 'POOLFEE']), scan([], ['CONFIG'])])[0].discoverAt).toBe(
      1,
    );
    expect(attribute([{ pool, observed: state(), published: null }], [scan(), scan([], ['CONFIG'])])[0].discoverAt).toBe(1);
    expect(attribute([{ pool, observed: state(), published: null }], [scan()])[0].discoverAt).toBe('end');
  });

  it('ignores transactions that could not be fetched (null scans)', () => {
    expect(attribute([{ pool, observed: state({ state: 3 }), published: state() }], [null, scan(['CONFIG']), null])[0].configChangeAt).toBe(1);
  });
});
