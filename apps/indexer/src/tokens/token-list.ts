import tokenListJson from './known-tokens.json';

/** A curated entry: symbol, name and icon of a well-known mint. */
export interface ListedToken {
  mint: string;
  symbol: string;
  name: string;
  icon: string;
}

export class TokenList {
  private readonly byMint: ReadonlyMap<string, ListedToken>;

  constructor(tokens: readonly ListedToken[]) {
    this.byMint = new Map(tokens.map((t) => [t.mint, t]));
  }

  get(mint: string): ListedToken | undefined {
    return this.byMint.get(mint);
  }

  get size(): number {
    return this.byMint.size;
  }
}

/** The list shipped with the indexer (known-tokens.json). */
export const shippedTokenList = new TokenList((tokenListJson as { tokens: ListedToken[] }).tokens);
