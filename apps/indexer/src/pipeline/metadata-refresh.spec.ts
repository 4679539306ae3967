import { parseHadronEvent, type TokenMetadata } from '@hadron/contracts';
import type { AccountState } from '../discovery/pool-accounts';
import { EventBuilder } from './event-builder';
import { tokenRenames } from './metadata-refresh';
import { UNKNOWN_STATE, type PoolRecord } from './pool-state';

const key = (n: number) => `${n}`.padStart(2, '1').padEnd(32, 'A').replace(/0/g, 'B');
const MINT_A = key(21);
const MINT_B = key(22);
const MINT_C = key(23);
const token = (mint: string, symbol: string, name = symbol, decimals = 6, icon = ''): TokenMetadata => ({ mint, symbol, name, decimals, icon });

function pool(config: string, x: TokenMetadata, y: TokenMetadata): PoolRecord {
  const published = {
    state: 1,
    authority: config,
    oracleMode: 0,
    spreadConfigInitialized: false,
    hasPoolFee: false,
    feeConfig: config,
    fee: null,
    oracle: null,
  } satisfies AccountState;
  const s = {
    config,
    programId: config,
    version: 'v1' as const,
    seed: '1',
    mintX: x.mint,
    mintY: y.mint,
    tokenProgramX: config,
    tokenProgramY: config,
    vaultX: config,
    vaultY: config,
    oracle: config,
    poolFeeConfig: config,
    globalFeeConfig: config,
  };
  return { static: s, tokens: { x, y }, tracked: { ...UNKNOWN_STATE }, published, discoveredSlot: 0 };
}

const P1 = pool(key(31), token(MINT_A, ''), token(MINT_C, 'USDC', 'USD Coin'));
const P2 = pool(key(32), token(MINT_B, 'BONQ', 'Bonq Inu'), token(MINT_A, ''));

describe('tokenRenames (metadata refresh)', () => {
  it.each([
    ['nothing reads differently', [token(MINT_A, ''), token(MINT_B, 'BONQ', 'Bonq Inu'), token(MINT_C, 'USDC', 'USD Coin')], []],
    ['a mint the read did not return changes nothing', [token(MINT_C, 'USDC', 'USD Coin')], []],
    [
      'a blank token (an earlier release read nothing) gets its name, on every pool and side holding it',
      [token(MINT_A, 'HDRN', 'Hadron')],
      [
        [P1.static.config, MINT_A],
        [P2.static.config, MINT_A],
      ],
    ],
    ['a rename of the symbol only', [token(MINT_B, 'BONQ2', 'Bonq Inu')], [[P2.static.config, MINT_B]]],
    ['a new curated icon', [token(MINT_C, 'USDC', 'USD Coin', 6, 'https://i/usdc.png')], [[P1.static.config, MINT_C]]],
    ['metadata gone: the token goes back to blank (readers show the fallback)', [token(MINT_B, '', '')], [[P2.static.config, MINT_B]]],
    ['different decimals (impossible on chain) change nothing', [token(MINT_B, 'X', 'X', 9)], []],
  ])('%s', (_, read, expected) => {
    const renames = tokenRenames([P1, P2], new Map(read.map((t) => [t.mint, t])));
    expect(renames.flatMap((r) => r.renamed.map((t) => [r.pool.static.config, t.mint]))).toEqual(expected);
    for (const r of renames) {
      for (const t of r.renamed) expect(read.find((x) => x.mint === t.mint)).toEqual(t);
      // The pool record carries the new tokens and keeps everything else.
      const before = [P1, P2].find((p) => p.static.config === r.pool.static.config)!;
      expect({ ...r.pool, tokens: before.tokens }).toEqual(before);
    }
  });

  it('both sides renamed at once, and the events are valid v1 TokenMetadataChanged', () => {
    const renames = tokenRenames([P1], new Map([token(MINT_A, 'AAA', 'A token'), token(MINT_C, 'USDC.e', 'USD Coin (bridged)')].map((t) => [t.mint, t])));
    expect(renames).toHaveLength(1);
    expect(renames[0].pool.tokens).toEqual({ x: token(MINT_A, 'AAA', 'A token'), y: token(MINT_C, 'USDC.e', 'USD Coin (bridged)') });
    const builder = new EventBuilder('devnet', new Map([[P1.static.config, renames[0].pool]]));
    const events = renames[0].renamed.map((t) =>
      builder.tokenMetadataChanged(renames[0].pool, t, { slot: 77, blockTime: 1_700_000_000, signature: null, txIndex: null }),
    );
    for (const e of events) expect(parseHadronEvent(JSON.parse(JSON.stringify(e)))).toEqual({ ok: true, event: e });
    expect(events.map((e) => [e.id, e.pool, e.slot, e.data.symbol])).toEqual([
      [`${P1.static.config}:metadata:${MINT_A}:77`, P1.static.config, 77, 'AAA'],
      [`${P1.static.config}:metadata:${MINT_C}:77`, P1.static.config, 77, 'USDC.e'],
    ]);
  });
});
