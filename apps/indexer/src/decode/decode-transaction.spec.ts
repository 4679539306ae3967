import { encodeBase58, encodeInstruction, HADRON_PROGRAM_V1, SPL_TOKEN_PROGRAM, SYSVAR_CLOCK } from '@hadron/domain';
import { decodeTransaction } from './decode-transaction';
import type { RpcCompiledInstruction, RpcTokenBalance, RpcTransactionResult } from './rpc-transaction';
import { fixtureContext, swapTransactionVectors, vectorCase, withoutProse } from './testing/swap-transaction-vectors';

const ctx = fixtureContext();

describe('decodeTransaction — golden transactions', () => {
  it.each(swapTransactionVectors.cases.map((c) => [c.name, c] as const))('%s gives exactly the expected events', (_name, c) => {
    const facts = decodeTransaction(c.result, ctx);
    expect(facts.events).toEqual(c.expected.events.map(withoutProse));
    expect(facts.problems).toEqual([]);
  });

  it('yields nothing at all for a failed transaction, though its swap decodes', () => {
    const facts = decodeTransaction(vectorCase('c_v1_failed_swap_slippage').result, ctx);
    expect(facts).toMatchObject({ events: [], vault_balances: [], problems: [] });
  });

  it('reports the end-of-transaction vault balances of the pool a transaction touched', () => {
    expect(decodeTransaction(vectorCase('b_v2_buy_x_v0_lookup_table').result, ctx).vault_balances).toEqual([
      {
        kind: 'vault_balances',
        pool_config: 'CXV68yz327Pv1Wo7wNubYSGkoHSsh45TjNnSm3NfQ1v8',
        signature: '4c9ow6r63X5Lxu3fUcgxdmAqy6xQdi6kzxkGmwwgEajmbs8eJxsg1KMomeM53WfrzAH6ZfQJj8QkP2Ua3pKFU5sA',
        slot: 312000400,
        block_time: 1736000100,
        vault_x: '7yzBoiS9ypgV8tkC61fFgtE1ocGNYgDnc1pND3m8BHkR',
        vault_y: '6VKGYaHn2WzpWhehLHdLFuDDjDxjwthVY2xT9sNvkhH7',
        vault_x_after: '498346043031',
        vault_y_after: '80249997500',
      },
    ]);
    expect(decodeTransaction(vectorCase('d_v2_update_midprice_and_base_spread').result, ctx).vault_balances).toEqual([]);
  });

  it('falls back to balance deltas when a lone swap has no usable inner transfers', () => {
    const direct = vectorCase('a_v1_sell_x_legacy_with_spread_config');
    direct.result.meta!.innerInstructions = [];
    expect(decodeTransaction(direct.result, ctx).events).toEqual(direct.expected.events.map(withoutProse));

    // A CPI swap without stackHeight (older transactions): its transfers cannot be delimited.
    const viaCpi = vectorCase('f_v2_sell_x_via_cpi');
    for (const ix of viaCpi.result.meta!.innerInstructions![0].instructions) ix.stackHeight = null;
    expect(decodeTransaction(viaCpi.result, ctx).events).toEqual(viaCpi.expected.events.map(withoutProse));
  });

  it('asks for discovery when a swap names a pool the context does not know', () => {
    const facts = decodeTransaction(vectorCase('a_v1_sell_x_legacy_with_spread_config').result, { pools: new Map(), poolByOracle: new Map() });
    expect(facts.events).toEqual([]);
    expect(facts.problems).toEqual([expect.objectContaining({ code: 'unknown_pool', pool_config: 'BjFSvjFnSKy2Le9Zio52VgXrkmtgK5X7VsCcXJUH769k' })]);
  });

  it('still reports an oracle update whose oracle is unknown, with no pool', () => {
    const facts = decodeTransaction(vectorCase('e_v1_update_midprice_only').result, { pools: new Map(), poolByOracle: new Map() });
    expect(facts.events).toEqual([expect.objectContaining({ kind: 'oracle_update', pool_config_via_registry: null })]);
  });

  it('records a problem when the RPC has no metadata', () => {
    const c = vectorCase('a_v1_sell_x_legacy_with_spread_config');
    const facts = decodeTransaction({ ...c.result, meta: null }, ctx);
    expect(facts.events).toEqual([]);
    expect(facts.problems).toEqual([expect.objectContaining({ code: 'missing_meta', event_id: facts.signature })]);
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
];
const [TRADER, USER_WSOL, USER_USDC, VAULT_X, VAULT_Y, FEE_WSOL, FEE_USDC] = [0, 1, 2, 3, 4, 5, 6];
const [HADRON, TOKEN, ROUTER, WSOL, USDC] = [9, 10, 16, 17, 18];
const SIG = '4mjaQpop9Ju3nfDcqhENrzu7Ja8agYiHuvy6QvhjjADFvaLoV6NcL5d1TK3ykpEFgcENUz82DN6jZDmt4ftM6ubX';

function swapIx(isX: number, amountIn: bigint, src: number, vaultSrc: number, vaultDst: number, dst: number, feeAta: number, stackHeight: number | null): RpcCompiledInstruction {
  const data = encodeInstruction({ tag: 3, instruction: 'Swap', is_x: isX, amount_in: amountIn.toString(), min_out: '1', expiration: '9223372036854775807' });
  return { programIdIndex: HADRON, accounts: [TOKEN, TOKEN, 11, 12, 13, 7, 11, TRADER, src, vaultSrc, vaultDst, dst, 14, feeAta, 15, 8], data: encodeBase58(data), stackHeight };
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
      mint: KEYS[[USER_WSOL, VAULT_X, FEE_WSOL].includes(Number(i)) ? WSOL : USDC],
      owner: Number(i) === VAULT_X || Number(i) === VAULT_Y ? POOL : KEYS[TRADER],
      uiTokenAmount: { amount: amount.toString(), decimals: 6 },
    }));
  return {
    slot: 312_000_900,
    blockTime: 1_736_000_900,
    meta: { err: null, innerInstructions: inner, loadedAddresses: { writable: [], readonly: [] }, preTokenBalances: balances(pre), postTokenBalances: balances(post) },
    transaction: { signatures: [SIG], message: { accountKeys: KEYS, instructions } },
  };
}

const PRE = { [USER_WSOL]: 10_000_000_000n, [USER_USDC]: 500_000_000n, [VAULT_X]: 800_000_000_000n, [VAULT_Y]: 125_000_000_000n, [FEE_WSOL]: 0n, [FEE_USDC]: 7n };

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
        instructions: [transfer(USER_WSOL, FEE_WSOL, SELL.fee, 2), transfer(USER_WSOL, VAULT_X, SELL.in - SELL.fee, 2), transfer(VAULT_Y, USER_USDC, SELL.out, 2)],
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
        event_id: `${SIG}:0`,
        side: 'sell',
        amount_in: SELL.in.toString(),
        amount_in_to_vault: (SELL.in - SELL.fee).toString(),
        amount_out: SELL.out.toString(),
        protocol_fee_raw: SELL.fee.toString(),
        protocol_fee_mint: KEYS[WSOL],
      }),
      expect.objectContaining({
        event_id: `${SIG}:1:0`,
        instruction_location: { top_level_index: 1, inner_index: 0 },
        side: 'buy',
        input_mint: KEYS[USDC],
        amount_in: BUY.in.toString(),
        amount_in_to_vault: (BUY.in - BUY.fee).toString(),
        amount_out: BUY.out.toString(),
        protocol_fee_raw: BUY.fee.toString(),
        protocol_fee_mint: KEYS[USDC],
        fee_recipient_ata: KEYS[FEE_USDC],
      }),
    ]);
    const vaultsAfter = { vault_x_after: (PRE[VAULT_X] + SELL.in - SELL.fee - BUY.out).toString(), vault_y_after: (PRE[VAULT_Y] - SELL.out + BUY.in - BUY.fee).toString() };
    for (const event of facts.events) expect(event).toMatchObject(vaultsAfter);
    expect(facts.vault_balances).toEqual([expect.objectContaining({ pool_config: POOL, vault_x: KEYS[VAULT_X], vault_y: KEYS[VAULT_Y], ...vaultsAfter })]);
  });

  it('does not guess from balance deltas when a pool is touched twice and one swap has no transfers', () => {
    const tx = twoSwapsOnOnePool();
    for (const ix of tx.meta!.innerInstructions![1].instructions) ix.stackHeight = null;
    const facts = decodeTransaction(tx, ctx);
    expect(facts.events.map((e) => e.event_id)).toEqual([`${SIG}:0`]);
    expect(facts.problems).toEqual([expect.objectContaining({ code: 'unresolved_amounts', event_id: `${SIG}:1:0`, pool_config: POOL })]);
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
      expect.objectContaining({ amount_in: '1000', amount_in_to_vault: '1000', amount_out: '150', protocol_fee_raw: '0', protocol_fee_mint: KEYS[WSOL] }),
    ]);
  });

  it('turns bad Hadron instruction data into typed problems and keeps decoding the rest', () => {
    const oracleUpdate = encodeBase58(encodeInstruction({ tag: 5, instruction: 'UpdateMidprice', sequence: '9', midprice_q32: '645318836' }));
    const truncatedSwap = encodeBase58(encodeInstruction({ tag: 3, instruction: 'Swap', is_x: 1, amount_in: '5', min_out: '1', expiration: '0' }).subarray(0, 25));
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
    expect(facts.problems.map((p) => [p.event_id, p.code])).toEqual([
      [`${SIG}:0`, 'truncated'],
      [`${SIG}:1`, 'invalid_base58'],
      [`${SIG}:2`, 'unknown_tag'],
      [`${SIG}:3`, 'empty_data'],
      [`${SIG}:4`, 'missing_accounts'],
      [`${SIG}:5`, 'missing_accounts'],
    ]);
    expect(facts.events).toEqual([expect.objectContaining({ event_id: `${SIG}:6`, kind: 'oracle_update', sequence: '9', pool_config_via_registry: POOL })]);
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
    expect(facts.vault_balances).toEqual([
      expect.objectContaining({ pool_config: POOL, vault_x_after: (PRE[VAULT_X] + 1_000n).toString(), vault_y_after: (PRE[VAULT_Y] + 2_000n).toString() }),
    ]);
  });

  it('ignores transactions that never invoke Hadron', () => {
    const tx = transaction([transfer(USER_WSOL, VAULT_X, 1n, null)], [], PRE, [[USER_WSOL, VAULT_X, 1n]]);
    tx.transaction.message.accountKeys = KEYS.map((k) => (k === HADRON_PROGRAM_V1 ? '11111111111111111111111111111111' : k));
    expect(decodeTransaction(tx, ctx)).toMatchObject({ events: [], vault_balances: [], problems: [] });
  });
});
