// Overlays: colours elements by a number per element — measured (a profile report of `weir run
// --profile=FILE`: time, share of the bandwidth probe, GFLOP/s, arithmetic intensity) or static
// (bytes moved and FLOPs computed from the SDFG, at the symbol values given) — with a legend.
// The C++ side locates each element as it locates validation problems (sdfg, block_path,
// node, edge); docs/adr/0048-profiling.md.

export const BUCKETS = 8;

/**
 * Whether an entry's FLOP count is unknown: 0 counted and only a lower bound (`flops_partial`:
 * a while loop or library node inside). Such an element has no FLOPs, GFLOP/s or intensity to
 * colour by, and the panel says n/a, as `weir run --profile`'s table does (user31 G11).
 */
export const flopsUnknown = (e) => Boolean(e?.flops_partial) && (e.flops === 0 || e.flops_expr === '0');

/** FLOPs as the panel and the table write them: 'n/a' when unknown, '>= N' for a lower bound. */
export function flopsText(flops, partial) {
  if (partial && !flops) return 'n/a';
  return `${partial ? '>= ' : ''}${formatNumber(flops)}`;
}

/** The metrics the page can colour by: {id, label, unit, source ('profile'|'static'), value(entry)}. */
export function overlayMetrics(overlays) {
  const out = [];
  if (overlays?.profile?.elements?.length) {
    out.push({ id: 'time', label: 'time (median ms per call)', unit: 'ms', source: 'profile', value: (e) => e.median_ms });
    out.push({ id: 'bandwidth', label: 'bandwidth (% of the probe)', unit: '% of probe', source: 'profile', value: (e) => (e.probe_share == null ? null : 100 * e.probe_share) });
    out.push({ id: 'gflops', label: 'GFLOP/s (measured)', unit: 'GFLOP/s', source: 'profile', value: (e) => (flopsUnknown(e) ? null : e.GFLOPps) });
    out.push({ id: 'intensity', label: 'arithmetic intensity (FLOP/byte)', unit: 'FLOP/byte', source: 'profile', value: (e) => (flopsUnknown(e) ? null : e.intensity) });
  }
  if (overlays?.static?.elements?.length) {
    out.push({ id: 'static-bytes', label: 'bytes moved (static)', unit: 'bytes', source: 'static', value: (e) => e.bytes });
    out.push({ id: 'static-flops', label: 'FLOPs (static)', unit: 'FLOP', source: 'static', value: (e) => (flopsUnknown(e) ? null : e.flops) });
    out.push({ id: 'static-intensity', label: 'arithmetic intensity (static)', unit: 'FLOP/byte', source: 'static', value: (e) => (flopsUnknown(e) ? null : e.intensity) });
  }
  return out;
}

/** A compact number: 3 significant digits, with k, M, G or T from 10^3 on (1445888 -> '1.45M'). */
export function formatNumber(v) {
  if (v === null || v === undefined || Number.isNaN(v)) return '—';
  const a = Math.abs(v);
  for (const [unit, f] of [['T', 1e12], ['G', 1e9], ['M', 1e6], ['k', 1e3]])
    if (a >= f) return `${Number((v / f).toPrecision(3))}${unit}`;
  if (a === 0) return '0';
  return a >= 1 ? String(Number(v.toPrecision(3))) : String(Number(v.toPrecision(2)));
}

/**
 * A scale over `values` (numbers; nulls ignored): logarithmic when they span two decades or
 * more (bytes and FLOPs of a program's elements usually do), linear otherwise.
 * bucket(v) is 0 (lowest) .. BUCKETS - 1 (highest).
 */
export function makeScale(values) {
  const vs = values.filter((v) => typeof v === 'number' && Number.isFinite(v));
  if (!vs.length) return null;
  const min = Math.min(...vs), max = Math.max(...vs);
  const log = min > 0 && max / min >= 100;
  const f = (v) => (log ? Math.log10(v) : v);
  const lo = f(min), hi = f(max);
  const bucket = (v) => (hi === lo ? BUCKETS - 1 : Math.min(BUCKETS - 1, Math.max(0, Math.floor(((f(v) - lo) / (hi - lo)) * BUCKETS))));
  return { min, max, log, bucket };
}

/**
 * Values of `metric` by element uid: `locate(entry)` gives the viewer element of an overlay
 * entry (or null). Returns {byUid: Map(uid -> {value, entry}), scale, unplaced}.
 */
export function overlayValues(overlays, metric, locate) {
  const byUid = new Map();
  let unplaced = 0;
  for (const entry of overlays[metric.source].elements) {
    const v = metric.value(entry);
    if (v === null || v === undefined) continue;
    const el = locate(entry);
    if (!el) {
      unplaced++;
      continue;
    }
    // Two entries on one element (a state and its only map never share one; a copy is an edge): keep the larger.
    const old = byUid.get(el.uid);
    if (!old || v > old.value) byUid.set(el.uid, { value: v, entry });
  }
  return { byUid, scale: makeScale([...byUid.values()].map((x) => x.value)), unplaced };
}

const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The legend of an active overlay: the colour steps from the lowest to the highest value. */
export function legendHtml(metric, values) {
  const { scale, byUid } = values;
  if (!scale) return `<span class="ov-title">${esc(metric.label)}</span> <span class="muted">no element has a value</span>`;
  let steps = '';
  for (let k = 0; k < BUCKETS; k++) steps += `<span class="ov-step ov-${k}"></span>`;
  return `<span class="ov-title">${esc(metric.label)}</span> <span class="ov-min">${esc(formatNumber(scale.min))}</span>${steps}<span class="ov-max">${esc(formatNumber(scale.max))}</span> ${esc(metric.unit)}` +
    `${scale.log ? ' (log scale)' : ''} <span class="muted">${byUid.size} element${byUid.size === 1 ? '' : 's'}</span>`;
}

/** Rows for the properties panel: every overlay number of an element's entries. */
export function overlayRows(entries) {
  const rows = [];
  const p = entries.profile, s = entries.static;
  if (p) {
    rows.push(['median time', `${formatNumber(p.median_ms)} ms (min ${formatNumber(p.min_ms)} ms, ${p.calls} calls, ${formatNumber(100 * (p.share_of_call ?? 0))}% of a call)`]);
    rows.push(['bandwidth', `${formatNumber(p.GBps)} GB/s${p.probe_share == null ? '' : ` (${formatNumber(100 * p.probe_share)}% of the probe)`}`]);
    rows.push(['GFLOP/s', flopsUnknown(p) ? 'n/a (FLOPs not known)' : `${p.flops_partial ? '>= ' : ''}${formatNumber(p.GFLOPps)}`]);
    rows.push(['measured on', `${formatNumber(p.bytes)} bytes${p.bytes_dynamic ? ' (upper bound)' : ''}, ${flopsText(p.flops, p.flops_partial)} FLOPs per execution`]);
    // A map inside a map scope: timed on per-thread accumulators (ADR 0048, "Timers inside maps").
    if (p.map_level >= 2) rows.push(['timed per thread', `map level ${p.map_level}, ${formatNumber(p.executions_per_call)} executions per call; time: the busiest thread's total`]);
  }
  if (s) {
    rows.push(['bytes moved', `${s.bytes_expr}${s.bytes == null ? '' : ` = ${formatNumber(s.bytes)}`}${s.bytes_dynamic ? ' (upper bound)' : ''}`]);
    rows.push(['FLOPs', flopsUnknown(s) ? 'n/a (not counted: a loop without a trip count or a library node inside)'
      : `${s.flops_expr}${s.flops == null ? '' : ` = ${flopsText(s.flops, s.flops_partial)}`}${s.flops_partial ? ' (a lower bound: parts not counted)' : ''}`]);
    if (s.intensity != null) rows.push(['arithmetic intensity', flopsUnknown(s) ? 'n/a' : `${s.flops_partial ? '>= ' : ''}${formatNumber(s.intensity)} FLOP/byte`]);
    if (s.needs?.length) rows.push(['values need', `${s.needs.join(', ')} (weir view --set NAME=VALUE)`]);
  }
  return rows;
}
