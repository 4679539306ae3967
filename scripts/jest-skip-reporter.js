// Lists every skipped test by name, and the reason its describe gives (e.g. "[skipped: no Kafka
// broker — set KAFKA_BROKERS]"), just above jest's summary: a skip is never silent.
// Listed before 'default' in jest.config.js so the summary stays the last thing printed.
class SkipReporter {
  onRunComplete(_contexts, results) {
    const skipped = [];
    for (const file of results.testResults) {
      for (const t of file.testResults) {
        if (t.status === 'pending' || t.status === 'skipped' || t.status === 'todo')
          skipped.push(`${file.testFilePath.replace(`${process.cwd()}/`, '')}: ${[...t.ancestorTitles, t.title].join(' › ')}`);
      }
    }
    if (skipped.length === 0) return;
    process.stderr.write(`\nSkipped tests (${skipped.length}):\n${skipped.map((s) => `  ○ ${s}`).join('\n')}\n`);
  }
}
module.exports = SkipReporter;
