/**
 * Typed access to the transaction golden vectors (test/fixtures/hadron/swap-transactions.json) and
 * the decode context their pools imply (pdas.json). Test-only. The vectors name fields in
 * snake_case (an outside format); `factFromVector` converts an expected event to the decoder's
 * camelCase fact.
 */
import { pdaVectors } from '@hadron/domain/hadron/testing/golden-vectors';
import swapTransactionsJson from '../../../../../test/fixtures/hadron/swap-transactions.json';
import { decodeContextOf, type DecodeContext, type KnownPool } from '../decode-context';
import type { RpcTransactionResult } from '../rpc-transaction';
import type { OracleUpdateFact, SwapFact } from '../transaction-facts';
import { camelCased } from './camel-cased';

export interface SwapTransactionCase {
  name: string;
  description: string;
  result: RpcTransactionResult;
  expected: {
    /** Swap and oracle-update events with prose fields (`side_note`, `derivation`, `derived`). */
    events: Record<string, unknown>[];
  };
}

export const swapTransactionVectors = swapTransactionsJson as unknown as { cases: SwapTransactionCase[] };

/** A deep copy: tests edit results freely. */
export function vectorCase(name: string): SwapTransactionCase {
  const found = swapTransactionVectors.cases.find((c) => c.name === name);
  if (!found) throw new Error(`no swap-transactions vector named ${name}`);
  return structuredClone(found);
}

/**
 * The fixture's expected event without the prose and derived fields the decoder does not produce.
 * `derived` is asserted on its own (decode-transaction.spec: computed from the decoded Q32 values).
 */
export function withoutProse(event: Record<string, unknown>): Record<string, unknown> {
  const { side_note: _n, derivation: _d, derived: _v, ...fields } = event;
  return fields;
}

/** The fixture's expected event as the decoder's fact: without the prose fields, keys in camelCase, the same values. */
export function factFromVector(event: Record<string, unknown>): SwapFact | OracleUpdateFact {
  return camelCased(withoutProse(event)) as unknown as SwapFact | OracleUpdateFact;
}

/** Every pool in pdas.json, as the indexer would know it. */
export function fixtureContext(): DecodeContext {
  const pools = new Map<string, KnownPool>();
  for (const p of pdaVectors.pools) {
    pools.set(p.config.address, {
      programId: p.program,
      version: p.program_version,
      mintX: p.mint_x,
      mintY: p.mint_y,
      vaultX: p.vault_x.address,
      vaultY: p.vault_y.address,
      oracle: p.midprice_oracle.address,
    });
  }
  return decodeContextOf(pools);
}
