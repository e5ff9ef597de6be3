// Layered layout of an element tree (model.js) with dagre: each control-flow region and each
// state's dataflow graph is one layered graph (dagre's Sugiyama layout, top to bottom); a block,
// map scope or nested SDFG that holds a graph is sized by that graph's layout, so the layout is
// computed inside out. Collapsed elements are laid out as one box. Result: absolutely placed
// boxes and edge polylines, in drawing order (containers, then edges, then nodes).
import dagre from '@dagrejs/dagre';

const CHAR_W = 7.2; // 12px monospace
const PAD = 12;
const HEADER = 26;

export function textWidth(s) {
  return Math.ceil(String(s).length * CHAR_W);
}

const clip = (s, n = 60) => (s.length > n ? s.slice(0, n - 1) + '…' : s);

/** The label drawn for an element (long labels are clipped; the outline has them whole). */
export function shownLabel(el) {
  return clip(el.label || '', el.kind === 'memlet' ? 48 : 60);
}

/** Whether `el` is drawn as one box when collapsed (states, regions, scopes, nested SDFGs). */
export function collapsible(el) {
  return ['state', 'loop', 'conditional', 'region', 'branch', 'nested'].includes(el.kind) || (el.kind === 'map_entry' && !!el.exit);
}

function graph(compound) {
  const g = new dagre.graphlib.Graph({ compound, multigraph: true });
  g.setGraph({ rankdir: 'TB', nodesep: 24, ranksep: 36, edgesep: 12, marginx: 8, marginy: 8 });
  g.setDefaultEdgeLabel(() => ({}));
  return g;
}

class Box {
  constructor(el, w, h, shape) {
    Object.assign(this, { el, w, h, shape, x: 0, y: 0, inner: [], edges: [] });
  }
}

/**
 * Lays out the model's root SDFG. `collapsed` is a Set of uids drawn as one box. Returns
 * {width, height, boxes: [{el, x, y, w, h, shape, container, depth}], edges: [{el, points}]}.
 */
export function layoutModel(model, collapsed) {
  const boxes = [], edges = [];
  const top = sdfgBox(model.root, collapsed);
  flatten(top, 0, 0, 0, boxes, edges);
  return { width: top.w, height: top.h, boxes, edges };
}

function flatten(box, ox, oy, depth, boxes, edges) {
  const x = ox + box.x, y = oy + box.y;
  boxes.push({ el: box.el, x, y, w: box.w, h: box.h, shape: box.shape, container: box.inner.length > 0 || box.container, depth, collapsed: box.collapsed });
  for (const e of box.edges) edges.push({ el: e.el, points: e.points.map((p) => ({ x: p.x + x, y: p.y + y })), label: e.label });
  for (const c of box.inner) flatten(c, x, y, depth + 1, boxes, edges);
}

function sdfgBox(el, collapsed) {
  const r = regionBox(el, collapsed);
  r.shape = 'sdfg';
  return r;
}

// A region's blocks and interstate edges: laid out in a box with a header line.
function regionBox(el, collapsed, header = HEADER) {
  const box = new Box(el, 0, 0, 'region');
  box.container = true;
  const blocks = el.children.map((c) => blockBox(c, collapsed));
  if (blocks.length === 0) {
    box.w = Math.max(textWidth(el.label) + 2 * PAD, 80);
    box.h = header + 20;
    return box;
  }
  const g = graph(false);
  blocks.forEach((b, i) => g.setNode(String(i), { width: b.w, height: b.h }));
  el.edges.forEach((e, i) => {
    const s = el.children.indexOf(e.src), d = el.children.indexOf(e.dst);
    const lbl = clip(e.label, 40);
    g.setEdge(String(s), String(d), { width: lbl ? textWidth(lbl) : 0, height: lbl ? 14 : 0, labelpos: 'c' }, `e${i}`);
  });
  dagre.layout(g);
  const gg = g.graph();
  blocks.forEach((b, i) => {
    const n = g.node(String(i));
    b.x = n.x - b.w / 2 + PAD;
    b.y = n.y - b.h / 2 + header;
  });
  el.edges.forEach((e, i) => {
    const s = el.children.indexOf(e.src), d = el.children.indexOf(e.dst);
    const ge = g.edge({ v: String(s), w: String(d), name: `e${i}` });
    if (!ge) return;
    box.edges.push({ el: e, points: ge.points.map((p) => ({ x: p.x + PAD, y: p.y + header })), label: { x: ge.x + PAD, y: ge.y + header } });
  });
  box.inner = blocks;
  box.w = Math.max(gg.width + 2 * PAD, textWidth(el.label) + 2 * PAD);
  box.h = gg.height + header + PAD;
  return box;
}

function blockBox(el, collapsed) {
  const isCollapsed = collapsed.has(el.uid);
  if (isCollapsed || ['break', 'continue', 'return'].includes(el.kind)) {
    const b = new Box(el, textWidth(el.label) + 2 * PAD + 20, 32, el.kind === 'state' ? 'state' : el.kind);
    b.collapsed = isCollapsed;
    return b;
  }
  if (el.kind === 'state') {
    const b = stateBox(el, collapsed);
    b.shape = 'state';
    return b;
  }
  if (el.kind === 'conditional') {
    const branches = el.children.map((c) => {
      const r = regionBox(c, collapsed);
      r.shape = 'branch';
      return r;
    });
    const box = new Box(el, 0, 0, 'conditional');
    let x = PAD;
    let h = 0;
    for (const r of branches) {
      r.x = x;
      r.y = HEADER;
      x += r.w + PAD;
      h = Math.max(h, r.h);
    }
    box.inner = branches;
    box.w = Math.max(x, textWidth(el.label) + 2 * PAD);
    box.h = HEADER + h + PAD;
    return box;
  }
  // Loops and plain regions: the body, under a header that says what the loop does.
  const r = regionBox(el, collapsed, el.header ? 2 * HEADER - 6 : HEADER);
  r.shape = el.kind;
  r.w = Math.max(r.w, textWidth(el.header || '') + 2 * PAD);
  return r;
}

function nodeSize(el) {
  const w = textWidth(shownLabel(el));
  switch (el.kind) {
    case 'access': return [w + 28, 30];
    case 'tasklet': return [w + 28, 32];
    case 'map_entry': case 'map_exit': return [w + 36, 28];
    default: return [w + 24, 30];
  }
}

/** Whether node `el` of a state is hidden inside a collapsed map scope; returns the scope entry drawn instead. */
function visibleRep(el, collapsed) {
  let rep = el;
  const state = el.state;
  // The outermost collapsed scope around el (the exit of a collapsed map is drawn as its entry).
  let cur = el.kind === 'map_exit' && el.entry ? el.entry : el;
  if (cur !== el && collapsed.has(cur.uid)) rep = cur;
  let s = cur.scope;
  while (s !== null && s !== undefined) {
    const entry = state.nodeMap.get(s);
    if (!entry) break;
    if (collapsed.has(entry.uid)) rep = entry;
    s = entry.scope;
  }
  return rep;
}

// One state's dataflow graph: map scopes are dagre clusters; nested SDFGs are boxes sized by
// their own layout.
function stateBox(el, collapsed) {
  const box = new Box(el, 0, 0, 'state');
  box.container = true;
  const nodes = el.children;
  if (nodes.length === 0) {
    box.w = textWidth(el.label) + 2 * PAD + 20;
    box.h = HEADER + 16;
    return box;
  }
  const g = graph(true);
  const inner = new Map();
  const clusters = new Map();
  for (const n of nodes) {
    if (visibleRep(n, collapsed) !== n) continue;
    let b;
    if (n.kind === 'nested' && n.nested && !collapsed.has(n.uid)) {
      b = sdfgBox(n.nested, collapsed);
      b.el = n;
      b.shape = 'nested';
      b.h += 4;
    } else {
      const [w, h] = nodeSize(n);
      b = new Box(n, w, h, n.kind);
      b.collapsed = collapsed.has(n.uid) && collapsible(n);
      if (b.collapsed && n.kind === 'map_entry') b.w += 20;
    }
    inner.set(n, b);
    g.setNode(n.uid, { width: b.w, height: b.h });
  }
  // Clusters: one per expanded map scope that has visible members.
  const clusterOf = (n) => {
    const entryId = n.kind === 'map_entry' && !collapsed.has(n.uid) && n.exit ? n.nodeId : null;
    return entryId;
  };
  for (const n of inner.keys()) {
    const own = clusterOf(n);
    if (own !== null) {
      const cid = `c:${n.uid}`;
      if (!clusters.has(cid)) {
        clusters.set(cid, n);
        g.setNode(cid, {});
      }
    }
  }
  for (const n of inner.keys()) {
    // An entry and its exit belong to their own scope's cluster; contents to the enclosing entry's.
    const scopeId = n.kind === 'map_entry' && n.exit && !collapsed.has(n.uid) ? n.nodeId : n.kind === 'map_exit' && n.entry ? n.entry.nodeId : n.scope;
    if (scopeId === null || scopeId === undefined) continue;
    const entry = el.nodeMap.get(scopeId);
    if (!entry) continue;
    const cid = `c:${entry.uid}`;
    if (clusters.has(cid)) g.setParent(n.uid, cid);
  }
  for (const [cid, entry] of clusters) {
    const parentScope = entry.scope;
    if (parentScope === null || parentScope === undefined) continue;
    const pe = el.nodeMap.get(parentScope);
    if (pe && clusters.has(`c:${pe.uid}`)) g.setParent(cid, `c:${pe.uid}`);
  }
  const drawn = [];
  const pairSeen = new Set();
  for (const e of el.edges) {
    const s = visibleRep(e.src, collapsed), d = visibleRep(e.dst, collapsed);
    if (s === d) continue;
    const pair = `${s.uid}|${d.uid}`;
    const rep = s === e.src && d === e.dst;
    if (!rep && pairSeen.has(pair)) continue;
    pairSeen.add(pair);
    g.setEdge(s.uid, d.uid, {}, e.uid);
    drawn.push([e, s, d, rep]);
  }
  dagre.layout(g);
  const gg = g.graph();
  const ox = PAD, oy = HEADER;
  for (const [cid, entry] of clusters) {
    const c = g.node(cid);
    if (!c || !c.width) continue;
    const cb = new Box(entry, c.width, c.height, 'scope');
    cb.x = c.x - c.width / 2 + ox;
    cb.y = c.y - c.height / 2 + oy;
    cb.scopeOf = entry;
    cb.container = true;
    box.inner.push(cb);
  }
  for (const [n, b] of inner) {
    const p = g.node(n.uid);
    b.x = p.x - b.w / 2 + ox;
    b.y = p.y - b.h / 2 + oy;
    box.inner.push(b);
  }
  for (const [e, s, d, rep] of drawn) {
    const ge = g.edge({ v: s.uid, w: d.uid, name: e.uid });
    if (!ge) continue;
    box.edges.push({ el: e, points: ge.points.map((p) => ({ x: p.x + ox, y: p.y + oy })), merged: !rep });
  }
  box.w = Math.max(gg.width + 2 * PAD, textWidth(el.label) + 2 * PAD + 20);
  box.h = gg.height + HEADER + PAD;
  return box;
}
