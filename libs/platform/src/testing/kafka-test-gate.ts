/**
 * Kafka tests run when KAFKA_BROKERS is set. Without a broker they are skipped, visibly — unless
 * REQUIRE_KAFKA=1 (CI), where a missing broker is a failure, not a skip.
 */
export function kafkaBrokersForTests(): string[] | undefined {
  const brokers = process.env.KAFKA_BROKERS?.split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  if (brokers?.length) return brokers;
  if (kafkaRequired()) {
    throw new Error('REQUIRE_KAFKA is set but KAFKA_BROKERS is not: start a broker (npm run kafka:start) and export KAFKA_BROKERS');
  }
  return undefined;
}

/** REQUIRE_KAFKA=1 (CI): every Kafka test must run; a missing broker fails instead of skipping. */
export function kafkaRequired(): boolean {
  return /^(1|true|yes)$/i.test(process.env.REQUIRE_KAFKA ?? '');
}

export function describeWithKafka(name: string, fn: (brokers: string[]) => void): void {
  const brokers = kafkaBrokersForTests();
  if (brokers) describe(name, () => fn(brokers));
  else describe.skip(`${name} [skipped: no Kafka broker — set KAFKA_BROKERS]`, () => fn([]));
}
