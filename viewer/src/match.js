// Maps of two SDFGs matched by structure where their keys differ (diff.js). A node's key holds its
// label, and a map entry's label holds its range ("lap_map[__I=1:N - 1, ...]"), so a map that a
// transformation tiled (new ranges, a new tile map around it) or renamed gets a new key: without
// this, the diff lists it, its exit and every memlet at its scope as removed and added. Here two
// unmatched map entries of the same state (the same key, or a state a move pairs) are one map
// when their label stems agree, or when their parameters and the data they read and write do; the
// memlets at their scopes pair through them.

/** The map's label without its range ("lap_map" of "lap_map[__I=...]"). */
function mapStem(el) {
  return String(el.json.attributes?.label ?? el.rawLabel ?? '').replace(/\[[\s\S]*$/, '');
}

/** The containers a map's scope reads (memlets into its entry) and writes (out of its exit). */
function mapData(el) {
  const names = (edges) => [...new Set(edges.map((e) => e.json.attributes?.data?.attributes?.data).filter(Boolean))].sort().join(',');
  return {
    reads: names(el.state.edges.filter((e) => e.dst === el)),
    writes: el.exit ? names(el.state.edges.filter((e) => e.src === el.exit)) : '',
  };
}

/** How alike two map entries are (0: not the same map). */
function mapScore(ea, eb) {
  const pa = ea.json.attributes ?? {}, pb = eb.json.attributes ?? {};
  const stem = mapStem(ea) === mapStem(eb);
  const params = JSON.stringify(pa.params ?? []) === JSON.stringify(pb.params ?? []);
  const ranges = JSON.stringify(pa.range ?? null) === JSON.stringify(pb.range ?? null);
  const da = mapData(ea), db = mapData(eb);
  const data = da.reads === db.reads && da.writes === db.writes;
  if (!stem && !((params || ranges) && data && (da.reads || da.writes))) return 0;
  return 4 * stem + 2 * params + 2 * ranges + 2 * data;
}

/**
 * Pairs of elements of `a` and `b` that `matched` (element of a -> element of b: every pair
 * of the same key, and moves) leaves unpaired and structure pairs: Map(element of a -> element of b) of map entries,
 * their exits and the memlets at their scopes (both ends paired, else one end and its connector,
 * when one memlet of `b` fits).
 */
export function structuralPairs(a, b, matched) {
  const pairs = new Map();
  const usedB = new Set(matched.values());
  const statePair = new Map(); // state of a -> state of b
  const byKeyB = new Map(b.all.map((e) => [e.key, e]));
  for (const ea of a.all) if (ea.kind === 'state' && byKeyB.get(ea.key)?.kind === 'state') statePair.set(ea, byKeyB.get(ea.key));
  for (const [ea, eb] of matched) if (ea.state && eb.state && !statePair.has(ea.state)) statePair.set(ea.state, eb.state);
  const free = (model, used) => model.all.filter((e) => e.kind === 'map_entry' && !used.has(e));
  const entriesB = free(b, usedB);
  const candidates = [];
  for (const ea of free(a, new Set(matched.keys()))) {
    const sb = statePair.get(ea.state);
    if (!sb) continue;
    for (const eb of entriesB) {
      if (eb.state !== sb) continue;
      const score = mapScore(ea, eb);
      if (score) candidates.push({ ea, eb, score });
    }
  }
  candidates.sort((x, y) => y.score - x.score);
  const takenB = new Set();
  for (const { ea, eb } of candidates) {
    if (pairs.has(ea) || takenB.has(eb)) continue;
    pairs.set(ea, eb);
    takenB.add(eb);
    if (ea.exit && eb.exit && !matched.has(ea.exit) && !usedB.has(eb.exit)) pairs.set(ea.exit, eb.exit);
  }
  if (!pairs.size) return pairs;
  // Memlets: an end is the same element (a key both have), a moved one or a paired one.
  const all = new Map([...matched, ...pairs]);
  const to = (el) => all.get(el) ?? null;
  const memletsA = a.all.filter((ma) => ma.kind === 'memlet' && !matched.has(ma) && (pairs.has(ma.src) || pairs.has(ma.dst)));
  const taken = new Set([...usedB, ...takenB]);
  const freeIn = (sb) => (sb ? sb.edges.filter((mb) => !taken.has(mb)) : []);
  const pass = (fits) => {
    for (const ma of memletsA) {
      if (pairs.has(ma)) continue;
      const hits = freeIn(statePair.get(ma.state)).filter((mb) => fits(ma, mb));
      if (hits.length !== 1) continue;
      pairs.set(ma, hits[0]);
      taken.add(hits[0]);
    }
  };
  const sameSrc = (ma, mb) => to(ma.src) === mb.src && ma.srcConn === mb.srcConn;
  const sameDst = (ma, mb) => to(ma.dst) === mb.dst && ma.dstConn === mb.dstConn;
  pass((ma, mb) => sameSrc(ma, mb) && sameDst(ma, mb));
  pass((ma, mb) => sameDst(ma, mb) && pairs.has(ma.dst));
  pass((ma, mb) => sameSrc(ma, mb) && pairs.has(ma.src));
  return pairs;
}
