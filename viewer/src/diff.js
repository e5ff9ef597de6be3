// The difference of two SDFGs (before/after a transformation step, or `--compare A B`):
// elements are matched by key (model.js: kinds and labels along the path, not file indices,
// which shift when a transformation removes a node), and an element present in both is
// changed when its own attributes or its edges' endpoints differ (the change names which). Containers (states, scopes,
// nested SDFGs) are changed when anything inside them is. A node that moved to another state
// (and the memlets that moved with it) is one 'moved' change, not a removal and an addition; a
// map whose label (its range) changed, tiled or renamed, is matched by structure (match.js) and
// is one 'changed' change naming what differs. Two SDFGs with different arguments or nothing in
// common are said to be different programs (`unrelated`).
import { ownAttributes } from './model.js';
import { structuralPairs } from './match.js';

// Attributes that differ between copies of the same element without meaning anything.
const NOISE = new Set(['guid', 'hash', 'debuginfo', 'is_data_src', 'num_accesses', 'src_subset', 'dst_subset']);

// What identifies an element's content, by name: its own attributes (less the noise), an
// edge's endpoints, an SDFG's containers.
function fields(el) {
  const a = ownAttributes(el);
  const out = new Map();
  for (const k of Object.keys(a).filter((k) => !NOISE.has(k)).sort()) out.set(k, JSON.stringify(a[k]));
  if (el.src) {
    out.set('source', `${el.src.key}.${el.srcConn}`);
    out.set('destination', `${el.dst.key}.${el.dstConn}`);
  }
  if (el.kind === 'sdfg') out.set('containers', JSON.stringify(el.json.attributes?._arrays ?? {}));
  return out;
}

/** The names of the fields that differ between `ea` and `eb` (empty: the same). */
function changedFields(ea, eb) {
  const fa = fields(ea), fb = fields(eb);
  const names = new Set([...fa.keys(), ...fb.keys()]);
  return [...names].filter((k) => fa.get(k) !== fb.get(k)).sort();
}

/** A node's key inside its state (what it is, wherever it is). */
const keyInState = (el) => el.key.slice(el.state.key.length);

/**
 * The dataflow nodes of `a` with no element of the same key in `b` that are in `b` in another
 * state (one node of that kind and label in each, among the unmatched ones), and the memlets
 * between them: Map(element of a -> {eb, what}), `what` naming the move first ("state 'x' ->
 * 'y'") and then the attributes that differ. Without this a map moved to another state would
 * list as removed and added, memlet by memlet.
 */
function movedElements(a, b, byKeyA, byKeyB) {
  const out = new Map();
  const unmatched = (model, other) => model.all.filter((e) => e.state && e.kind !== 'memlet' && !other.has(e.key) && e.parent === e.state);
  const group = (els) => {
    const m = new Map();
    for (const e of els) m.set(keyInState(e), m.has(keyInState(e)) ? null : e);
    return m;
  };
  const ga = group(unmatched(a, byKeyB)), gb = group(unmatched(b, byKeyA));
  const keyMap = new Map(); // key in a -> key in b, for moved nodes
  for (const [k, ea] of ga) {
    const eb = gb.get(k);
    if (!ea || !eb || ea.state.key === eb.state.key) continue;
    keyMap.set(ea.key, eb.key);
    const where = `state '${ea.state.label}' -> '${eb.state.label}'`;
    out.set(ea, { eb, what: [where, ...changedFields(ea, eb)] });
  }
  if (!keyMap.size) return out;
  const movedStates = new Map([...out].map(([ea, { eb }]) => [ea.state, eb.state]));
  for (const [sa, sb] of movedStates)
    for (const ma of sa.edges) {
      if (byKeyB.has(ma.key) || !(keyMap.has(ma.src.key) || keyMap.has(ma.dst.key))) continue;
      const to = (k) => keyMap.get(k) ?? (byKeyA.has(k) && byKeyB.has(k) ? k : null);
      const src = to(ma.src.key), dst = to(ma.dst.key);
      if (!src || !dst) continue;
      const mb = sb.edges.find((e) => e.src.key === src && e.dst.key === dst && e.srcConn === ma.srcConn && e.dstConn === ma.dstConn && !byKeyA.has(e.key));
      if (!mb) continue;
      const what = changedFields(ma, mb).filter((f) => f !== 'source' && f !== 'destination');
      out.set(ma, { eb: mb, what: [`state '${sa.label}' -> '${sb.label}'`, ...what] });
    }
  return out;
}

/**
 * Diff of models `a` and `b`: {inA: Map uid->'removed'|'changed', inB: Map uid->'added'|'changed',
 * changes: [{status, key, label, kind, uidA, uidB, what}], unrelated: why they look like
 * different programs, or ''} (changes lists leaf elements only;
 * status 'added', 'removed', 'changed' or 'moved'; `what`: the names of the attributes,
 * endpoints or containers that differ, for 'changed', and first the states for 'moved').
 */
export function diffModels(a, b) {
  const byKeyA = new Map(a.all.map((e) => [e.key, e]));
  const byKeyB = new Map(b.all.map((e) => [e.key, e]));
  const inA = new Map(), inB = new Map();
  const changes = [];
  const moved = movedElements(a, b, byKeyA, byKeyB);
  for (const [ea, { eb, what }] of moved) {
    inA.set(ea.uid, 'changed');
    inB.set(eb.uid, 'changed');
    // A memlet that moved with its nodes and is otherwise the same is no change of its own.
    if (ea.kind !== 'memlet' || what.length > 1)
      changes.push({ status: 'moved', key: ea.key, label: eb.label, kind: eb.kind, uidA: ea.uid, uidB: eb.uid, what });
  }
  const movedB = new Set([...moved.values()].map((m) => m.eb));
  const matched = new Map([...moved].map(([ea, m]) => [ea, m.eb]));
  for (const ea of a.all) if (!moved.has(ea) && byKeyB.has(ea.key)) matched.set(ea, byKeyB.get(ea.key));
  const structural = structuralPairs(a, b, matched);
  for (const [ea, eb] of structural) {
    // The ends of a memlet between paired nodes have new keys; what else differs is the change.
    const what = changedFields(ea, eb).filter((f) => ea.kind !== 'memlet' || !pairedEnd(f, ea, structural));
    if (!what.length) continue;
    inA.set(ea.uid, 'changed');
    inB.set(eb.uid, 'changed');
    changes.push({ status: 'changed', key: ea.key, label: eb.label, kind: eb.kind, uidA: ea.uid, uidB: eb.uid, what });
  }
  const structuralB = new Set(structural.values());
  for (const ea of a.all) {
    if (moved.has(ea) || structural.has(ea)) continue;
    const eb = byKeyB.get(ea.key);
    if (!eb) {
      inA.set(ea.uid, 'removed');
      changes.push({ status: 'removed', key: ea.key, label: ea.label, kind: ea.kind, uidA: ea.uid });
    } else {
      const what = changedFields(ea, eb);
      if (!what.length) continue;
      inA.set(ea.uid, 'changed');
      inB.set(eb.uid, 'changed');
      changes.push({ status: 'changed', key: ea.key, label: eb.label, kind: eb.kind, uidA: ea.uid, uidB: eb.uid, what });
    }
  }
  for (const eb of b.all)
    if (!byKeyA.has(eb.key) && !movedB.has(eb) && !structuralB.has(eb)) {
      inB.set(eb.uid, 'added');
      changes.push({ status: 'added', key: eb.key, label: eb.label, kind: eb.kind, uidB: eb.uid });
    }
  // A container with changes inside is changed itself (so a collapsed state shows them).
  const lift = (model, marks) => {
    for (const el of model.all) {
      if (!marks.has(el.uid)) continue;
      for (let p = el.parent; p; p = p.parent) if (!marks.has(p.uid)) marks.set(p.uid, 'inner');
    }
  };
  lift(a, inA);
  lift(b, inB);
  return { inA, inB, changes, unrelated: unrelatedPrograms(a, b, matched.size + structural.size) };
}

/** Whether memlet field `f` ('source' or 'destination') differs only because that end was paired by structure. */
function pairedEnd(f, ea, structural) {
  return (f === 'source' && structural.has(ea.src)) || (f === 'destination' && structural.has(ea.dst));
}

/** The arguments of a model's SDFG: arg_names and the other non-transient containers, sorted. */
function argumentsOf(model) {
  const attrs = model.root.json.attributes ?? {};
  const names = new Set(attrs.arg_names ?? []);
  for (const [name, desc] of Object.entries(attrs._arrays ?? {})) if (!desc?.attributes?.transient) names.add(name);
  return [...names].sort();
}

/**
 * Why `a` and `b` look like two different programs rather than two versions of one ('' when they
 * do not): different arguments, or no element in common besides the SDFG itself (`common`
 * counts the pairs, the roots' included).
 */
function unrelatedPrograms(a, b, common) {
  const why = [];
  const aa = argumentsOf(a), ab = argumentsOf(b);
  if (aa.join(',') !== ab.join(','))
    why.push(`different arguments (A: ${aa.join(', ') || 'none'}; B: ${ab.join(', ') || 'none'})`);
  if (common <= 1) why.push('no element in common');
  return why.length ? `A and B look like different programs: ${why.join(', ')}` : '';
}
