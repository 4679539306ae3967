import type { TransactionFacts } from '../decode';
import type { InitializeArgs } from './admin-scan';

/**
 * A pool discovery found but whose mint does not read yet is HELD: it cannot be announced (its
 * decimals are never guessed), yet the cursor must not wait for it — every other pool keeps
 * flowing. Its part of each transaction is set aside (indexer.held_tx) and replayed, in chain
 * order, once the mint reads and the pool is announced.
 */

/**
 * The part of a transaction's facts about the pools `keep` accepts (`null`: an oracle update or a
 * problem that names no known pool), and the pools it names that `keep` refuses.
 */
export function factsFor(
  facts: TransactionFacts,
  initializes: readonly InitializeArgs[],
  keep: (config: string | null) => boolean,
): { facts: TransactionFacts; initializes: InitializeArgs[]; refused: Set<string> } {
  const refused = new Set<string>();
  const kept = (config: string | null) => {
    if (keep(config)) return true;
    if (config !== null) refused.add(config);
    return false;
  };
  return {
    facts: {
      ...facts,
      events: facts.events.filter((e) => kept(e.kind === 'swap' ? e.poolConfig : e.poolConfigViaRegistry)),
      vaultBalances: facts.vaultBalances.filter((v) => kept(v.poolConfig)),
      problems: facts.problems.filter((p) => kept(p.poolConfig)),
    },
    initializes: initializes.filter((i) => kept(i.config)),
    refused,
  };
}
