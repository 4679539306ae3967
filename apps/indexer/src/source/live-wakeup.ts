import { Connection, PublicKey } from '@solana/web3.js';

/**
 * Optional push hint for the live tail: when a websocket URL is configured, a `logsSubscribe`
 * (mentions = a Hadron program) wakes the poller as soon as a transaction lands instead of at its
 * next tick. Only a hint: the poll (getSignaturesForAddress) stays the source of what to index,
 * so a dropped socket costs latency, never data. web3.js's websocket client reconnects by itself.
 */
export interface LiveWakeup {
  close(): Promise<void>;
}

export function subscribeProgramLogs(
  httpUrl: string,
  wsUrl: string,
  programs: readonly string[],
  onActivity: () => void,
  onError: (e: Error) => void,
): LiveWakeup {
  const connection = new Connection(httpUrl, { wsEndpoint: wsUrl, commitment: 'confirmed', disableRetryOnRateLimit: true });
  const ids: number[] = [];
  for (const program of programs) {
    try {
      ids.push(connection.onLogs(new PublicKey(program), () => onActivity(), 'confirmed'));
    } catch (e) {
      onError(e as Error);
    }
  }
  return {
    close: async () => {
      for (const id of ids) await connection.removeOnLogsListener(id).catch((e: Error) => onError(e));
    },
  };
}
