import { decodePubkey, encodeBase58, HADRON_PROGRAM_V1 } from '@hadron/domain';
import { pdaVectors } from '@hadron/domain/hadron/testing/golden-vectors';
import { vectorCase } from '../decode/testing/swap-transaction-vectors';
import type { WireTransaction } from '../source/solana-rpc';
import { scanTransaction } from './admin-scan';

/** One Hadron instruction in a legacy message: keys [signer, …accounts, program]. */
function tx(data: Uint8Array, accounts: string[], readonlyUnsigned: number, err: unknown = null): WireTransaction {
  const keys = ['7NCJevSNj93C9TpXb3FiJqSqzjfWeJ3rUCwGFAMjiYoS', ...accounts, HADRON_PROGRAM_V1];
  return {
    slot: 1,
    blockTime: 1,
    meta: { err, innerInstructions: [], loadedAddresses: null, preTokenBalances: [], postTokenBalances: [] },
    transaction: {
      signatures: ['sig'],
      message: {
        accountKeys: keys,
        header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: readonlyUnsigned },
        instructions: [{ programIdIndex: keys.length - 1, accounts: keys.slice(0, -1).map((_, i) => i), data: encodeBase58(data) }],
      },
    },
  };
}

const pool = pdaVectors.pools.find((p) => p.program_version === 'v1' && p.seed === '1')!;

describe('which transactions may have written pool accounts', () => {
  it('a swap writes no Hadron account (it only names them)', () => {
    const scan = scanTransaction(vectorCase('a_v1_sell_x_legacy_with_spread_config').result as WireTransaction);
    expect(scan.written.size).toBe(0);
    expect(scan.named.size).toBeGreaterThan(10);
  });

  it('an admin instruction (unknown layout) naming the config writable is a potential write', () => {
    const scan = scanTransaction(tx(Uint8Array.of(16, 2), [pool.config.address], 1));
    expect([...scan.written]).toEqual(expect.arrayContaining([pool.config.address]));
  });

  it('a deposit naming the config read-only does not write it', () => {
    const scan = scanTransaction(
      tx(
        new Uint8Array(25).fill(0).map((_, i) => (i === 0 ? 1 : 0)),
        ['VAULT_X_____________________________1', pool.config.address],
        2,
      ),
    );
    expect(scan.written.has(pool.config.address)).toBe(false);
    expect(scan.named.has(pool.config.address)).toBe(true);
  });

  it('a failed transaction wrote nothing', () => {
    expect(scanTransaction(tx(Uint8Array.of(16, 2), [pool.config.address], 1, { InstructionError: [0, { Custom: 3 }] })).written.size).toBe(0);
  });

  it('reads Initialize [C layout]: the config PDA it creates and the initial midprice', () => {
    const data = new Uint8Array(116);
    const view = new DataView(data.buffer);
    data[0] = 0;
    view.setBigUint64(1, BigInt(pool.seed), true);
    data.set(decodePubkey(pool.mint_x), 9);
    data.set(decodePubkey(pool.mint_y), 41);
    data.set(decodePubkey('7NCJevSNj93C9TpXb3FiJqSqzjfWeJ3rUCwGFAMjiYoS'), 73);
    view.setBigUint64(105, 644245094400n, true);
    const scan = scanTransaction(tx(data, [pool.config.address, pool.midprice_oracle.address], 0));
    expect(scan.initializes).toEqual([{ programId: HADRON_PROGRAM_V1, config: pool.config.address, initialMidpriceQ32: '644245094400' }]);
    expect(scan.written.has(pool.midprice_oracle.address)).toBe(true);
  });
});
