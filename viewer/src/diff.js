// The difference of two SDFGs (before/after a transformation step, or `--compare A B`):
// elements are matched by key (model.js: kinds and labels along the path, not file indices,
// which shift when a transformation removes a node), and an element present in both is
// changed when its own attributes or its edges' endpoints differ (the change names which). Containers (states, scopes,
// nested SDFGs) are changed when anything inside them is.
import { ownAttributes } from './model.js';

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

/**
 * Diff of models `a` and `b`: {inA: Map uid->'removed'|'changed', inB: Map uid->'added'|'changed',
 * changes: [{status, key, label, kind, uidA, uidB, what}]} (changes lists leaf elements only;
 * `what`: the names of the attributes, endpoints or containers that differ, for 'changed').
 */
export function diffModels(a, b) {
  const byKeyA = new Map(a.all.map((e) => [e.key, e]));
  const byKeyB = new Map(b.all.map((e) => [e.key, e]));
  const inA = new Map(), inB = new Map();
  const changes = [];
  for (const ea of a.all) {
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
    if (!byKeyA.has(eb.key)) {
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
  return { inA, inB, changes };
}
