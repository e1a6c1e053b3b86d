// The long fuzz run: `node scripts/fuzz.ts --frames 100000 [--seed N]` spreads the frames over every transport and era
// (stdio and Streamable HTTP; 2025 handshake at 2025-11-25 and at 2025-03-26, which serves batches; 2026-07-28) with
// the runner of test/fuzz.ts, prints the summaries as JSON and exits 1 when any invariant broke.

import { parseArgs } from 'node:util';
import { type FuzzSummary, runFuzz } from '../test/fuzz.ts';
import type { Era, Transport } from '../test/fuzz-gen.ts';

const TARGETS: { name: string; transport: Transport; era: Era; legacyVersion?: string }[] = [
  { name: 'stdio-legacy', transport: 'stdio', era: 'legacy', legacyVersion: '2025-11-25' },
  { name: 'stdio-batch', transport: 'stdio', era: 'legacy', legacyVersion: '2025-03-26' },
  { name: 'stdio-modern', transport: 'stdio', era: 'modern' },
  { name: 'http-legacy', transport: 'http', era: 'legacy', legacyVersion: '2025-11-25' },
  { name: 'http-batch', transport: 'http', era: 'legacy', legacyVersion: '2025-03-26' },
  { name: 'http-modern', transport: 'http', era: 'modern' },
];

const { values } = parseArgs({
  options: {
    frames: { type: 'string', default: '100000' },
    seed: { type: 'string' },
    targets: { type: 'string', default: TARGETS.map((target) => target.name).join(',') },
    'heap-bound-mb': { type: 'string', default: '32' },
  },
});

const frames = Number(values.frames);
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
const names = values.targets.split(',');
const targets = TARGETS.filter((target) => names.includes(target.name));
if (
  !Number.isSafeInteger(frames) ||
  frames < targets.length ||
  !Number.isSafeInteger(seed) ||
  targets.length !== names.length
) {
  process.stderr.write(
    `usage: node scripts/fuzz.ts [--frames N] [--seed N] [--targets ${TARGETS.map((t) => t.name).join(',')}]\n`,
  );
  process.exit(2);
}

const runs: FuzzSummary[] = [];
for (const [index, target] of targets.entries()) {
  const share = Math.floor(frames / targets.length) + (index < frames % targets.length ? 1 : 0);
  const summary = await runFuzz({
    seed: seed + index,
    frames: share,
    transport: target.transport,
    era: target.era,
    legacyVersion: target.legacyVersion,
    heapBoundBytes: Number(values['heap-bound-mb']) * 1024 * 1024,
  });
  process.stderr.write(
    `${target.name}: ${summary.frames} frames in ${summary.durationMs} ms, ${summary.violationCount} violation(s)\n`,
  );
  runs.push(summary);
}

const sum = (key: keyof FuzzSummary): number => runs.reduce((total, run) => total + (run[key] as number), 0);
const totals = {
  frames: sum('frames'),
  bytes: sum('bytes'),
  requests: sum('requests'),
  answered: sum('answered'),
  nullAnswers: sum('nullAnswers'),
  cancelled: sum('cancelled'),
  duplicatesRefused: sum('duplicatesRefused'),
  drainCut: sum('drainCut'),
  reused: sum('reused'),
  batchAnswers: sum('batchAnswers'),
  barriers: sum('barriers'),
  violationCount: sum('violationCount'),
  maxHeapDeltaBytes: Math.max(...runs.map((run) => run.heapDeltaBytes)),
  maxHeapPeakBytes: Math.max(...runs.map((run) => run.heapPeakBytes)),
  durationMs: sum('durationMs'),
};
process.stdout.write(`${JSON.stringify({ seed, ok: totals.violationCount === 0, totals, runs }, null, 2)}\n`);
process.exitCode = totals.violationCount === 0 ? 0 : 1;
