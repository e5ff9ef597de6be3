// The code generator's decisions for each map, as the SDFG records them (docs/adr/0034 and
// 0047): the schedule (parallel or not), `collapse`, the thread choice cpu-schedules records
// (weir_threads, weir_points), the SIMD hint or lane count (weir_vectorize,
// weir_vector_remainder), the WCR writes recorded as plain updates (the memlets'
// wcr_nonatomic), and tiling (MapTiling's outer map `tile_X` around map X, its steps the tile
// sizes). Only what the file
// says: a decision the code generator makes without recording it (privatized containers and
// reduction partials of maps cpu-schedules does not mark) is named as such, never re-derived here.

/** The categories the decisions overlay colours map entries by, in legend order. */
export const DECISION_CATEGORIES = [
  ['parallel', 'parallel (OpenMP)'],
  ['gpu', 'GPU kernel'],
  ['simd', 'vectorized (SIMD)'],
  ['sequential', 'sequential'],
];

/**
 * A map's attributes with weir's own under their in-memory names: files spell them
 * `_meta_weir_x` (DaCe skips such keys silently), files older than session 32 `weir_x`.
 */
const weirNames = (attrs) => {
  const a = { ...attrs };
  for (const [k, v] of Object.entries(attrs)) if (k.startsWith('_meta_weir_')) a[k.slice(6)] = v;
  return a;
};

const text = (v) => (v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));

/** Whether node `n` lies inside the scope of map entry `entry` (at any depth). */
function inside(n, entry) {
  const state = entry.state;
  let s = n.kind === 'map_exit' && n.entry ? n.entry.nodeId : n.scope;
  while (s !== null && s !== undefined) {
    if (s === entry.nodeId) return true;
    s = state.nodeMap.get(s)?.scope;
  }
  return false;
}

const mapName = (n) => n.json?.attributes?.label ?? n.rawLabel ?? '';

/** The map entry that tiles `entry` (MapTiling: `tile_X` directly around X) and the one it tiles. */
function tiling(entry) {
  const name = mapName(entry);
  const outer = entry.scope === null || entry.scope === undefined ? null : entry.state.nodeMap.get(entry.scope);
  const tiledBy = outer?.kind === 'map_entry' && mapName(outer) === `tile_${name}` ? outer : null;
  const tiles = name.startsWith('tile_')
    ? entry.state.children.find((n) => n.kind === 'map_entry' && n.scope === entry.nodeId && `tile_${mapName(n)}` === name) ?? null
    : null;
  return { tiledBy, tiles };
}

/** The tile sizes of MapTiling's tile map `tile`: its ranges' steps, one per parameter ("32 x 8"). */
const tileSizes = (tile) => (tile.json?.attributes?.range?.ranges ?? []).map((r) => text(r.step)).join(' x ');

/**
 * The decisions recorded for map entry `el`: {category, badge, rows: [[name, text]]}, or null
 * for any other element. `badge` is the short form drawn beside the map in the overlay.
 */
export function mapDecisions(el) {
  if (el.kind !== 'map_entry' || !el.state) return null;
  const a = weirNames(el.json?.attributes ?? {});
  const schedule = text(a.schedule) || 'Default';
  const rows = [];
  const badge = [];
  const parallel = schedule === 'CPU_Multicore';
  const gpu = schedule.startsWith('GPU');
  const vec = text(a.weir_vectorize);
  const lanes = /^\d+$/.test(vec) ? Number(vec) : 0;
  const simd = !parallel && !gpu && (vec === 'true' || lanes > 0);
  rows.push(['schedule', parallel ? `${schedule}: parallel (#pragma omp parallel for)` : gpu ? `${schedule}: a GPU kernel` : `${schedule}: sequential loops`]);
  if (parallel) badge.push('parallel');
  if (gpu) badge.push('gpu');
  const collapse = Number(a.collapse ?? 1);
  if (collapse > 1) {
    rows.push(['collapsed', `collapse(${collapse}): the first ${collapse} parameters are distributed`]);
    badge.push(`collapse ${collapse}`);
  }
  if (a.weir_threads !== undefined) {
    const pts = a.weir_points !== undefined ? ` over ${text(a.weir_points)} points` : '';
    rows.push(['threads', `${text(a.weir_threads)}${pts} (weir_threads, recorded by cpu-schedules)`]);
    if (text(a.weir_threads) !== 'many') badge.push(`threads: ${text(a.weir_threads)}`);
  }
  if (vec) {
    rows.push(['vectorized', lanes ? `${lanes} lanes (weir_vectorize: MapVectorization)` : `#pragma omp simd (weir_vectorize)${simd ? '' : '; ignored on a parallel or GPU map'}`]);
    if (simd) badge.push(lanes ? `simd ${lanes}` : 'simd');
  }
  if (a.weir_vector_remainder !== undefined) {
    rows.push(['vectorized', `the remainder loop of a ${text(a.weir_vector_remainder)}-lane vectorized map`]);
    badge.push('remainder');
  }
  const { tiledBy, tiles } = tiling(el);
  if (tiles) {
    rows.push(['tiled', `the tile loop of map '${mapName(tiles)}' (MapTiling), tiles of ${tileSizes(el)}`]);
    badge.push('tiles');
  }
  if (tiledBy) {
    rows.push(['tiled', `tiled by map '${mapName(tiledBy)}' (MapTiling), tiles of ${tileSizes(tiledBy)}`]);
    badge.push('tiled');
  }
  // The write-conflict-resolved writes of tasklets inside a parallel map: recorded plain
  // updates (wcr_nonatomic), or left to the code generator (atomic unless it proves otherwise).
  // The memlets after the map exits carry the WCR on and are no writes of their own.
  const wcr = parallel || gpu ? el.state.edges.filter((e) => e.json?.attributes?.data?.attributes?.wcr && e.src.kind !== 'map_entry' && e.src.kind !== 'map_exit' && inside(e.src, el)) : [];
  if (wcr.length) {
    const plain = wcr.filter((e) => e.json.attributes.data.attributes.wcr_nonatomic === true);
    const rest = wcr.length - plain.length;
    const parts = [];
    if (plain.length) parts.push(`${plain.length} plain update${plain.length === 1 ? '' : 's'} (wcr_nonatomic: no two iterations write one element)`);
    if (rest) parts.push(`${rest} not recorded: atomic unless the code generator proves them conflict-free`);
    rows.push(['atomic writes', parts.join('; ')]);
    badge.push(rest ? 'atomics: codegen' : 'no atomics');
  }
  // Per-thread copies and partials: cpu-schedules records them on a top-level parallel map with
  // WCR writes (JSON arrays of container names, empty when nothing is proved); elsewhere the
  // code generator decides with the same analysis.
  const names = (v) => {
    const list = Array.isArray(v) ? v : [];
    return list.length ? list.join(', ') : 'none';
  };
  if (a.weir_privatized !== undefined || a.weir_partials !== undefined) {
    rows.push(['privatized', `${names(a.weir_privatized)} (weir_privatized, recorded by cpu-schedules)`]);
    rows.push(['reduction partials', `${names(a.weir_partials)} (weir_partials, recorded by cpu-schedules)`]);
  } else if (parallel) {
    rows.push(['privatized', 'not recorded in the SDFG: the code generator decides privatized containers and reduction partials (ADR 0034)']);
  }
  // Attributes of weir's own that this page does not know yet (a newer weir): shown as the file has them.
  const known = new Set(['weir_threads', 'weir_points', 'weir_vectorize', 'weir_vector_remainder', 'weir_privatized', 'weir_partials']);
  for (const [k, v] of Object.entries(a)) if (k.startsWith('weir_') && !known.has(k)) rows.push([k, text(v)]);
  const category = parallel ? 'parallel' : gpu ? 'gpu' : simd ? 'simd' : 'sequential';
  return { category, badge: badge.join(' · '), rows };
}
