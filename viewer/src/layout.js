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
  g.setGraph({ rankdir: 'TB', nodesep: NODESEP, ranksep: RANKSEP, edgesep: 12, marginx: MARGIN, marginy: MARGIN });
  g.setDefaultEdgeLabel(() => ({}));
  return g;
}

const MARGIN = 8, RANKSEP = 36, NODESEP = 24;
// Edge labels: 10px monospace, placed this far right of their edge.
const LABEL_CHAR_W = 6.1, LABEL_H = 12, LABEL_OFFSET = 4;
const labelWidth = (s) => Math.ceil(s.length * LABEL_CHAR_W);

// Straight chains (every node with at most one distinct successor and predecessor, no cycle),
// the common case of scopes and straight-line control flow, placed directly: dagre costs a few
// milliseconds per graph even for three nodes. Returns null for any other graph.
function chainLayout(sizes, edges) {
  const n = sizes.length;
  const next = new Array(n).fill(-1), prev = new Array(n).fill(-1);
  for (const e of edges) {
    if (e.v === e.w) return null;
    if ((next[e.v] !== -1 && next[e.v] !== e.w) || (prev[e.w] !== -1 && prev[e.w] !== e.v)) return null;
    next[e.v] = e.w;
    prev[e.w] = e.v;
  }
  // Several labelled edges between the same two nodes are stacked below each other.
  const gapAfter = new Array(n).fill(RANKSEP);
  const labelAfter = new Array(n).fill(0);
  const labelRow = new Map();
  const rows = new Array(n).fill(0);
  for (const e of edges) {
    if (!e.labelH) continue;
    labelRow.set(e.name, rows[e.v]++);
    gapAfter[e.v] = RANKSEP + rows[e.v] * e.labelH;
    labelAfter[e.v] = Math.max(labelAfter[e.v], e.labelW);
  }
  const pos = new Array(n);
  let x = MARGIN, height = 0, seen = 0;
  for (let s = 0; s < n; s++) {
    if (prev[s] !== -1) continue;
    // The column is wide enough for its nodes and for the edge labels right of its centre line.
    let w = 0;
    for (let v = s; v !== -1; v = next[v]) w = Math.max(w, sizes[v].width, 2 * (labelAfter[v] + LABEL_OFFSET));
    let y = MARGIN;
    for (let v = s; v !== -1; v = next[v]) {
      pos[v] = { x: x + w / 2, y: y + sizes[v].height / 2 };
      y += sizes[v].height + (next[v] !== -1 ? gapAfter[v] : 0);
      seen++;
    }
    height = Math.max(height, y);
    x += w + NODESEP;
  }
  if (seen !== n) return null; // a cycle
  const edgeOut = new Map();
  for (const e of edges) {
    const a = pos[e.v], b = pos[e.w];
    const p0 = { x: a.x, y: a.y + sizes[e.v].height / 2 }, p1 = { x: b.x, y: b.y - sizes[e.w].height / 2 };
    const y = labelRow.has(e.name) ? p0.y + RANKSEP / 2 + (labelRow.get(e.name) + 0.5) * e.labelH : (p0.y + p1.y) / 2;
    edgeOut.set(e.name, { points: [p0, p1], x: p0.x + LABEL_OFFSET + (e.labelW ?? 0) / 2, y });
  }
  return { nodes: pos, edges: edgeOut, width: x - NODESEP + MARGIN, height: height + MARGIN };
}

/**
 * Layered layout of nodes `sizes` ({width, height}) and edges ({v, w, name, labelW, labelH},
 * v and w indices): {nodes: [{x, y}] (centers), edges: Map name -> {points, x, y}, width, height}.
 */
function runLayout(sizes, edges) {
  const chain = chainLayout(sizes, edges);
  if (chain) return chain;
  const g = graph(false);
  sizes.forEach((sz, i) => g.setNode(String(i), { width: sz.width, height: sz.height }));
  // Labels right of their edge (dagre reserves their box, so no two labels overlap and none
  // leaves the graph's bounds); x, y: the label's centre.
  for (const e of edges) g.setEdge(String(e.v), String(e.w), { width: e.labelW ?? 0, height: e.labelH ?? 0, labelpos: 'r', labeloffset: LABEL_OFFSET }, e.name);
  dagre.layout(g, { disableOptimalOrderHeuristic: fastOrder });
  const gg = g.graph();
  const edgeOut = new Map();
  for (const e of edges) {
    const ge = g.edge({ v: String(e.v), w: String(e.w), name: e.name });
    if (ge) edgeOut.set(e.name, { points: ge.points, x: ge.x, y: ge.y });
  }
  return { nodes: sizes.map((_, i) => g.node(String(i))), edges: edgeOut, width: gg.width, height: gg.height };
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
// Level of detail of the layout itself: above this many dataflow nodes dagre keeps its first
// node order instead of sweeping for fewer crossings (a third of the layout time).
const FAST_ORDER_NODES = 1500;
let fastOrder = false;

// An overlay's badge drawn right of a node (render.js): the layout reserves its room on both
// sides of the node (dagre places centres), so a badge stays inside its state's box.
let badgeOf = null;
const BADGE_CHAR_W = 6.1; // 600 10px monospace (style.css .badge)
const BADGE_GAP = 6; // render.js: the badge starts 6 px right of its box

/** Room a node's badge takes right of the node, 0 without one. */
function badgeRoom(el) {
  const badge = badgeOf?.(el);
  return badge ? Math.ceil(String(badge).length * BADGE_CHAR_W) + BADGE_GAP : 0;
}

/** `badges` (optional): element -> the short text an overlay draws right of it, or nothing. */
export function layoutModel(model, collapsed, badges = null) {
  badgeOf = badges;
  fastOrder = model.all.filter((e) => e.state && e.kind !== 'memlet').length > FAST_ORDER_NODES;
  const boxes = [], edges = [];
  const top = sdfgBox(model.root, collapsed);
  flatten(top, 0, 0, 0, boxes, edges);
  fixEnds(boxes, edges);
  return { width: top.w, height: top.h, boxes, edges };
}

function flatten(box, ox, oy, depth, boxes, edges) {
  const x = ox + box.x, y = oy + box.y;
  boxes.push({ el: box.el, x, y, w: box.w, h: box.h, shape: box.shape, container: box.inner.length > 0 || box.container, depth, collapsed: box.collapsed });
  for (const e of box.edges) {
    const label = e.label ? { x: e.label.x + x, y: e.label.y + y } : null;
    edges.push({ el: e.el, points: e.points.map((p) => ({ x: p.x + x, y: p.y + y })), label, text: e.text ?? '', fix: e.fix });
  }
  for (const c of box.inner) flatten(c, x, y, depth + 1, boxes, edges);
}

// Edges laid out to a scope box end at the node inside it (the entry at its top, the exit at its bottom).
function fixEnds(boxes, edges) {
  const at = new Map();
  for (const b of boxes) if (b.shape !== 'scope') at.set(b.el, b);
  for (const e of edges) {
    const f = e.fix;
    if (!f) continue;
    if (f.fixSrc && at.has(f.src)) {
      const b = at.get(f.src);
      e.points[0] = { x: b.x + b.w / 2, y: b.y + b.h };
    }
    if (f.fixDst && at.has(f.dst)) {
      const b = at.get(f.dst);
      e.points[e.points.length - 1] = { x: b.x + b.w / 2, y: b.y };
    }
  }
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
  const edges = el.edges.map((e, i) => {
    const lbl = clip(e.label || '', 40);
    return { v: el.children.indexOf(e.src), w: el.children.indexOf(e.dst), name: `e${i}`, text: lbl, labelW: lbl ? labelWidth(lbl) : 0, labelH: lbl ? LABEL_H : 0 };
  });
  const L = runLayout(blocks.map((b) => ({ width: b.w, height: b.h })), edges);
  blocks.forEach((b, i) => {
    const n = L.nodes[i];
    b.x = n.x - b.w / 2 + PAD;
    b.y = n.y - b.h / 2 + header;
  });
  el.edges.forEach((e, i) => {
    const ge = L.edges.get(`e${i}`);
    if (!ge) return;
    box.edges.push({ el: e, points: ge.points.map((p) => ({ x: p.x + PAD, y: p.y + header })), label: { x: ge.x + PAD, y: ge.y + header }, text: edges[i].text });
  });
  const gg = L;
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

// The label of each memlet drawn at one level ({src, dst, e}): its memlet, clipped; where more
// than three memlets join the same two nodes (one node read at several offsets), the first says
// how many there are and the others have none. Sets text, labelW and labelH, which the layout
// reserves room for.
function memletLabels(drawn) {
  const groups = new Map();
  for (const d of drawn) {
    const k = `${d.src.uid}|${d.dst.uid}`;
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k).push(d);
  }
  for (const group of groups.values())
    group.forEach((d, i) => {
      const own = d.e.label ? shownLabel(d.e) : '';
      d.text = group.length <= 3 ? own : i === 0 && own ? `${own}  (+${group.length - 1} memlets)` : '';
      d.labelW = d.text ? labelWidth(d.text) : 0;
      d.labelH = d.text ? LABEL_H : 0;
    });
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

// One state's dataflow graph. Each expanded map scope is laid out as its own graph (entry,
// contents, exit) and placed as one box in the graph around it, inside out; nested SDFGs are
// boxes sized by their own layout. (dagre's compound graphs do the same in one graph, but cost
// seconds at a few thousand nodes.) An edge that enters or leaves a scope box is laid out to the
// box and then attached to the node inside (fixEnds).
function stateBox(el, collapsed) {
  const box = new Box(el, 0, 0, 'state');
  box.container = true;
  if (el.children.length === 0) {
    box.w = textWidth(el.label) + 2 * PAD + 20;
    box.h = HEADER + 16;
    return box;
  }
  const expanded = (n) => n.kind === 'map_entry' && !!n.exit && !collapsed.has(n.uid);
  // The scope (entry id, null: the state) whose graph a visible node is laid out in.
  const home = (n) => (expanded(n) ? n.nodeId : n.kind === 'map_exit' && n.entry && expanded(n.entry) ? n.entry.nodeId : n.scope ?? null);
  const visible = el.children.filter((n) => visibleRep(n, collapsed) === n);
  const byHome = new Map();
  for (const n of visible) {
    const h = home(n);
    if (!byHome.has(h)) byHome.set(h, []);
    byHome.get(h).push(n);
  }
  const scopeBoxes = new Map(); // entry el -> its scope Box
  // What stands for node `n` in the graph of scope `level`: n, the box of a scope holding it, or null.
  const repAt = (n, level) => {
    const h = home(n);
    if (h === level) return n;
    let entry = el.nodeMap.get(h);
    while (entry) {
      if ((entry.scope ?? null) === level) return scopeBoxes.get(entry) ?? null;
      entry = el.nodeMap.get(entry.scope);
    }
    return null;
  };
  const edgeEnds = el.edges.map((e) => [e, visibleRep(e.src, collapsed), visibleRep(e.dst, collapsed)]);

  function layoutLevel(level) {
    const members = byHome.get(level) ?? [];
    const items = [];
    const idOf = new Map();
    const addItem = (key, b) => {
      idOf.set(key, items.length);
      items.push(b);
    };
    for (const n of members) {
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
      addItem(n, b);
    }
    // Scopes directly inside this one.
    for (const n of visible)
      if (expanded(n) && (n.scope ?? null) === level) {
        const sb = layoutLevel(n.nodeId);
        sb.el = n;
        sb.shape = 'scope';
        sb.container = true;
        scopeBoxes.set(n, sb);
        addItem(sb, sb);
      }
    const drawn = [];
    const pairSeen = new Set();
    for (const [e, s, d] of edgeEnds) {
      if (s === d) continue;
      const rs = repAt(s, level), rd = repAt(d, level);
      if (!rs || !rd || rs === rd) continue;
      const exact = s === e.src && d === e.dst;
      const pair = `${s.uid}|${d.uid}`;
      if (!exact && pairSeen.has(pair)) continue;
      pairSeen.add(pair);
      drawn.push({ e, v: idOf.get(rs), w: idOf.get(rd), name: e.uid, src: s, dst: d, fixSrc: rs !== s, fixDst: rd !== d, exact });
    }
    memletLabels(drawn);
    const room = (b) => (b.el && b.shape !== 'scope' ? badgeRoom(b.el) : 0);
    const L = runLayout(items.map((b) => ({ width: b.w + 2 * room(b), height: b.h })), drawn);
    const out = new Box(null, L.width, L.height, 'scope');
    items.forEach((b, i) => {
      const p = L.nodes[i];
      b.x = p.x - b.w / 2;
      b.y = p.y - b.h / 2;
    });
    out.inner = items;
    for (const d of drawn) {
      const ge = L.edges.get(d.name);
      if (ge) out.edges.push({ el: d.e, points: ge.points.map((p) => ({ x: p.x, y: p.y })), merged: !d.exact, fix: d, text: d.text, label: d.text ? { x: ge.x, y: ge.y } : null });
    }
    return out;
  }

  const top = layoutLevel(null);
  for (const b of top.inner) {
    b.x += PAD;
    b.y += HEADER;
  }
  box.inner = top.inner;
  const shift = (p) => ({ x: p.x + PAD, y: p.y + HEADER });
  box.edges = top.edges.map((e) => ({ ...e, points: e.points.map(shift), label: e.label ? shift(e.label) : null }));
  box.w = Math.max(top.w + 2 * PAD, textWidth(el.label) + 2 * PAD + 20);
  box.h = top.h + HEADER + PAD;
  return box;
}
