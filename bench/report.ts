// Turns one benchmark run into Markdown: absolute figures, ratios against the raw floor on each build's own Node
// and against SDK v2 from the same run, and the targets (bench/README.md, Targets) checked
// against mcp-core's figures. Pure: no I/O, no measuring.

import type { Era } from './clients.ts';
import type { DeploymentRow } from './deployment.ts';
import type { Transport } from './measure.ts';
import type { ValidationCost } from './validation.ts';

export interface Results {
  machine: { node: string; devNode: string; cores: number; smoke: boolean };
  /**
   * `transports` and `floor` are absent from runs before the peers and the dev-Node floor were measured; `tsFloor`
   * (the one-file `.ts` floor on the same Node) and `coldStartOnly` from runs before cold start covered every Node;
   * `roundTripsOnly` from runs before the protocol floor.
   */
  contenders: {
    key: string;
    label: string;
    eras: Era[];
    transports?: Transport[];
    floor?: string;
    tsFloor?: string;
    coldStartOnly?: boolean;
    roundTripsOnly?: boolean;
  }[];
  throughput: {
    transport: Transport;
    era: Era;
    concurrency: number;
    contender: string;
    callsPerSecond: number;
    p50Us: number;
    p99Us: number;
    /** Calls/s of each repetition (the median is callsPerSecond); absent from runs before issue 26. */
    repetitions?: number[];
    /**
     * Calls/s of each measured slice, repetition after repetition. Slice i of two contenders of one scenario ran in
     * the same turn of the rotation, so their ratio is paired against the load of that moment. Absent before.
     */
    windows?: number[];
    /** Calls each repetition's server answered in its warm-up by count, before the sliced warm-up. Absent before. */
    warmUpCalls?: number[];
  }[];
  coldStart: { transport: Transport; contender: string; ms: number }[];
  /** Spawn to exit of a stdio session making `calls` calls; ms is NaN (null in JSON) when the server did not exit at end of input. */
  shortSessions?: {
    calls: number;
    contender: string;
    ms: number | null;
    /**
     * Milliseconds of each repetition (NaN, null in JSON, for a server that did not exit): repetition i of two
     * contenders ran in the same round of the rotation, so their ratio is paired. Absent from runs before issue 29's
     * paired sessions.
     */
    repetitions?: (number | null)[];
  }[];
  memory: {
    kind: 'sessions' | 'listens';
    contender: string;
    rssBaseBytes: number;
    rssAtSampleBytes: number;
    bytesPerItem: number;
    items: number;
  }[];
  weight: {
    contender: string;
    importMs: number;
    tarballBytes: number;
    tarballFiles: number;
    installedBytes: number;
    installedFiles: number;
    packages: number;
  }[];
  /** Absent from the results of runs before it was measured (--render of an older results.json). */
  validation?: ValidationCost[];
  /** Absent from the results of runs before it was measured. */
  deployment?: DeploymentRow[];
  /**
   * The middleware seam's cost (issue 26): the round trips of the compared contenders and of the builds they are set
   * against, from one run (a round-trips run spliced into a full run's results, bench/README.md). Absent before.
   */
  middleware?: { date: string; compared: Comparison[]; throughput: Results['throughput'] };
  seconds: number;
}

/** A contender measured in the round trips only, set against another of the same run (issue 26). */
export interface Comparison {
  key: string;
  label: string;
  /** The key of the contender it is set against. */
  against: string;
  /** `middleware`: the same build with one pass-through middleware; `baseline`: another built dist, without. */
  kind: 'middleware' | 'baseline';
}

/** The targets of bench/README.md, Targets. Ratios to the floor are against the floor on the build's own Node. */
export const TARGETS = {
  /** Round trips against the floor (issue 29): stdio with pipelined callers, and every other row. */
  floorRatio: { pipelinedStdio: 0.8, other: 0.95 },
  sdkV2Ratio: 3.5,
  sessionBytes: 2048,
  listenBytes: 8192,
  tarballBytes: 100 * 1024,
  validationRatio: 10,
  /** One pass-through middleware: the extra time per warmed round trip, against the same build without (issue 26). */
  middlewareCost: 0.03,
  /** The dist on the machine Node; the `.ts` sources with a warm compile cache on Node 24 and 26 (issue 24). */
  coldStartRatio: { 'core-dist': 1.1, 'core-ts-cache-24': 1.3, 'core-ts-cache-26': 1.3 } as Record<string, number>,
  /** Short sessions of every length (issue 29: 1 000 calls too). */
  shortSessionRatio: 1.15,
};

/** The round-trip budget against the floor of a scenario: pipelined stdio has its own (issue 29). */
function floorBudget(transport: Transport, concurrency: number): number {
  return transport === 'stdio' && concurrency > 1 ? TARGETS.floorRatio.pipelinedStdio : TARGETS.floorRatio.other;
}

/** A startup time in ms, or why there is none (NaN, null in JSON: the server did not exit at end of input). */
function millis(ms: number | null | undefined): string {
  return ms === null || ms === undefined || Number.isNaN(ms) ? 'did not exit' : ms.toFixed(1);
}

/** Whether `ms` is a measured time (not a server that failed to exit). */
function measured(ms: number | null | undefined): ms is number {
  return ms !== null && ms !== undefined && !Number.isNaN(ms);
}

const ERA_NAME: Record<Era, string> = { '2025': '2025-11-25', '2026': '2026-07-28' };

function ratio(value: number | null | undefined, base: number | null | undefined): string {
  return !measured(value) || !measured(base) || base === 0 ? '–' : `${(value / base).toFixed(2)}×`;
}

type ThroughputRow = Results['throughput'][number];

/**
 * A ratio of calls/s or of session times: `paired` when taken pair by pair (slice by slice, round by round), then with
 * the 95 % interval of its median if n allows.
 */
type Ratio = { median: number; paired: boolean; interval?: { low: number; high: number } };

/**
 * The rank k whose k-th and (n + 1 − k)-th smallest of n values hold their population's median at least 95 % of the
 * time: the largest k with P(Binomial(n, ½) < k) ≤ 2.5 %. Undefined below 6 values, where even the extremes hold it
 * less often.
 */
function medianRank(n: number): number | undefined {
  let rank: number | undefined;
  let below = 0; // P(B < k)
  let exactly = 0.5 ** n; // P(B = k − 1)
  for (let k = 1; k <= n; k++) {
    below += exactly;
    if (below > 0.025) break;
    rank = k;
    exactly = (exactly * (n - k + 1)) / k;
  }
  return rank;
}

/**
 * `row`'s calls/s over `base`'s: paired slice by slice where both kept their slices (slices of one turn ran under the
 * same load), the median of the per-slice ratios with its distribution-free 95 % interval; else, for a run before
 * slices were kept, the ratio of their medians.
 */
function ratioOf(row: ThroughputRow, base: ThroughputRow): Ratio {
  return pairedRatio(row.windows, base.windows) ?? { median: row.callsPerSecond / base.callsPerSecond, paired: false };
}

/**
 * The median of `mine[i] / theirs[i]` over the pairs with its distribution-free 95 % interval (medianRank), pairs
 * that give no finite ratio left out (a slice without calls, a session that did not exit); undefined when the two were
 * not kept pair by pair or no pair remains.
 */
function pairedRatio(mine: (number | null)[] | undefined, theirs: (number | null)[] | undefined): Ratio | undefined {
  if (mine === undefined || theirs === undefined || mine.length !== theirs.length) return undefined;
  const ratios = mine
    .map((value, at) => (measured(value) && measured(theirs[at]) ? value / theirs[at]! : Number.NaN))
    .filter(Number.isFinite)
    .sort((a, b) => a - b);
  const n = ratios.length;
  if (n === 0) return undefined;
  const middle = Math.floor(n / 2);
  const median = n % 2 === 1 ? ratios[middle]! : (ratios[middle - 1]! + ratios[middle]!) / 2;
  const rank = medianRank(n);
  if (rank === undefined) return { median, paired: true };
  return { median, paired: true, interval: { low: ratios[rank - 1]!, high: ratios[n - rank]! } };
}

/** A paired ratio's 95 % interval, as written beside its median: `0.86–0.92`. */
function range({ low, high }: { low: number; high: number }): string {
  return `${low.toFixed(2)}–${high.toFixed(2)}`;
}

/** The protocol floor's ratio beside a build's: `protocol floor 0.95×`, with its interval where it has one. */
function protocolFloor({ median, interval }: Ratio): string {
  return `protocol floor ${median.toFixed(2)}×${interval === undefined ? '' : `, ${range(interval)}`}`;
}

/**
 * Whether `ratio` keeps to `budget` (at least it when `better` is 'higher', at most it when 'lower'): met when its
 * whole interval does, missed when none of it does, else not resolved by the run (`spans` names the budget); a ratio
 * of medians (a run before pairs were kept) is judged on its value.
 */
function verdict(ratio: Ratio, budget: number, spans: string, better: 'higher' | 'lower' = 'higher'): string {
  const keeps = (value: number) => (better === 'higher' ? value >= budget : value <= budget);
  if (!ratio.paired) return mark(keeps(ratio.median));
  if (ratio.interval === undefined)
    return `not resolved (too few ${better === 'higher' ? 'slices' : 'repetitions'} for an interval)`;
  if (keeps(ratio.interval.low) && keeps(ratio.interval.high)) return 'met';
  if (!keeps(ratio.interval.low) && !keeps(ratio.interval.high)) return '**missed**';
  return `not resolved (the interval spans ${spans})`;
}

function kib(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`;
}

function mark(met: boolean): string {
  return met ? 'met' : '**missed**';
}

export function renderMarkdown(results: Results, cores: string[]): string {
  const label = new Map(results.contenders.map((c) => [c.key, c.label]));
  const floorOf = new Map(results.contenders.map((c) => [c.key, c.floor ?? 'floor']));
  const tsFloorOf = new Map(results.contenders.map((c) => [c.key, c.tsFloor]));
  const coldStartOnly = new Set(results.contenders.filter((c) => c.coldStartOnly === true).map((c) => c.key));
  const roundTripsOnly = new Set(results.contenders.filter((c) => c.roundTripsOnly === true).map((c) => c.key));
  const floors = new Set(floorOf.values());
  // The peers: every contender that is neither a floor nor an mcp-core build nor a run of one section only (the other
  // Nodes' floors and the one-file `.ts` floors; the protocol floor).
  const peers = results.contenders
    .map((c) => c.key)
    .filter((key) => !floors.has(key) && !cores.includes(key) && !coldStartOnly.has(key) && !roundTripsOnly.has(key));
  const shortSessions = results.shortSessions ?? [];
  const lines: string[] = [];
  const { machine } = results;
  lines.push('# Benchmark results', '');
  lines.push(
    `Machine Node ${machine.node}, dev Node ${machine.devNode}, ${machine.cores} cores; run took ${results.seconds.toFixed(0)} s` +
      `${machine.smoke ? ' (**smoke run: sizes too small to mean anything**)' : ''}. Medians of repetitions, contenders alternated.`,
    '',
  );

  lines.push('## Echo tool round trips', '');
  lines.push('| transport | era | callers | server | calls/s | × floor | × SDK v2 | p50 µs | p99 µs |');
  lines.push('|---|---|---|---|---|---|---|---|---|');
  const scenarioKey = (r: Results['throughput'][number]) => `${r.transport}/${r.era}/${r.concurrency}`;
  const byScenario = new Map<string, Results['throughput']>();
  for (const row of results.throughput)
    byScenario.set(scenarioKey(row), [...(byScenario.get(scenarioKey(row)) ?? []), row]);
  /**
   * The floor `contender`'s round trips are set against among `rows` (one scenario): the raw floor on its own Node,
   * or on the machine Node for a run before the dev Node's floor joined the round trips.
   */
  const roundTripFloor = (rows: Results['throughput'], contender: string) =>
    rows.find((r) => r.contender === floorOf.get(contender)) ?? rows.find((r) => r.contender === 'floor');
  let otherNodesFloor = false; // a row set against the machine Node's floor for want of its own Node's
  for (const rows of byScenario.values()) {
    const sdk = rows.find((r) => r.contender === 'sdk-v2')?.callsPerSecond;
    for (const row of rows) {
      const floorRow = roundTripFloor(rows, row.contender);
      if (floorRow !== undefined && floorRow.contender !== floorOf.get(row.contender)) otherNodesFloor = true;
      const floor = floorRow?.callsPerSecond;
      lines.push(
        `| ${row.transport} | ${ERA_NAME[row.era]} | ${row.concurrency} | ${label.get(row.contender)} | ${Math.round(row.callsPerSecond)}` +
          ` | ${ratio(row.callsPerSecond, floor)} | ${ratio(row.callsPerSecond, sdk)} | ${Math.round(row.p50Us)} | ${Math.round(row.p99Us)} |`,
      );
    }
  }
  lines.push(
    '',
    otherNodesFloor
      ? '× floor is against the raw floor on the same Node, but for the builds on another Node: this run has no round' +
          ' trips of their floor, and sets them against the floor on the machine Node.'
      : '× floor is against the raw floor on the same Node.',
    '',
    'A library has rows only for the eras and transports it serves: SDK v1, FastMCP and mcp-lite implement the 2025' +
      ' era only (mcp-lite negotiates 2025-06-18), and mcp-lite has no stdio transport.',
    '',
  );

  lines.push('## Cold start (spawn → first answered request, a 2025 `initialize`)', '');
  lines.push(
    '× floor is against the raw floor (`.mjs`) on the same Node; × .ts floor, for the `.ts` sources stripped at' +
      ' every start, against the one-file `.ts` floor stripped the same way on the same Node. A compile cache is' +
      ' warmed by one run before the measured ones.',
    '',
  );
  lines.push('| transport | server | ms | × floor | × .ts floor | × SDK v2 |', '|---|---|---|---|---|---|');
  for (const transport of ['stdio', 'http'] as const) {
    const rows = results.coldStart.filter((r) => r.transport === transport);
    const sdk = rows.find((r) => r.contender === 'sdk-v2')?.ms;
    for (const row of rows) {
      const floor = rows.find((r) => r.contender === floorOf.get(row.contender))?.ms;
      const tsFloor = rows.find((r) => r.contender === tsFloorOf.get(row.contender))?.ms;
      lines.push(
        `| ${transport} | ${label.get(row.contender)} | ${row.ms.toFixed(1)} | ${ratio(row.ms, floor)} | ${ratio(row.ms, tsFloor)}` +
          ` | ${ratio(row.ms, sdk)} |`,
      );
    }
  }
  lines.push('');

  if (shortSessions.length > 0) {
    lines.push('## Short-lived stdio sessions (spawn → initialize → tools/list → n calls → stdin closed → exit)', '');
    lines.push(
      'ms: the median of the repetitions. × floor is against the raw floor on the same Node, median over median; the' +
        " Targets table judges mcp-core's ratio repetition by repetition (each session over the floor's of the same round).",
      '',
    );
    lines.push('| calls | server | ms | × floor | × SDK v2 |', '|---|---|---|---|---|');
    for (const calls of new Set(shortSessions.map((r) => r.calls))) {
      const rows = shortSessions.filter((r) => r.calls === calls);
      const sdk = rows.find((r) => r.contender === 'sdk-v2')?.ms;
      for (const row of rows) {
        const floor = rows.find((r) => r.contender === floorOf.get(row.contender))?.ms;
        lines.push(
          `| ${calls} | ${label.get(row.contender)} | ${millis(row.ms)} | ${ratio(row.ms, floor)} | ${ratio(row.ms, sdk)} |`,
        );
      }
    }
    lines.push('');
  }

  if (results.memory.length > 0) {
    lines.push('## Memory (HTTP; RSS after a forced GC)', '');
    lines.push(
      '| what | server | RSS with one | RSS with the sample | bytes each (over n more) | × SDK v2 |',
      '|---|---|---|---|---|---|',
    );
    for (const kind of ['sessions', 'listens'] as const) {
      const rows = results.memory.filter((r) => r.kind === kind);
      const sdk = rows.find((r) => r.contender === 'sdk-v2')?.bytesPerItem;
      const what = kind === 'sessions' ? 'idle 2025 session' : 'open 2026 listen stream';
      for (const row of rows) {
        lines.push(
          `| ${what} | ${label.get(row.contender)} | ${kib(row.rssBaseBytes)} | ${kib(row.rssAtSampleBytes)} | ${Math.round(row.bytesPerItem)} (n = ${row.items})` +
            ` | ${ratio(row.bytesPerItem, sdk)} |`,
        );
      }
    }
    lines.push('');
  }

  if (results.weight.length > 0) {
    lines.push('## Package weight', '');
    lines.push(
      '| server | import ms | tarball | tarball files | installed | installed files | packages |',
      '|---|---|---|---|---|---|---|',
    );
    for (const row of results.weight) {
      lines.push(
        `| ${label.get(row.contender)} | ${row.importMs.toFixed(1)} | ${kib(row.tarballBytes)} | ${row.tarballFiles}` +
          ` | ${kib(row.installedBytes)} | ${row.installedFiles} | ${row.packages} |`,
      );
    }
    lines.push('');
  }

  if (results.validation !== undefined) {
    lines.push('## Argument validation at the size limit (mcp-core .ts, in process)', '');
    lines.push(
      `Each body fills the 4 MiB default line and body limit; the budget is ≤ ${TARGETS.validationRatio}× \`JSON.parse\` of the same body.`,
      '',
    );
    lines.push(
      '| keyword | body | JSON.parse ms | validation ms | × JSON.parse | budget |',
      '|---|---|---|---|---|---|',
    );
    for (const row of results.validation) {
      const times = row.validateMs / row.parseMs;
      lines.push(
        `| ${row.name} | ${kib(row.bytes)} | ${row.parseMs.toFixed(1)} | ${row.validateMs.toFixed(1)} | ${times.toFixed(2)}×` +
          ` | ${mark(times <= TARGETS.validationRatio)} |`,
      );
    }
    lines.push('');
  }

  if (results.deployment !== undefined) {
    lines.push('## Deployment: the cost of sharing state (examples/scale-out.ts, node:http)', '');
    lines.push(
      'One worker direct with nothing shared; one worker direct on Redis (mcp-core/redis); three workers on Redis' +
        ' behind haproxy balancing each request on its own. × direct: calls/s against the first row of the era.',
      '',
    );
    lines.push(
      '| era | setup | callers | calls/s | × direct | p50 µs | Redis commands per call |',
      '|---|---|---|---|---|---|---|',
    );
    for (const row of results.deployment) {
      const direct = results.deployment.find((other) => other.era === row.era && other.setup === 'direct');
      lines.push(
        `| ${ERA_NAME[row.era]} | ${row.setup} | ${row.concurrency} | ${Math.round(row.callsPerSecond)} |` +
          ` ${ratio(row.callsPerSecond, direct?.callsPerSecond)} | ${Math.round(row.p50Us)} | ${row.redisCommandsPerCall.toFixed(2)} |`,
      );
    }
    lines.push('');
  }

  if (results.middleware !== undefined) lines.push(...middlewareSection(results.middleware, label));

  /** A target row: `figure` beats every peer's figure among `rows` (the peers absent from `rows` do not serve that row). */
  function ahead<Row extends { contender: string }>(
    what: string,
    figure: number | null,
    rows: Row[],
    of: (row: Row) => number | null,
    better: 'higher' | 'lower',
  ): string {
    const rivals = rows.filter((r) => peers.includes(r.contender));
    const beats = (rival: Row): boolean => {
      const theirs = of(rival);
      if (!measured(theirs)) return measured(figure);
      return measured(figure) && (better === 'higher' ? figure > theirs : figure < theirs);
    };
    const measuredRivals = rivals.filter((r) => measured(of(r)));
    const nearest = measuredRivals.sort((a, b) => (better === 'higher' ? of(b)! - of(a)! : of(a)! - of(b)!))[0];
    const shown =
      nearest === undefined
        ? 'no peer measured'
        : `${ratio(figure, of(nearest))} ${label.get(nearest.contender)} (best peer)`;
    return `| ${what}: ahead of every peer | ${shown} | ${mark(rivals.every(beats))} |`;
  }

  lines.push('## Targets (mcp-core)', '');
  lines.push(
    "A round trip against the floor is the median of its slice-by-slice ratios (each measured slice over the floor's" +
      ' slice of the same turn), with the 95 % interval of that median in brackets: met when the whole interval' +
      ' reaches the target, missed when none of it does, else not resolved by the run. A short session is judged the' +
      " same way on its ratios to the floor's session of the same round.",
    '',
  );
  lines.push('| target | figure | status |', '|---|---|---|');
  for (const core of cores) {
    for (const rows of byScenario.values()) {
      const row = rows.find((r) => r.contender === core);
      // SDK v2 and the protocol floor run on the machine Node: their ratios are to the floor there.
      const machineFloor = rows.find((r) => r.contender === 'floor');
      const floorRow = roundTripFloor(rows, core);
      const sdk = rows.find((r) => r.contender === 'sdk-v2')?.callsPerSecond;
      if (row === undefined || machineFloor === undefined || floorRow === undefined || sdk === undefined) continue;
      const floor = machineFloor.callsPerSecond;
      const vsSdk = row.callsPerSecond / sdk;
      // 3.5× SDK v2 assumes SDK v2 near 0.2× the floor; where it runs faster, the ratio would lie above the floor.
      const reachable = (sdk / floor) * TARGETS.sdkV2Ratio <= 1;
      const sdkStatus =
        vsSdk >= TARGETS.sdkV2Ratio
          ? 'met'
          : reachable
            ? '**missed**'
            : `out of reach (SDK v2 runs at ${(sdk / floor).toFixed(2)}× the floor)`;
      const budget = floorBudget(row.transport, row.concurrency);
      // Beside it, where measured, the protocol floor's own ratio and interval: how much of the gap the protocol's
      // work explains, and whether a server doing only that work would itself keep to the target.
      const protocol = rows.find((r) => r.contender === 'floor-protocol');
      const vsFloor = ratioOf(row, floorRow);
      const besides = [
        ...(vsFloor.interval === undefined ? [] : [range(vsFloor.interval)]),
        ...(protocol === undefined ? [] : [protocolFloor(ratioOf(protocol, machineFloor))]),
      ];
      // The floor is named where it is not the machine Node's.
      const floorName = floorRow === machineFloor ? 'floor' : label.get(floorRow.contender);
      lines.push(
        `| ${label.get(core)} ${row.transport} ${ERA_NAME[row.era]} ×${row.concurrency}: ≥ ${budget}× ${floorName}` +
          ` | ${vsFloor.median.toFixed(2)}× ${floorName}${besides.length === 0 ? '' : ` (${besides.join('; ')})`}` +
          ` | ${verdict(vsFloor, budget, `${budget}×`)} |`,
      );
      lines.push(
        `| ${label.get(core)} ${row.transport} ${ERA_NAME[row.era]} ×${row.concurrency}: ≥ ${TARGETS.sdkV2Ratio}× SDK v2` +
          ` | ${vsSdk.toFixed(2)}× SDK v2 | ${sdkStatus} |`,
      );
    }
    for (const rows of byScenario.values()) {
      const row = rows.find((r) => r.contender === core);
      if (row === undefined) continue;
      lines.push(
        ahead(
          `${label.get(core)} ${row.transport} ${ERA_NAME[row.era]} ×${row.concurrency}`,
          row.callsPerSecond,
          rows,
          (r) => r.callsPerSecond,
          'higher',
        ),
      );
    }
    const coldBudget = TARGETS.coldStartRatio[core];
    for (const transport of ['stdio', 'http'] as const) {
      const rows = results.coldStart.filter((r) => r.transport === transport);
      const row = rows.find((r) => r.contender === core);
      const floor = rows.find((r) => r.contender === floorOf.get(core));
      const tsFloor = rows.find((r) => r.contender === tsFloorOf.get(core));
      if (row === undefined) continue;
      if (floor !== undefined && coldBudget !== undefined) {
        lines.push(
          `| ${label.get(core)} cold start ${transport}: ≤ ${coldBudget}× ${label.get(floor.contender)} | ${(row.ms / floor.ms).toFixed(2)}×` +
            ` | ${mark(row.ms / floor.ms <= coldBudget)} |`,
        );
      } else if (floor !== undefined && tsFloor !== undefined) {
        // Stripped at every start: no budget, the figure stands beside what stripping one file costs on that Node.
        lines.push(
          `| ${label.get(core)} cold start ${transport}: reported beside ${label.get(tsFloor.contender)}` +
            ` | ${ratio(row.ms, floor.ms)} ${label.get(floor.contender)}, ${ratio(row.ms, tsFloor.ms)} .ts floor | no target |`,
        );
      }
      // The other Nodes' runs are set against the floors only: the peers run on the machine Node.
      if (!coldStartOnly.has(core)) {
        lines.push(ahead(`${label.get(core)} cold start ${transport}`, row.ms, rows, (r) => r.ms, 'lower'));
      }
    }
    for (const calls of new Set(shortSessions.map((r) => r.calls))) {
      const rows = shortSessions.filter((r) => r.calls === calls);
      const row = rows.find((r) => r.contender === core);
      const floor = rows.find((r) => r.contender === floorOf.get(core));
      if (row === undefined) continue;
      // Like its cold start, a build stripped at every start has no ratio budget: stripping alone exceeds it.
      if (floor !== undefined && coldBudget !== undefined) {
        const budget = TARGETS.shortSessionRatio;
        const paired = pairedRatio(row.repetitions, floor.repetitions);
        const judged =
          paired === undefined
            ? `${ratio(row.ms, floor.ms)} | ${mark(measured(row.ms) && measured(floor.ms) && row.ms / floor.ms <= budget)}`
            : `${ratioShown(paired)} | ${verdict(paired, budget, `${budget}×`, 'lower')}`;
        lines.push(
          `| ${label.get(core)} short session of ${calls} calls: ≤ ${budget}× ${label.get(floor.contender)} | ${judged} |`,
        );
      } else if (floor !== undefined) {
        lines.push(
          `| ${label.get(core)} short session of ${calls} calls: reported | ${ratio(row.ms, floor.ms)} ${label.get(floor.contender)} | no target |`,
        );
      }
      lines.push(ahead(`${label.get(core)} short session of ${calls} calls`, row.ms, rows, (r) => r.ms, 'lower'));
    }
    for (const [kind, what, budget] of [
      ['sessions', 'idle 2025 session', TARGETS.sessionBytes],
      ['listens', 'open 2026 listen stream', TARGETS.listenBytes],
    ] as const) {
      const figure = results.memory.find((r) => r.kind === kind && r.contender === core);
      if (figure === undefined) continue;
      lines.push(
        `| ${label.get(core)} ${what}: ≤ ${budget} B | ${Math.round(figure.bytesPerItem)} B | ${mark(figure.bytesPerItem <= budget)} |`,
      );
    }
    const weight = results.weight.find((r) => r.contender === core);
    if (weight !== undefined) {
      lines.push(
        `| ${label.get(core)} npm tarball: ≤ ${kib(TARGETS.tarballBytes)} | ${kib(weight.tarballBytes)} | ${mark(weight.tarballBytes <= TARGETS.tarballBytes)} |`,
      );
    }
  }
  lines.push('');
  return lines.join('\n');
}

/** A spread of repetitions: (highest − lowest) ÷ median, or '–' for a single one or a run before issue 26. */
function spread(row: ThroughputRow | undefined): string {
  const runs = row?.repetitions ?? [];
  if (row === undefined || runs.length < 2) return '–';
  return `${(((Math.max(...runs) - Math.min(...runs)) / row.callsPerSecond) * 100).toFixed(1)} %`;
}

/** A ratio with its interval where it has one: `0.92× (0.85–0.96)`. */
function ratioShown({ median, interval }: Ratio): string {
  return `${median.toFixed(2)}×${interval === undefined ? '' : ` (${range(interval)})`}`;
}

/** One middleware's cost (calls/s without ÷ with − 1, from ratioOf) and its verdict: two cells. */
function costOf(withIt: ThroughputRow, base: ThroughputRow | undefined): string {
  if (base === undefined) return '– | –';
  const ratio = ratioOf(withIt, base);
  const percent = (ratio: number) => `${((1 / ratio - 1) * 100).toFixed(1).replace(/^-0\.0$/, '0.0')} %`;
  // The cost falls as the ratio rises: the interval's high ratio is its least cost.
  const interval =
    ratio.interval === undefined ? '' : ` (${percent(ratio.interval.high)} to ${percent(ratio.interval.low)})`;
  const budget = 1 / (1 + TARGETS.middlewareCost);
  return `${percent(ratio.median)}${interval} | ${verdict(ratio, budget, `${TARGETS.middlewareCost * 100} %`)}`;
}

/**
 * The middleware section (issue 26): each build with one pass-through middleware against the same build without,
 * and another built dist (the core before the seam) against this tree's, per scenario, with each row's spread.
 */
function middlewareSection(run: NonNullable<Results['middleware']>, labels: Map<string, string>): string[] {
  const label = new Map([...labels, ...run.compared.map((c): [string, string] => [c.key, c.label])]);
  const scenarios = [...new Map(run.throughput.map((r) => [`${r.transport}/${r.era}/${r.concurrency}`, r])).values()];
  const row = (scenario: Results['throughput'][number], key: string) =>
    run.throughput.find(
      (r) =>
        r.contender === key &&
        r.transport === scenario.transport &&
        r.era === scenario.era &&
        r.concurrency === scenario.concurrency,
    );
  const calls = (r: Results['throughput'][number] | undefined) =>
    r === undefined ? '–' : `${Math.round(r.callsPerSecond)}`;
  const lines = [`## Middleware cost (issue 26, ${run.date}, round trips only)`, ''];
  lines.push(
    'Contenders alternated in one run, medians of its repetitions. Spread: (highest − lowest) ÷ median of the' +
      " repetitions' calls/s, the run's noise.",
    '',
  );
  const middleware = run.compared.filter((c) => c.kind === 'middleware');
  if (middleware.length > 0) {
    const budget = TARGETS.middlewareCost * 100;
    lines.push(
      `One pass-through middleware (\`server.intercept((call, next) => next())\`) against the same build without it.` +
        ' Cost: the extra time per call, calls/s without ÷ calls/s with − 1 (below zero: faster with it, noise), from' +
        ' the paired ratio where the run kept its slices, with its 95 % interval in brackets (Targets, below).' +
        ` Target: ≤ ${budget} % of a warmed round trip; met when the whole interval is within it.`,
      '',
      `| transport | era | callers | build | calls/s without | spread | calls/s with | spread | cost | ≤ ${budget} % |`,
      '|---|---|---|---|---|---|---|---|---|---|',
    );
    for (const scenario of scenarios) {
      for (const compared of middleware) {
        const base = row(scenario, compared.against);
        const withIt = row(scenario, compared.key);
        if (withIt === undefined) continue;
        lines.push(
          `| ${scenario.transport} | ${ERA_NAME[scenario.era]} | ${scenario.concurrency} | ${label.get(compared.against) ?? compared.against}` +
            ` | ${calls(base)} | ${spread(base)} | ${calls(withIt)} | ${spread(withIt)} | ${costOf(withIt, base)} |`,
        );
      }
    }
    lines.push('');
  }
  for (const compared of run.compared.filter((c) => c.kind === 'baseline')) {
    lines.push(
      `Without middleware: ${label.get(compared.against) ?? compared.against} against ${compared.label} (the core before the seam,` +
        ' `--baseline-dist`). × before: calls/s now ÷ calls/s before, paired with its 95 % interval where the run kept' +
        ' its slices; within noise when the interval holds 1.',
      '',
      '| transport | era | callers | calls/s before | spread | calls/s now | spread | × before |',
      '|---|---|---|---|---|---|---|---|',
    );
    for (const scenario of scenarios) {
      const before = row(scenario, compared.key);
      const now = row(scenario, compared.against);
      if (before === undefined) continue;
      lines.push(
        `| ${scenario.transport} | ${ERA_NAME[scenario.era]} | ${scenario.concurrency} | ${calls(before)} | ${spread(before)}` +
          ` | ${calls(now)} | ${spread(now)} | ${now === undefined ? '–' : ratioShown(ratioOf(now, before))} |`,
      );
    }
    lines.push('');
  }
  return lines;
}
