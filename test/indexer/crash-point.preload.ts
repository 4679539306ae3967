/**
 * Preloaded (`node -r`) into an indexer child process by the kill -9 test: the process SIGKILLs
 * itself at a chosen point of its Nth chunk, so every crash lands where it is meant to, however
 * fast the machine. INDEXER_TEST_CRASH = `before-append:N` (the cycle is saved, its events are
 * not appended) or `before-commit:N` (the events are appended, the cursor has not moved).
 * Test-only: nothing in the indexer knows about it.
 */
import { EventPublisher } from '../../apps/indexer/src/publish/event-publisher';
import { IndexerStore } from '../../apps/indexer/src/store/indexer-store';

const [point, nth] = (process.env.INDEXER_TEST_CRASH ?? '').split(':');
const at = Number(nth);

function crashOn<T extends object>(proto: T, method: keyof T): void {
  const original = proto[method] as unknown as (...args: unknown[]) => Promise<unknown>;
  let calls = 0;
  (proto as Record<keyof T, unknown>)[method] = function (this: unknown, ...args: unknown[]) {
    if (++calls === at) {
      process.stdout.write(`${JSON.stringify({ msg: 'test crash point', point, call: calls })}\n`);
      process.kill(process.pid, 'SIGKILL');
    }
    return original.apply(this, args);
  };
}

if (point === 'before-append' && at > 0) crashOn(EventPublisher.prototype, 'append');
if (point === 'before-commit' && at > 0) crashOn(IndexerStore.prototype, 'commit');
