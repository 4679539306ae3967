import {
  decodeInstructionBase58,
  encodeBase58,
  encodeInstruction,
  HADRON_PROGRAM_V1,
  HADRON_PROGRAM_V2,
  humanPriceDecimal,
  humanPriceDouble,
  q32ToDecimal,
  SPL_TOKEN_PROGRAM,
  spreadBpsDecimal,
  spreadBpsDouble,
  SYSVAR_CLOCK,
} from '@hadron/domain';
import { pdaVectors } from '@hadron/domain/hadron/testing/golden-vectors';
import { decodeContextOf } from './decode-context';
import { decodeTransaction } from './decode-transaction';
import type { RpcCompiledInstruction, RpcTokenBalance, RpcTransactionResult } from './rpc-transaction';
import { factFromVector, fixtureContext, swapTransactionVectors, vectorCase } from './testing/swap-transaction-vectors';

const ctx = fixtureContext();
const NO_POOLS = decodeContextOf(new Map());
/** Decimals of the fixtures' mints (WSOL, USDC): the inputs of the vectors' `derived` values. */
const DECIMALS: Record<string, number> = { So11111111111111111111111111111111111111112: 9, EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v: 6 };

describe('decodeTransaction — golden transactions', () => {
  it.each(swapTransactionVectors.cases.map((c) => [c.name, c] as const))('%s gives exactly the expected events', (_name, c) => {
    const facts = decodeTransaction(c.result, ctx);
    expect(facts.events).toEqual(c.expected.events.map(factFromVector));
    expect(facts.problems).toEqual([]);
  });

  it('yields nothing at all for a failed transaction, though its swap decodes', () => {
    const facts = decodeTransaction(vectorCase('c_v1_failed_swap_slippage').result, ctx);
    expect(facts).toMatchObject({ events: [], vaultBalances: [], problems: [] });
  });

  it('reports the end-of-transaction vault balances of the pool a transaction touched', () => {
    expect(decodeTransaction(vectorCase('b_v2_buy_x_v0_lookup_table').result, ctx).vaultBalances).toEqual([
      {
        kind: 'vault_balances',
        poolConfig: 'CXV68yz327Pv1Wo7wNubYSGkoHSsh45TjNnSm3NfQ1v8',
        signature: '4c9ow6r63X5Lxu3fUcgxdmAqy6xQdi6kzxkGmwwgEajmbs8eJxsg1KMomeM53WfrzAH6ZfQJj8QkP2Ua3pKFU5sA',
        slot: 312000400,
        blockTime: 1736000100,
        vaultX: '7yzBoiS9ypgV8tkC61fFgtE1ocGNYgDnc1pND3m8BHkR',
        vaultY: '6VKGYaHn2WzpWhehLHdLFuDDjDxjwthVY2xT9sNvkhH7',
        vaultXAfter: '498346043031',
        vaultYAfter: '80249997500',
      },
    ]);
    expect(decodeTransaction(vectorCase('d_v2_update_midprice_and_base_spread').result, ctx).vaultBalances).toEqual([]);
  });

  it('falls back to balance deltas when a lone swap has no usable inner transfers', () => {
    const direct = vectorCase('a_v1_sell_x_legacy_with_spread_config');
    direct.result.meta!.innerInstructions = [];
    expect(decodeTransaction(direct.result, ctx).events).toEqual(direct.expected.events.map(factFromVector));

    // A CPI swap without stackHeight (older transactions): its transfers cannot be delimited.
    const viaCpi = vectorCase('f_v2_sell_x_via_cpi');
    for (const ix of viaCpi.result.meta!.innerInstructions![0].instructions) ix.stackHeight = null;
    expect(decodeTransaction(viaCpi.result, ctx).events).toEqual(viaCpi.expected.events.map(factFromVector));
  });

  it('asks for discovery when a swap names a pool the context does not know', () => {
    const facts = decodeTransaction(vectorCase('a_v1_sell_x_legacy_with_spread_config').result, NO_POOLS);
    expect(facts.events).toEqual([]);
    expect(facts.problems).toEqual([expect.objectContaining({ code: 'unknown_pool', poolConfig: 'BjFSvjFnSKy2Le9Zio52VgXrkmtgK5X7VsCcXJUH769k' })]);
  });

  it('still reports an oracle update whose oracle is unknown, with no pool', () => {
    const facts = decodeTransaction(vectorCase('e_v1_update_midprice_only').result, NO_POOLS);
    expect(facts.events).toEqual([expect.objectContaining({ kind: 'oracle_update', poolConfigViaRegistry: null })]);
  });

  it('records a problem when the RPC has no metadata', () => {
    const c = vectorCase('a_v1_sell_x_legacy_with_spread_config');
    const facts = decodeTransaction({ ...c.result, meta: null }, ctx);
    expect(facts.events).toEqual([]);
    expect(facts.problems).toEqual([expect.objectContaining({ code: 'missing_meta', eventId: facts.signature })]);
  });
});

describe('decodeTransaction — what the golden transactions derive from the decoded events', () => {
  const oracleCases = swapTransactionVectors.cases.filter((c) => c.expected.events.some((e) => e.kind === 'oracle_update'));

  it('covers the two oracle-update vectors', () => {
    expect(oracleCases.map((c) => c.name)).toEqual(['d_v2_update_midprice_and_base_spread', 'e_v1_update_midprice_only']);
  });

  it.each(oracleCases.map((c) => [c.name, c] as const))(
    '%s: midprice raw/human and spread bps follow from the decoded Q32 values and the pool mints',
    (_name, c) => {
      const [event] = decodeTransaction(c.result, ctx).events;
      if (event.kind !== 'oracle_update') throw new Error('expected an oracle update');
      const derived = c.expected.events[0].derived as Record<string, unknown>;
      // The decimals are inputs: the pool found through the oracle registry is WSOL/USDC.
      const pool = pdaVectors.pools.find((p) => p.config.address === event.poolConfigViaRegistry)!;
      const [dx, dy] = [DECIMALS[pool.mint_x], DECIMALS[pool.mint_y]];
      const mid = BigInt(event.midpriceQ32!);
      const actual: Record<string, unknown> = {
        decimals_x: dx,
        decimals_y: dy,
        midprice_raw: q32ToDecimal(mid),
        midprice_human: humanPriceDecimal(mid, dx, dy),
        midprice_human_f64: humanPriceDouble(mid, dx, dy),
      };
      if (event.spreadFactorQ32 !== null) {
        const factor = BigInt(event.spreadFactorQ32);
        Object.assign(actual, { spread_factor: q32ToDecimal(factor), spread_bps: spreadBpsDecimal(factor), spread_bps_f64: spreadBpsDouble(factor) });
      }
      expect(actual).toEqual(derived);
    },
  );

  it('c: the failed swap is the instruction the error names, with the arguments, pool and trader given for reference', () => {
    const c = vectorCase('c_v1_failed_swap_slippage');
    const ref = (
      c.expected as unknown as { decoded_instruction_for_reference: Record<string, unknown> & { top_level_index: number; error: { custom: number } } }
    ).decoded_instruction_for_reference;
    const ix = c.result.transaction.message.instructions[ref.top_level_index];
    const keys = c.result.transaction.message.accountKeys;
    expect(keys[ix.programIdIndex]).toBe(HADRON_PROGRAM_V1);
    const { top_level_index: _t, pool_config: poolConfig, trader, error, ...args } = ref;
    expect(decodeInstructionBase58(ix.data)).toEqual(args);
    expect([keys[ix.accounts[2]], keys[ix.accounts[7]]]).toEqual([poolConfig, trader]);
    expect(c.result.meta!.err).toEqual({ InstructionError: [ref.top_level_index, { Custom: error.custom }] });
  });

  it('b: the loaded addresses are the lookup table entries the message names, writable then readonly', () => {
    const c = vectorCase('b_v2_buy_x_v0_lookup_table');
    const tables = (c as unknown as { address_lookup_tables: { key: string; addresses: string[] }[] }).address_lookup_tables;
    const lookups = (
      c.result.transaction.message as unknown as { addressTableLookups: { accountKey: string; writableIndexes: number[]; readonlyIndexes: number[] }[] }
    ).addressTableLookups;
    const table = (key: string) => tables.find((t) => t.key === key)!.addresses;
    expect(c.result.meta!.loadedAddresses).toEqual({
      writable: lookups.flatMap((l) => l.writableIndexes.map((i) => table(l.accountKey)[i])),
      readonly: lookups.flatMap((l) => l.readonlyIndexes.map((i) => table(l.accountKey)[i])),
    });
  });
});

describe('decodeTransaction — malformed results become typed problems, never exceptions', () => {
  const base = () => vectorCase('a_v1_sell_x_legacy_with_spread_config').result as unknown as Record<string, any>;
  const broken: [string, () => unknown][] = [
    ['a null result', () => null],
    ['a string', () => 'not a transaction'],
    ['no transaction', () => ({ ...base(), transaction: undefined })],
    ['no message', () => ({ ...base(), transaction: { signatures: base().transaction.signatures } })],
    ['no signatures', () => ({ ...base(), transaction: { ...base().transaction, signatures: [] } })],
    ['accountKeys missing', () => ({ ...base(), transaction: { ...base().transaction, message: { instructions: [] } } })],
    ['instructions not a list', () => ({ ...base(), transaction: { ...base().transaction, message: { ...base().transaction.message, instructions: {} } } })],
    [
      'an instruction without data',
      () => {
        const r = base();
        delete r.transaction.message.instructions[0].data;
        return r;
      },
    ],
    ['a slot that is not a number', () => ({ ...base(), slot: '312000000' })],
    [
      'meta without err',
      () => {
        const r = base();
        delete r.meta.err;
        return r;
      },
    ],
    ['inner instructions not a list', () => ({ ...base(), meta: { ...base().meta, innerInstructions: { 0: [] } } })],
    ['an inner group without instructions', () => ({ ...base(), meta: { ...base().meta, innerInstructions: [{ index: 0 }] } })],
    ['loaded addresses without lists', () => ({ ...base(), meta: { ...base().meta, loadedAddresses: { writable: null } } })],
    [
      'a token amount that is not a u64 string',
      () => {
        const r = base();
        r.meta.postTokenBalances[0].uiTokenAmount.amount = '1.5';
        return r;
      },
    ],
    [
      'a token amount that is a number',
      () => {
        const r = base();
        r.meta.preTokenBalances[0].uiTokenAmount.amount = 5;
        return r;
      },
    ],
    [
      'a token amount above u64',
      () => {
        const r = base();
        r.meta.postTokenBalances[0].uiTokenAmount.amount = '18446744073709551616000';
        return r;
      },
    ],
    [
      'a token balance without uiTokenAmount',
      () => {
        const r = base();
        delete r.meta.postTokenBalances[0].uiTokenAmount;
        return r;
      },
    ],
  ];

  it.each(broken)('%s', (_name, make) => {
    const facts = decodeTransaction(make() as RpcTransactionResult, ctx);
    expect(facts.events).toEqual([]);
    expect(facts.vaultBalances).toEqual([]);
    expect(facts.problems).toEqual([expect.objectContaining({ code: 'malformed_transaction', instructionLocation: null, poolConfig: null })]);
  });

  it('keeps the signature and slot of a malformed result when they are readable', () => {
    const r = base();
    r.meta.postTokenBalances[0].uiTokenAmount.amount = 'abc';
    const facts = decodeTransaction(r as RpcTransactionResult, ctx);
    expect({ signature: facts.signature, slot: facts.slot, eventId: facts.problems[0].eventId }).toEqual({
      signature: r.transaction.signatures[0],
      slot: r.slot,
      eventId: r.transaction.signatures[0],
    });
    expect(facts.problems[0].message).toContain('postTokenBalances[0].uiTokenAmount.amount');
  });
});

/*
 * Constructed transactions on the v1 WSOL/USDC pool of the fixtures (seed 12345678901234).
 * Legacy message; the key indexes below are positions in KEYS.
 */
const POOL = 'BjFSvjFnSKy2Le9Zio52VgXrkmtgK5X7VsCcXJUH769k';
const KEYS = [
  'H9jAxtfVRjWBuXA4cVsfkCDEL3whQ1EUvvbMGKdq5UDc', // 0 trader
  'Bo3GbPYtst7fxfvXwHjE4hAPr5Hi57jepwqqADAby2ex', // 1 trader WSOL ATA
  'HekaF8w53dLW4iefbj7VMbD1WMd5A1A9Se5wv4ZaVrVP', // 2 trader USDC ATA
  '7DjP6NgEXaD7pWmpeuVs8pzrRt13qaKVF6bJJdyuTaa5', // 3 vault_x (WSOL)
  '3fprDMB7C4dB8qmTUfcSJSCJKygmcLhqN9vUCNAKnx3Z', // 4 vault_y (USDC)
  '5X6eBNjcfQYEZRQWE954ud3d5cR8ez4Ax3asyCuZgC7r', // 5 fee recipient WSOL ATA
  '4cKd4upsU5g7LUff322GVBcbBZrTbxk5PknjNSYDHAqo', // 6 fee recipient USDC ATA
  '7wU4gubYWpWsLCiPXthWUMbAotn1X4DPFcBF8u4YBjNW', // 7 curve_prefabs
  'CxHnAsw4NbyBxU4vUMaKxZMh23G8JKtbj9DzQwxetvu4', // 8 curve_updates
  HADRON_PROGRAM_V1, // 9
  SPL_TOKEN_PROGRAM, // 10
  POOL, // 11 config
  'Fk1ytjrNsG1x8ELcUif6WmzWh3AdUPfhcs7h9qeSFkS3', // 12 oracle
  '5hGWsC9BwbMyHq3wULrNmHYg6cCLegHjTp91AVjCvoWe', // 13 curve_meta
  'FoDswiGbeRMEm2dEpLfvJTZaQjjZXFcJzCYyhzxiWcRd', // 14 fee_config
  SYSVAR_CLOCK, // 15
  '536UQqzBiwGiznWRGZSn2vBk9Zv5VwQA6pYmpD5Vgr4V', // 16 router (made up)
  'So11111111111111111111111111111111111111112', // 17 WSOL mint
  'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', // 18 USDC mint
  // A second v1 WSOL/USDC pool (seed 0): same input mints, so the same global fee recipient ATAs.
  '4Hy7s5T9Bo8o9sPCDFfAngxnqbFxeNyUbNLgUGyLtugu', // 19 config
  '3NxfYaXDivZZXSTDdSxvcNUi8n5yhU9475Ko21JpyMfD', // 20 oracle
  '77mZShaau4zLhbHo5dpQhKzuPAmbvhekAt1dca4nDucP', // 21 curve_meta
  'BhtrVx86izeK7uZ9stZ9mJx6JLxC35QKvEJX49VX1fMB', // 22 curve_prefabs
  '9T2bdZAp9WDbtZmCzc1maM4Yh8aDVzLovNbkMzUrMZ1e', // 23 curve_updates
  '4ohtFvdcXPgTMjPZ4mChL8QBJhSNfex9UipNQhQc6Ry5', // 24 vault_x (WSOL)
  'HazyWzyy995UrL1bXv5yKEXm4BAU8vtREWCQiNzfdnxA', // 25 vault_y (USDC)
  HADRON_PROGRAM_V2, // 26
];
const [TRADER, USER_WSOL, USER_USDC, VAULT_X, VAULT_Y, FEE_WSOL, FEE_USDC] = [0, 1, 2, 3, 4, 5, 6];
const [HADRON, TOKEN, ROUTER, WSOL, USDC, HADRON_V2] = [9, 10, 16, 17, 18, 26];
const POOL_0 = KEYS[19];
const [VAULT0_X, VAULT0_Y] = [24, 25];
/** Account indexes a swap names for the pool: [config, oracle, curve_meta, curve_prefabs, curve_updates]. */
const POOL_ACCOUNTS = { main: [11, 12, 13, 7, 8], zero: [19, 20, 21, 22, 23] } as const;
const WSOL_ACCOUNTS = [USER_WSOL, VAULT_X, FEE_WSOL, VAULT0_X];
const POOL_OF_VAULT: Record<number, string> = { [VAULT_X]: POOL, [VAULT_Y]: POOL, [VAULT0_X]: POOL_0, [VAULT0_Y]: POOL_0 };
const SIG = '4mjaQpop9Ju3nfDcqhENrzu7Ja8agYiHuvy6QvhjjADFvaLoV6NcL5d1TK3ykpEFgcENUz82DN6jZDmt4ftM6ubX';

function swapIx(
  isX: number,
  amountIn: bigint,
  src: number,
  vaultSrc: number,
  vaultDst: number,
  dst: number,
  feeAta: number,
  stackHeight: number | null,
  pool: keyof typeof POOL_ACCOUNTS = 'main',
): RpcCompiledInstruction {
  const data = encodeInstruction({ tag: 3, instruction: 'Swap', is_x: isX, amount_in: amountIn.toString(), min_out: '1', expiration: '9223372036854775807' });
  const [config, oracle, curveMeta, prefabs, updates] = POOL_ACCOUNTS[pool];
  return {
    programIdIndex: HADRON,
    accounts: [TOKEN, TOKEN, config, oracle, curveMeta, prefabs, config, TRADER, src, vaultSrc, vaultDst, dst, 14, feeAta, 15, updates],
    data: encodeBase58(data),
    stackHeight,
  };
}

function transfer(source: number, destination: number, amount: bigint, stackHeight: number | null): RpcCompiledInstruction {
  const data = new Uint8Array(9);
  data[0] = 3;
  new DataView(data.buffer).setBigUint64(1, amount, true);
  return { programIdIndex: TOKEN, accounts: [source, destination, TRADER], data: encodeBase58(data), stackHeight };
}

function transferChecked(source: number, mint: number, destination: number, amount: bigint, stackHeight: number): RpcCompiledInstruction {
  const data = new Uint8Array(10);
  data[0] = 12;
  new DataView(data.buffer).setBigUint64(1, amount, true);
  data[9] = mint === WSOL ? 9 : 6;
  return { programIdIndex: TOKEN, accounts: [source, mint, destination, TRADER], data: encodeBase58(data), stackHeight };
}

/** A successful legacy transaction; token balances from `pre` and the net of `moves`. */
function transaction(
  instructions: RpcCompiledInstruction[],
  inner: { index: number; instructions: RpcCompiledInstruction[] }[],
  pre: Record<number, bigint>,
  moves: [from: number, to: number, amount: bigint][],
): RpcTransactionResult {
  const post = { ...pre };
  for (const [from, to, amount] of moves) {
    post[from] -= amount;
    post[to] += amount;
  }
  const balances = (amounts: Record<number, bigint>): RpcTokenBalance[] =>
    Object.entries(amounts).map(([i, amount]) => ({
      accountIndex: Number(i),
      mint: KEYS[WSOL_ACCOUNTS.includes(Number(i)) ? WSOL : USDC],
      owner: POOL_OF_VAULT[Number(i)] ?? KEYS[TRADER],
      uiTokenAmount: { amount: amount.toString(), decimals: 6 },
    }));
  return {
    slot: 312_000_900,
    blockTime: 1_736_000_900,
    meta: {
      err: null,
      innerInstructions: inner,
      loadedAddresses: { writable: [], readonly: [] },
      preTokenBalances: balances(pre),
      postTokenBalances: balances(post),
    },
    transaction: { signatures: [SIG], message: { accountKeys: KEYS, instructions } },
  };
}

const PRE: Record<number, bigint> = {
  [USER_WSOL]: 10_000_000_000n,
  [USER_USDC]: 500_000_000n,
  [VAULT_X]: 800_000_000_000n,
  [VAULT_Y]: 125_000_000_000n,
  [FEE_WSOL]: 0n,
  [FEE_USDC]: 7n,
};

// Swap 1, direct (top level 0): sells 2.5 WSOL, fee 25_000 lamports, gets 375.358308 USDC (plain Transfers).
const SELL = { in: 2_500_000_000n, fee: 25_000n, out: 375_358_308n };
// Swap 2, via the router (top level 1, inner 0): buys WSOL with 100 USDC, fee 1_000, gets 0.66 WSOL (TransferChecked).
const BUY = { in: 100_000_000n, fee: 1_000n, out: 660_000_000n };
// After the swap returns, the router sends 5 USDC atoms user → fee ATA: same accounts as a fee leg, not the swap's.
const ROUTER_TIP = 5n;

function twoSwapsOnOnePool(): RpcTransactionResult {
  return transaction(
    [swapIx(1, SELL.in, USER_WSOL, VAULT_X, VAULT_Y, USER_USDC, FEE_WSOL, null), { programIdIndex: ROUTER, accounts: [HADRON], data: '', stackHeight: null }],
    [
      {
        index: 0,
        instructions: [
          transfer(USER_WSOL, FEE_WSOL, SELL.fee, 2),
          transfer(USER_WSOL, VAULT_X, SELL.in - SELL.fee, 2),
          transfer(VAULT_Y, USER_USDC, SELL.out, 2),
        ],
      },
      {
        index: 1,
        instructions: [
          swapIx(0, BUY.in, USER_USDC, VAULT_Y, VAULT_X, USER_WSOL, FEE_USDC, 2),
          // Order shuffled on purpose: legs are matched by account.
          transferChecked(VAULT_X, WSOL, USER_WSOL, BUY.out, 3),
          transferChecked(USER_USDC, USDC, FEE_USDC, BUY.fee, 3),
          transferChecked(USER_USDC, USDC, VAULT_Y, BUY.in - BUY.fee, 3),
          transfer(USER_USDC, FEE_USDC, ROUTER_TIP, 2),
        ],
      },
    ],
    PRE,
    [
      [USER_WSOL, FEE_WSOL, SELL.fee],
      [USER_WSOL, VAULT_X, SELL.in - SELL.fee],
      [VAULT_Y, USER_USDC, SELL.out],
      [VAULT_X, USER_WSOL, BUY.out],
      [USER_USDC, FEE_USDC, BUY.fee],
      [USER_USDC, VAULT_Y, BUY.in - BUY.fee],
      [USER_USDC, FEE_USDC, ROUTER_TIP],
    ],
  );
}

describe('decodeTransaction — constructed transactions', () => {
  it('gives two swaps on one pool in one transaction (direct + CPI) each their own exact amounts', () => {
    const facts = decodeTransaction(twoSwapsOnOnePool(), ctx);
    expect(facts.problems).toEqual([]);
    expect(facts.events).toEqual([
      expect.objectContaining({
        eventId: `${SIG}:0`,
        side: 'sell',
        amountIn: SELL.in.toString(),
        amountInToVault: (SELL.in - SELL.fee).toString(),
        amountOut: SELL.out.toString(),
        protocolFeeRaw: SELL.fee.toString(),
        protocolFeeMint: KEYS[WSOL],
      }),
      expect.objectContaining({
        eventId: `${SIG}:1:0`,
        instructionLocation: { topLevelIndex: 1, innerIndex: 0 },
        side: 'buy',
        inputMint: KEYS[USDC],
        amountIn: BUY.in.toString(),
        amountInToVault: (BUY.in - BUY.fee).toString(),
        amountOut: BUY.out.toString(),
        protocolFeeRaw: BUY.fee.toString(),
        protocolFeeMint: KEYS[USDC],
        feeRecipientAta: KEYS[FEE_USDC],
      }),
    ]);
    const vaultsAfter = {
      vaultXAfter: (PRE[VAULT_X] + SELL.in - SELL.fee - BUY.out).toString(),
      vaultYAfter: (PRE[VAULT_Y] - SELL.out + BUY.in - BUY.fee).toString(),
    };
    for (const event of facts.events) expect(event).toMatchObject(vaultsAfter);
    expect(facts.vaultBalances).toEqual([expect.objectContaining({ poolConfig: POOL, vaultX: KEYS[VAULT_X], vaultY: KEYS[VAULT_Y], ...vaultsAfter })]);
  });

  it('does not guess from balance deltas when a pool is touched twice and one swap has no transfers', () => {
    const tx = twoSwapsOnOnePool();
    for (const ix of tx.meta!.innerInstructions![1].instructions) ix.stackHeight = null;
    const facts = decodeTransaction(tx, ctx);
    expect(facts.events.map((e) => e.eventId)).toEqual([`${SIG}:0`]);
    expect(facts.problems).toEqual([expect.objectContaining({ code: 'unresolved_amounts', eventId: `${SIG}:1:0`, poolConfig: POOL })]);
  });

  it('reads a zero fee when there is no fee transfer', () => {
    const tx = transaction(
      [swapIx(1, 1_000n, USER_WSOL, VAULT_X, VAULT_Y, USER_USDC, FEE_WSOL, null)],
      [{ index: 0, instructions: [transfer(USER_WSOL, VAULT_X, 1_000n, 2), transfer(VAULT_Y, USER_USDC, 150n, 2)] }],
      PRE,
      [
        [USER_WSOL, VAULT_X, 1_000n],
        [VAULT_Y, USER_USDC, 150n],
      ],
    );
    expect(decodeTransaction(tx, ctx).events).toEqual([
      expect.objectContaining({ amountIn: '1000', amountInToVault: '1000', amountOut: '150', protocolFeeRaw: '0', protocolFeeMint: KEYS[WSOL] }),
    ]);
  });

  it('turns bad Hadron instruction data into typed problems and keeps decoding the rest', () => {
    const oracleUpdate = encodeBase58(encodeInstruction({ tag: 5, instruction: 'UpdateMidprice', sequence: '9', midprice_q32: '645318836' }));
    const truncatedSwap = encodeBase58(
      encodeInstruction({ tag: 3, instruction: 'Swap', is_x: 1, amount_in: '5', min_out: '1', expiration: '0' }).subarray(0, 25),
    );
    const tx = transaction(
      [
        { programIdIndex: HADRON, accounts: [TRADER, 12, 15], data: truncatedSwap, stackHeight: null },
        { programIdIndex: HADRON, accounts: [TRADER], data: '0OIl', stackHeight: null },
        { programIdIndex: HADRON, accounts: [], data: encodeBase58(Uint8Array.of(250, 1, 2)), stackHeight: null },
        { programIdIndex: HADRON, accounts: [], data: '', stackHeight: null },
        { programIdIndex: HADRON, accounts: [TRADER, 99], data: oracleUpdate, stackHeight: null },
        { programIdIndex: HADRON, accounts: [TRADER], data: oracleUpdate, stackHeight: null },
        { programIdIndex: HADRON, accounts: [TRADER, 12, 15], data: oracleUpdate, stackHeight: null },
      ],
      [],
      {},
      [],
    );
    const facts = decodeTransaction(tx, ctx);
    expect(facts.problems.map((p) => [p.eventId, p.code])).toEqual([
      [`${SIG}:0`, 'truncated'],
      [`${SIG}:1`, 'invalid_base58'],
      [`${SIG}:2`, 'unknown_tag'],
      [`${SIG}:3`, 'empty_data'],
      [`${SIG}:4`, 'missing_accounts'],
      [`${SIG}:5`, 'missing_accounts'],
    ]);
    expect(facts.events).toEqual([expect.objectContaining({ eventId: `${SIG}:6`, kind: 'oracle_update', sequence: '9', poolConfigViaRegistry: POOL })]);
  });

  it('reports vault balances for a deposit (a tag with no fact of its own)', () => {
    const deposit = encodeBase58(Uint8Array.of(1, ...new Uint8Array(24)));
    const tx = transaction(
      [{ programIdIndex: HADRON, accounts: [TRADER, VAULT_X, VAULT_Y, USER_WSOL, USER_USDC, 11, TOKEN, TOKEN], data: deposit, stackHeight: null }],
      [],
      PRE,
      [
        [USER_WSOL, VAULT_X, 1_000n],
        [USER_USDC, VAULT_Y, 2_000n],
      ],
    );
    const facts = decodeTransaction(tx, ctx);
    expect(facts.events).toEqual([]);
    expect(facts.problems).toEqual([]);
    expect(facts.vaultBalances).toEqual([
      expect.objectContaining({ poolConfig: POOL, vaultXAfter: (PRE[VAULT_X] + 1_000n).toString(), vaultYAfter: (PRE[VAULT_Y] + 2_000n).toString() }),
    ]);
  });

  it('ignores transactions that never invoke Hadron', () => {
    const tx = transaction([transfer(USER_WSOL, VAULT_X, 1n, null)], [], PRE, [[USER_WSOL, VAULT_X, 1n]]);
    tx.transaction.message.accountKeys = KEYS.map((k) => (k === HADRON_PROGRAM_V1 || k === HADRON_PROGRAM_V2 ? '11111111111111111111111111111111' : k));
    expect(decodeTransaction(tx, ctx)).toMatchObject({ events: [], vaultBalances: [], problems: [] });
  });

  it('reports a swap whose transfers disagree with its own amount_in argument, instead of publishing it', () => {
    // The instruction says 2.5 WSOL; its transfers move 25_000 + 2_499_974_999 (one atom short).
    const tx = transaction(
      [swapIx(1, SELL.in, USER_WSOL, VAULT_X, VAULT_Y, USER_USDC, FEE_WSOL, null)],
      [
        {
          index: 0,
          instructions: [
            transfer(USER_WSOL, FEE_WSOL, SELL.fee, 2),
            transfer(USER_WSOL, VAULT_X, SELL.in - SELL.fee - 1n, 2),
            transfer(VAULT_Y, USER_USDC, SELL.out, 2),
          ],
        },
      ],
      PRE,
      [
        [USER_WSOL, FEE_WSOL, SELL.fee],
        [USER_WSOL, VAULT_X, SELL.in - SELL.fee - 1n],
        [VAULT_Y, USER_USDC, SELL.out],
      ],
    );
    const facts = decodeTransaction(tx, ctx);
    expect(facts.events).toEqual([]);
    expect(facts.problems).toEqual([expect.objectContaining({ code: 'inconsistent_amounts', eventId: `${SIG}:0`, poolConfig: POOL })]);
  });

  it('without inner transfers, takes each fee as amount_in − Δvault_source, even when two pools share the fee recipient ATA', () => {
    // Two sells of WSOL on two v1 WSOL/USDC pools: both pay their fee into the global recipient's WSOL ATA.
    const other = { in: 1_000_000_000n, fee: 10_000n, out: 150_000_000n };
    const pre = { ...PRE, [VAULT0_X]: 50_000_000_000n, [VAULT0_Y]: 9_000_000_000n };
    const tx = transaction(
      [
        swapIx(1, SELL.in, USER_WSOL, VAULT_X, VAULT_Y, USER_USDC, FEE_WSOL, null),
        swapIx(1, other.in, USER_WSOL, VAULT0_X, VAULT0_Y, USER_USDC, FEE_WSOL, null, 'zero'),
      ],
      [], // an RPC that dropped the inner instructions: balance deltas are all there is
      pre,
      [
        [USER_WSOL, FEE_WSOL, SELL.fee],
        [USER_WSOL, VAULT_X, SELL.in - SELL.fee],
        [VAULT_Y, USER_USDC, SELL.out],
        [USER_WSOL, FEE_WSOL, other.fee],
        [USER_WSOL, VAULT0_X, other.in - other.fee],
        [VAULT0_Y, USER_USDC, other.out],
      ],
    );
    const facts = decodeTransaction(tx, ctx);
    expect(facts.problems).toEqual([]);
    expect(facts.events.map((e) => (e.kind === 'swap' ? [e.poolConfig, e.amountIn, e.protocolFeeRaw, e.amountInToVault, e.amountOut] : e.kind))).toEqual([
      [POOL, SELL.in.toString(), SELL.fee.toString(), (SELL.in - SELL.fee).toString(), SELL.out.toString()],
      [POOL_0, other.in.toString(), other.fee.toString(), (other.in - other.fee).toString(), other.out.toString()],
    ]);
  });

  it('does not publish a balance-delta fallback whose vault took more than the swap amount_in', () => {
    const tx = transaction([swapIx(1, 1_000n, USER_WSOL, VAULT_X, VAULT_Y, USER_USDC, FEE_WSOL, null)], [], PRE, [
      [USER_WSOL, VAULT_X, 2_000n],
      [VAULT_Y, USER_USDC, 150n],
    ]);
    expect(decodeTransaction(tx, ctx).problems).toEqual([expect.objectContaining({ code: 'unresolved_amounts', eventId: `${SIG}:0` })]);
  });

  it('treats a v2 tag above 24 in a successful transaction as an instruction v2 added (no fact, no problem); on v1 it is a problem', () => {
    const data = encodeBase58(Uint8Array.of(30, 1, 2, 3));
    const deposit = (program: number) =>
      transaction([{ programIdIndex: program, accounts: [TRADER, VAULT_X, VAULT_Y, USER_WSOL, USER_USDC, 11], data, stackHeight: null }], [], PRE, [
        [USER_WSOL, VAULT_X, 1_000n],
      ]);
    const v2 = decodeTransaction(deposit(HADRON_V2), ctx);
    expect(v2.problems).toEqual([]);
    expect(v2.events).toEqual([]);
    // Its vault change still counts (DESIGN §2: whatever the tag).
    expect(v2.vaultBalances).toEqual([expect.objectContaining({ poolConfig: POOL, vaultXAfter: (PRE[VAULT_X] + 1_000n).toString() })]);
    expect(decodeTransaction(deposit(HADRON), ctx).problems).toEqual([expect.objectContaining({ code: 'unknown_tag', eventId: `${SIG}:0` })]);
  });

  it('reports vault balances only for pools whose vault balance changed', () => {
    // A Hadron instruction that lists both pools' vaults (and so their token balances) but moves only pool 0's.
    const ix = { programIdIndex: HADRON, accounts: [TRADER, VAULT_X, VAULT_Y, VAULT0_X, VAULT0_Y], data: encodeBase58(Uint8Array.of(4, 0)), stackHeight: null };
    const pre = { ...PRE, [VAULT0_X]: 50_000_000_000n, [VAULT0_Y]: 9_000_000_000n };
    const facts = decodeTransaction(transaction([ix], [], pre, [[USER_USDC, VAULT0_Y, 3n]]), ctx);
    expect(facts.vaultBalances).toEqual([expect.objectContaining({ poolConfig: POOL_0, vaultXAfter: '50000000000', vaultYAfter: '9000000003' })]);
    const unchanged = decodeTransaction(transaction([ix], [], pre, []), ctx);
    expect(unchanged.vaultBalances).toEqual([]);
  });

  it('recognises a vault by its address when the balance entry has no owner', () => {
    const tx = transaction(
      [{ programIdIndex: HADRON, accounts: [TRADER, VAULT_X, VAULT_Y], data: encodeBase58(Uint8Array.of(1, ...new Uint8Array(24))), stackHeight: null }],
      [],
      PRE,
      [[USER_WSOL, VAULT_X, 7n]],
    );
    for (const b of [...tx.meta!.preTokenBalances!, ...tx.meta!.postTokenBalances!]) delete b.owner;
    expect(decodeTransaction(tx, ctx).vaultBalances).toEqual([
      expect.objectContaining({ poolConfig: POOL, vaultXAfter: (PRE[VAULT_X] + 7n).toString(), vaultYAfter: PRE[VAULT_Y].toString() }),
    ]);
  });

  it('counts a vault the transaction creates as 0 before: created empty is no change, created and funded is', () => {
    const ix = { programIdIndex: HADRON, accounts: [TRADER, VAULT0_X, VAULT0_Y], data: encodeBase58(Uint8Array.of(0)), stackHeight: null };
    const created = transaction([ix], [], PRE, []);
    created.meta!.postTokenBalances!.push(
      ...[VAULT0_X, VAULT0_Y].map((i) => ({ accountIndex: i, mint: KEYS[i === VAULT0_X ? WSOL : USDC], uiTokenAmount: { amount: '0', decimals: 6 } })),
    );
    expect(decodeTransaction(created, ctx).vaultBalances).toEqual([]);
    created.meta!.postTokenBalances!.find((b) => b.accountIndex === VAULT0_Y)!.uiTokenAmount.amount = '5';
    expect(decodeTransaction(created, ctx).vaultBalances).toEqual([expect.objectContaining({ poolConfig: POOL_0, vaultXAfter: '0', vaultYAfter: '5' })]);
  });
});
