// Draws a layout (layout.js) as SVG: boxes with their labels as SVG text (so that the browser's
// find and the tests read what is drawn), edges with memlet labels, zoom and pan, a minimap, and
// level of detail (labels are dropped below a zoom level, so 1,000s of nodes pan smoothly).
import { shownLabel, collapsible } from './layout.js';

const NS = 'http://www.w3.org/2000/svg';

const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function shapeMarkup(b) {
  const { x, y, w, h } = b;
  const r = (cls, rx = 0) => `<rect class="${cls}" x="${x}" y="${y}" width="${w}" height="${h}" rx="${rx}"/>`;
  switch (b.shape) {
    case 'access': return `<ellipse class="shape" cx="${x + w / 2}" cy="${y + h / 2}" rx="${w / 2}" ry="${h / 2}"/>`;
    case 'tasklet': {
      const c = 8;
      const pts = [[x + c, y], [x + w - c, y], [x + w, y + c], [x + w, y + h - c], [x + w - c, y + h], [x + c, y + h], [x, y + h - c], [x, y + c]];
      return `<polygon class="shape" points="${pts.map((p) => p.join(',')).join(' ')}"/>`;
    }
    case 'map_entry': {
      const pts = [[x + 10, y], [x + w - 10, y], [x + w, y + h], [x, y + h]];
      return `<polygon class="shape" points="${pts.map((p) => p.join(',')).join(' ')}"/>`;
    }
    case 'map_exit': {
      const pts = [[x, y], [x + w, y], [x + w - 10, y + h], [x + 10, y + h]];
      return `<polygon class="shape" points="${pts.map((p) => p.join(',')).join(' ')}"/>`;
    }
    case 'scope': return r('shape', 6);
    case 'state': case 'sdfg': case 'nested': case 'loop': case 'conditional': case 'branch': case 'region':
      return r('shape', 4);
    default: return r('shape', 2);
  }
}

function boxMarkup(b, classesOf, badgeOf) {
  const el = b.el;
  const extra = classesOf(el);
  if (b.shape === 'scope') return `<g class="scope${extra}" data-scope="${esc(el.uid)}">${shapeMarkup(b)}</g>`;
  const kind = b.container ? `container ${b.shape}` : `leaf ${b.shape}`;
  let s = `<g class="el ${kind}${b.collapsed ? ' collapsed' : ''}${extra}" data-uid="${esc(el.uid)}">`;
  s += shapeMarkup(b);
  const label = el.kind === 'nested' && el.nested ? el.label : shownLabel(el);
  if (b.container) {
    s += `<text class="lbl title" x="${b.x + 8}" y="${b.y + 17}">${esc(label)}</text>`;
    if (el.header) s += `<text class="lbl sub" x="${b.x + 8}" y="${b.y + 36}">${esc(el.header)}</text>`;
  } else {
    s += `<text class="lbl" x="${b.x + b.w / 2}" y="${b.y + b.h / 2 + 4}" text-anchor="middle">${esc(label)}</text>`;
  }
  // An overlay's short note on the element (the codegen decisions of a map), right of its box.
  const badge = badgeOf?.(el);
  if (badge) s += `<text class="badge" x="${b.x + b.w + 6}" y="${b.y + b.h / 2 + 4}">${esc(badge)}</text>`;
  if (collapsible(el)) {
    const tx = b.x + b.w - 16, ty = b.y + 3;
    s += `<g class="toggle" data-toggle="${esc(el.uid)}"><rect x="${tx}" y="${ty}" width="13" height="13" rx="2"/>` +
      `<text x="${tx + 6.5}" y="${ty + 10.5}" text-anchor="middle">${b.collapsed ? '+' : '−'}</text></g>`;
  }
  return s + '</g>';
}

function edgeMarkup(e, classesOf) {
  const pts = e.points;
  if (!pts || pts.length < 2) return '';
  const d = 'M' + pts.map((p) => `${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(' L');
  const el = e.el;
  const cls = `${el.kind === 'interstate' ? 'iedge' : 'medge'}${classesOf(el)}`;
  // The whole memlet as a tooltip: the drawn label may be shortened or summarized.
  const tip = el.label ? `<title>${esc(el.label)}</title>` : '';
  let s = `<g class="edge ${cls}" data-uid="${esc(el.uid)}">${tip}<path d="${d}" marker-end="url(#arrow)"/><path class="hit" d="${d}"/>`;
  // The label where the layout reserved room for it (its centre), or at the middle of the edge.
  if (e.text) {
    const p = e.label ?? pts[Math.floor(pts.length / 2)];
    s += `<text class="elbl" x="${p.x.toFixed(1)}" y="${(p.y + 4).toFixed(1)}" text-anchor="middle">${esc(e.text)}</text>`;
  }
  return s + '</g>';
}

/**
 * The graph view inside `host`: render(layout, classesOf) draws; onSelect(uid), onToggle(uid)
 * are called on clicks. Zoom with the wheel, pan by dragging, `fit()` shows everything.
 */
export class GraphView {
  constructor(host, minimapHost, { onSelect, onToggle }) {
    this.host = host;
    this.minimapHost = minimapHost;
    this.onSelect = onSelect;
    this.onToggle = onToggle;
    this.scale = 1;
    this.tx = 0;
    this.ty = 0;
    this.svg = document.createElementNS(NS, 'svg');
    this.svg.setAttribute('class', 'graph');
    this.svg.innerHTML = '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"/></marker></defs><g class="viewport"></g>';
    this.viewport = this.svg.querySelector('.viewport');
    host.appendChild(this.svg);
    this.mini = document.createElementNS(NS, 'svg');
    this.mini.setAttribute('class', 'minimap');
    minimapHost.appendChild(this.mini);
    this.bindEvents();
  }

  bindEvents() {
    let drag = null;
    this.svg.addEventListener('pointerdown', (ev) => {
      if (ev.button !== 0) return;
      drag = { x: ev.clientX, y: ev.clientY, tx: this.tx, ty: this.ty, moved: false };
    });
    window.addEventListener('pointermove', (ev) => {
      if (!drag) return;
      const dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
      if (drag.moved) {
        this.tx = drag.tx + dx;
        this.ty = drag.ty + dy;
        this.applyTransform();
      }
    });
    window.addEventListener('pointerup', (ev) => {
      const d = drag;
      drag = null;
      if (!d || d.moved) return;
      const t = ev.target instanceof Element ? ev.target : null;
      const toggle = t?.closest('[data-toggle]');
      if (toggle) return this.onToggle(toggle.getAttribute('data-toggle'));
      const hit = t?.closest('[data-uid]');
      if (hit && this.svg.contains(hit)) this.onSelect(hit.getAttribute('data-uid'));
    });
    this.svg.addEventListener('dblclick', (ev) => {
      const hit = ev.target instanceof Element ? ev.target.closest('[data-uid]') : null;
      if (hit) this.onToggle(hit.getAttribute('data-uid'));
    });
    this.svg.addEventListener('wheel', (ev) => {
      ev.preventDefault();
      const rect = this.svg.getBoundingClientRect();
      const mx = ev.clientX - rect.left, my = ev.clientY - rect.top;
      const f = Math.exp(-ev.deltaY * 0.0015);
      this.zoomAt(mx, my, f);
    }, { passive: false });
    const miniNav = (ev) => {
      const r = this.mini.getBoundingClientRect();
      if (!this.layout || !r.width) return;
      const k = Math.max(this.layout.width / r.width, this.layout.height / r.height);
      const gx = (ev.clientX - r.left) * k, gy = (ev.clientY - r.top) * k;
      const vr = this.svg.getBoundingClientRect();
      this.tx = vr.width / 2 - gx * this.scale;
      this.ty = vr.height / 2 - gy * this.scale;
      this.applyTransform();
    };
    let miniDrag = false;
    this.mini.addEventListener('pointerdown', (ev) => { miniDrag = true; miniNav(ev); });
    window.addEventListener('pointermove', (ev) => { if (miniDrag) miniNav(ev); });
    window.addEventListener('pointerup', () => { miniDrag = false; });
  }

  zoomAt(mx, my, f) {
    const s = Math.min(8, Math.max(this.minScale ?? 0.02, this.scale * f));
    const k = s / this.scale;
    this.tx = mx - (mx - this.tx) * k;
    this.ty = my - (my - this.ty) * k;
    this.scale = s;
    this.applyTransform();
  }

  applyTransform() {
    this.viewport.setAttribute('transform', `translate(${this.tx.toFixed(1)},${this.ty.toFixed(1)}) scale(${this.scale.toFixed(4)})`);
    // Level of detail: text is unreadable below these scales; dropping it keeps panning smooth.
    const lod = this.scale < 0.3 ? 'lod-low' : this.scale < 0.6 ? 'lod-mid' : 'lod-high';
    if (this.svg.getAttribute('data-lod') !== lod) this.svg.setAttribute('data-lod', lod);
    this.updateMiniViewport();
  }

  fit() {
    if (!this.layout) return;
    const r = this.svg.getBoundingClientRect();
    const w = r.width || 800, h = r.height || 600;
    // The whole graph, however small that makes it (level of detail drops what is unreadable;
    // zoom in from there), and never above 150%.
    const s = Math.min(w / (this.layout.width + 40), h / (this.layout.height + 40), 1.5);
    this.scale = s;
    this.minScale = Math.min(0.02, s / 2);
    this.tx = (w - this.layout.width * s) / 2;
    this.ty = (h - this.layout.height * s) / 2;
    this.applyTransform();
  }

  /** Centers the view on element `uid` (if drawn) without changing the zoom below readable. */
  focus(uid) {
    const b = this.boxByUid.get(uid);
    if (!b) return false;
    const r = this.svg.getBoundingClientRect();
    if (this.scale < 0.6) this.scale = 0.8;
    this.tx = r.width / 2 - (b.x + b.w / 2) * this.scale;
    this.ty = r.height / 2 - (b.y + b.h / 2) * this.scale;
    this.applyTransform();
    return true;
  }

  render(layout, classesOf, badgeOf = null) {
    this.layout = layout;
    this.boxByUid = new Map();
    const containers = [], leaves = [];
    for (const b of layout.boxes) {
      if (b.shape !== 'scope') this.boxByUid.set(b.el.uid, b);
      (b.container ? containers : leaves).push(b);
    }
    containers.sort((a, b) => a.depth - b.depth);
    const parts = [];
    for (const b of containers) parts.push(boxMarkup(b, classesOf, badgeOf));
    for (const e of layout.edges) parts.push(edgeMarkup(e, classesOf));
    for (const b of leaves) parts.push(boxMarkup(b, classesOf, badgeOf));
    this.viewport.innerHTML = parts.join('');
    this.renderMinimap();
  }

  /** Re-applies highlight classes without a new layout (selection, search). */
  mark(uids, cls) {
    for (const n of this.viewport.querySelectorAll(`.${cls}`)) n.classList.remove(cls);
    for (const uid of uids) {
      const n = this.viewport.querySelector(`[data-uid="${CSS.escape(uid)}"]`);
      if (n) n.classList.add(cls);
    }
  }

  renderMinimap() {
    const L = this.layout;
    this.mini.setAttribute('viewBox', `0 0 ${L.width} ${L.height}`);
    const parts = [];
    for (const b of L.boxes) {
      if (b.shape === 'scope') continue;
      parts.push(`<rect class="m-${b.container ? 'c' : 'n'}" x="${b.x}" y="${b.y}" width="${b.w}" height="${b.h}"/>`);
    }
    parts.push('<rect class="m-view" x="0" y="0" width="0" height="0"/>');
    this.mini.innerHTML = parts.join('');
    this.miniView = this.mini.querySelector('.m-view');
    this.updateMiniViewport();
  }

  updateMiniViewport() {
    if (!this.miniView) return;
    const r = this.svg.getBoundingClientRect();
    const x = -this.tx / this.scale, y = -this.ty / this.scale;
    this.miniView.setAttribute('x', x);
    this.miniView.setAttribute('y', y);
    this.miniView.setAttribute('width', Math.max(0, r.width / this.scale));
    this.miniView.setAttribute('height', Math.max(0, r.height / this.scale));
  }
}
