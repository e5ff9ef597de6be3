// weir's SDFG viewer: the page `weir view` serves or writes as one HTML file. The C++ side puts
// the documents in <script id="weir-data" type="application/json">: {title, sdfg, compare,
// compareTitle, history: {entries, snapshots, error}, sources: {path: text}, diagnostics,
// overlays: {static, profile}}.
// Without it (the page opened by itself) a file chooser loads a .sdfg file.
import { buildModel, debugsOf } from './model.js';
import { layoutModel, collapsible } from './layout.js';
import { GraphView } from './render.js';
import { diffModels } from './diff.js';
import { overlayMetrics, overlayValues, legendHtml, overlayRows } from './overlay.js';
import { mapDecisions, DECISION_CATEGORIES } from './decisions.js';
import { propertiesHtml, containersHtml, symbolsHtml, sourceHtml, esc, kindName } from './panel.js';
import './style.css';

const $ = (sel) => document.querySelector(sel);

const OUTLINE_KINDS = new Set(['sdfg', 'state', 'loop', 'conditional', 'branch', 'region', 'break', 'continue', 'return', 'access', 'tasklet', 'map_entry', 'nested', 'library', 'node']);

class Viewer {
  constructor(data) {
    this.data = data;
    this.collapsedKeys = new Set();
    this.selected = null;
    this.mode = 'main'; // 'main' | 'history' | 'compare'
    this.step = 0;
    this.showBefore = false;
    this.compareSide = 'B';
    this.srcLine = null;
    this.graph = new GraphView($('#graph'), $('#minimap'), {
      onSelect: (uid) => this.select(uid, { focus: false }),
      onToggle: (uid) => this.toggle(uid),
    });
    this.diags = data.diagnostics || [];
    this.overlays = data.overlays || {};
    this.metrics = overlayMetrics(this.overlays);
    this.overlay = null; // the id of the metric shown, or null
    this.buildChrome();
  }

  // ---------------------------------------------------------------- documents

  /** The SDFG JSON shown now and the diff marks on it. */
  current() {
    const d = this.data;
    if (this.mode === 'history') {
      const snaps = d.history.snapshots;
      const k = this.step;
      if (k === 0) return { json: snaps[0], title: 'original SDFG (before step 1)' };
      const after = this.showBefore ? snaps[k - 1] : snaps[k];
      return { json: after, title: `${this.showBefore ? 'before' : 'after'} step ${k}`, diffWith: [snaps[k - 1], snaps[k]] };
    }
    if (this.mode === 'compare') {
      const side = this.compareSide;
      return { json: side === 'A' ? d.sdfg : d.compare, title: side === 'A' ? d.title : d.compareTitle, diffWith: [d.sdfg, d.compare] };
    }
    return { json: d.sdfg, title: d.title };
  }

  modelOf(json) {
    this.models ??= new Map();
    let m = this.models.get(json);
    if (!m) {
      m = buildModel(json);
      this.models.set(json, m);
    }
    return m;
  }

  load() {
    const t0 = performance.now();
    const cur = this.current();
    this.model = this.modelOf(cur.json);
    this.marks = new Map();
    this.changes = null;
    this.unrelated = '';
    if (cur.diffWith) {
      const [a, b] = cur.diffWith.map((j) => this.modelOf(j));
      const diff = diffModels(a, b);
      const before = cur.json === cur.diffWith[0] && (this.mode === 'compare' ? this.compareSide === 'A' : true);
      this.marks = before ? diff.inA : diff.inB;
      this.changes = diff.changes;
      this.unrelated = diff.unrelated;
    }
    this.diagEls = this.mapDiagnostics();
    this.locateOverlays();
    const t1 = performance.now();
    this.relayout();
    const t2 = performance.now();
    this.renderOutline();
    this.renderTabs();
    $('#doc-title').textContent = cur.title || '';
    this.graph.fit();
    const ms = performance.now() - t0;
    document.body.dataset.renderMs = ms.toFixed(1);
    document.body.dataset.nodes = String(this.model.all.filter((e) => e.state && e.kind !== 'memlet').length);
    window.weirViewer.renderMs = ms;
    window.weirViewer.timings = { model: t1 - t0, layoutAndSvg: t2 - t1, panels: performance.now() - t2 };
    window.weirViewer.ready = true;
  }

  relayout() {
    const collapsed = new Set(this.model.all.filter((e) => this.collapsedKeys.has(e.key)).map((e) => e.uid));
    const t0 = performance.now();
    const badges = this.overlay === 'decisions' ? (el) => this.decisionsOf(el)?.badge : null;
    this.layout = layoutModel(this.model, collapsed, badges);
    window.weirViewer.layoutMs = performance.now() - t0;
    this.collapsed = collapsed;
    this.graph.render(this.layout, (el) => this.classesOf(el), badges);
    if (this.selected) this.graph.mark([this.selected.uid], 'selected');
    this.applySearch(false);
  }

  classesOf(el) {
    let c = '';
    const m = this.marks.get(el.uid);
    if (m) c += ` d-${m}`;
    if (this.diagEls.has(el.uid)) c += ' invalid';
    const ov = this.ovValues?.byUid.get(el.uid);
    if (ov && this.ovValues.scale) c += ` ov ov-${this.ovValues.scale.bucket(ov.value)}`;
    if (this.overlay === 'decisions') {
      const d = this.decisionsOf(el);
      if (d) c += ` dc dc-${d.category}`;
    }
    return c;
  }

  /** The recorded codegen decisions of map entry `el` (decisions.js), cached per element; null for others. */
  decisionsOf(el) {
    if (el.kind !== 'map_entry') return null;
    this.decisionCache ??= new WeakMap();
    if (!this.decisionCache.has(el)) this.decisionCache.set(el, mapDecisions(el));
    return this.decisionCache.get(el);
  }

  /** The legend of the decisions overlay: a colour per category with the number of maps in it. */
  decisionsLegend() {
    const counts = new Map();
    for (const el of this.model.all) {
      const d = this.decisionsOf(el);
      if (d) counts.set(d.category, (counts.get(d.category) ?? 0) + 1);
    }
    const items = DECISION_CATEGORIES.map(([id, label]) => `<span class="dc-item"><span class="dc-swatch dc-${id}"></span>${esc(label)} ${counts.get(id) ?? 0}</span>`);
    return `<span class="ov-title">codegen decisions of each map</span> ${items.join(' ')} <span class="muted">(recorded in the SDFG; select a map for the details)</span>`;
  }

  // ---------------------------------------------------------------- overlays

  /** The viewer element of an overlay entry (located as validation problems are), or null. */
  locateEntry(entry) {
    const el = this.findDiagElement({ sdfg: entry.sdfg, block_path: entry.block_path, node: entry.node, edge: entry.edge });
    return el && el.kind !== 'sdfg' ? el : null;
  }

  /** Overlay entries by element uid (main SDFG only: the entries name its elements), and the active overlay's values. */
  locateOverlays() {
    this.ovEntries = new Map();
    this.ovValues = null;
    const main = this.mode === 'main';
    if (main) {
      for (const source of ['profile', 'static']) {
        for (const entry of this.overlays[source]?.elements ?? []) {
          const el = this.locateEntry(entry);
          if (!el) continue;
          if (!this.ovEntries.has(el.uid)) this.ovEntries.set(el.uid, {});
          this.ovEntries.get(el.uid)[source] = entry;
        }
      }
    }
    const metric = this.metrics.find((m) => m.id === this.overlay);
    const legend = $('#ov-legend');
    if (this.overlay === 'decisions') {
      // Read from the SDFG shown, so also in history and comparison.
      if (legend) {
        legend.innerHTML = this.decisionsLegend();
        legend.hidden = false;
      }
      document.body.dataset.overlay = 'decisions';
      return;
    }
    if (metric && main) {
      this.ovValues = overlayValues(this.overlays, metric, (e) => this.locateEntry(e));
      if (legend) legend.innerHTML = legendHtml(metric, this.ovValues);
    } else if (legend) {
      legend.innerHTML = metric ? '<span class="muted">overlays show on the SDFG (not in history or comparison)</span>' : '';
    }
    if (legend) legend.hidden = !metric;
    document.body.dataset.overlay = metric && main ? metric.id : '';
  }

  setOverlay(id) {
    this.overlay = id || null;
    this.locateOverlays();
    this.relayout();
    this.renderTabs();
  }

  // ---------------------------------------------------------------- validation problems

  mapDiagnostics() {
    const out = new Map();
    for (const d of this.diags) {
      const el = this.findDiagElement(d) ?? this.model.root;
      if (!out.has(el.uid)) out.set(el.uid, []);
      out.get(el.uid).push(d);
      d.uid = el.uid;
    }
    return out;
  }

  findDiagElement(d) {
    const inSdfg = this.model.all.filter((e) => e.sdfg && (!d.sdfg || e.sdfg.sdfgName === d.sdfg));
    const path = d.block_path ?? '';
    if (d.node >= 0) {
      const n = inSdfg.find((e) => e.state && e.kind !== 'memlet' && e.blockPath === path && e.nodeId === d.node);
      if (n) return n;
    }
    if (d.edge >= 0) {
      const e = inSdfg.find((x) => x.kind === 'memlet' && x.blockPath === path && x.index === d.edge);
      if (e) return e;
    }
    if (path) {
      const b = inSdfg.find((x) => !x.state && x.kind !== 'interstate' && x.kind !== 'sdfg' && x.blockPath === path);
      if (b) return b;
    }
    return inSdfg.find((x) => x.kind === 'sdfg');
  }

  // ---------------------------------------------------------------- interaction

  toggle(uid) {
    const el = this.model.byUid.get(uid);
    if (!el || !collapsible(el)) return;
    if (this.collapsedKeys.has(el.key)) this.collapsedKeys.delete(el.key);
    else this.collapsedKeys.add(el.key);
    this.relayout();
  }

  setAllCollapsed(on) {
    this.collapsedKeys.clear();
    if (on) for (const el of this.model.all) if (collapsible(el) && el.kind !== 'sdfg' && (el.kind === 'state' || el.kind === 'nested' || el.kind === 'map_entry')) this.collapsedKeys.add(el.key);
    this.relayout();
    this.graph.fit();
  }

  /** Expands every collapsed element around `el` so that it is drawn. */
  reveal(el) {
    let changed = false;
    const open = (x) => {
      if (this.collapsedKeys.delete(x.key)) changed = true;
    };
    for (let p = el.parent; p; p = p.parent) open(p);
    if (el.state) {
      let s = el.kind === 'map_exit' && el.entry ? el.entry.scope : el.scope;
      if (el.kind === 'map_exit' && el.entry) open(el.entry);
      while (s !== null && s !== undefined) {
        const e = el.state.nodeMap.get(s);
        if (!e) break;
        open(e);
        s = e.scope;
      }
    }
    if (changed) this.relayout();
  }

  select(uid, { focus = true } = {}) {
    const el = this.model.byUid.get(uid);
    if (!el) return;
    this.selected = el;
    if (focus) {
      this.reveal(el);
      // An edge has no box: show where it starts.
      if (!this.graph.focus(uid) && el.src) this.graph.focus(el.src.uid);
    }
    this.graph.mark([uid], 'selected');
    for (const r of document.querySelectorAll('#outline .ol-row.selected')) r.classList.remove('selected');
    const row = document.querySelector(`#outline .ol-row[data-uid="${CSS.escape(uid)}"]`);
    if (row) {
      row.classList.add('selected');
      if (focus) row.scrollIntoView({ block: 'nearest' });
    }
    this.renderTabs();
    this.showTab('props');
    if (el.debug) this.showSourceLine(el.debug, false);
  }

  // ---------------------------------------------------------------- outline and search

  renderOutline() {
    const rows = [];
    const walk = (el, depth) => {
      if (OUTLINE_KINDS.has(el.kind)) {
        const label = el.kind === 'sdfg' ? `SDFG ${el.label}` : el.rawLabel ?? el.label;
        rows.push(`<div class="ol-row k-${el.kind}" data-uid="${esc(el.uid)}" style="padding-left:${4 + depth * 12}px" title="${esc(kindName(el.kind))}"><span class="ol-kind">${esc(kindName(el.kind))}</span> <span class="ol-label">${esc(label)}</span></div>`);
      }
      for (const c of el.children) walk(c, depth + 1);
      if (el.nested) walk(el.nested, depth + 1);
    };
    walk(this.model.root, 0);
    $('#outline').innerHTML = rows.join('');
  }

  applySearch(focusFirst) {
    const q = $('#search').value.trim().toLowerCase();
    const rows = document.querySelectorAll('#outline .ol-row');
    const hits = [];
    for (const r of rows) {
      const el = this.model.byUid.get(r.dataset.uid);
      const match = !q || (el.label || '').toLowerCase().includes(q) || (el.rawLabel || '').toLowerCase().includes(q);
      r.classList.toggle('filtered', !match);
      if (q && match) hits.push(el);
    }
    this.hits = hits;
    this.graph.mark(hits.map((e) => e.uid), 'hit');
    $('#search-count').textContent = q ? `${hits.length} match${hits.length === 1 ? '' : 'es'}` : '';
    if (focusFirst && hits.length) {
      this.hitIndex = ((this.hitIndex ?? -1) + 1) % hits.length;
      this.select(hits[this.hitIndex].uid);
      this.graph.mark(hits.map((e) => e.uid), 'hit');
    }
  }

  // ---------------------------------------------------------------- side panel

  showTab(name) {
    for (const t of document.querySelectorAll('#tabs button')) t.classList.toggle('active', t.dataset.tab === name);
    for (const p of document.querySelectorAll('.tab-page')) p.hidden = p.id !== `tab-${name}`;
  }

  sourceKey(file) {
    const src = this.data.sources || {};
    if (file in src) return file;
    const base = file.split('/').pop();
    return Object.keys(src).find((k) => k.split('/').pop() === base) ?? null;
  }

  renderTabs() {
    const el = this.selected && this.model.byUid.get(this.selected.uid) === this.selected ? this.selected : null;
    const sourceLink = (d) => `<a href="#" class="srclink" data-file="${esc(d.file)}" data-line="${d.line}">${d.file ? `${esc(d.file.split('/').pop())}:` : 'line '}${d.line}</a>`;
    $('#tab-props').innerHTML = el ? propertiesHtml(el, { diags: this.diagEls.get(el.uid) ?? [], sourceLink, costs: overlayRows(this.ovEntries?.get(el.uid) ?? {}), decisions: this.decisionsOf(el)?.rows ?? [] }) : '<p class="muted">Click an element (or a row of the outline) to see its properties.</p>';
    const sdfgEl = el?.sdfg ?? this.model.root;
    $('#tab-data').innerHTML = containersHtml(sdfgEl);
    $('#tab-symbols').innerHTML = symbolsHtml(sdfgEl);
    this.renderSource();
    this.renderProblems();
    this.renderChanges();
  }

  renderSource() {
    const src = this.data.sources || {};
    const files = Object.keys(src);
    if (!files.length) {
      $('#tab-source').innerHTML = '<p class="muted">No source: the SDFG has no debuginfo pointing at a file weir could read.</p>';
      return;
    }
    let h = '';
    for (const f of files) {
      const mapped = new Set();
      for (const e of this.model.all)
        for (const d of debugsOf(e)) if (this.sourceKey(d.file) === f) for (let l = d.line; l <= d.endLine; l++) mapped.add(l);
      h += sourceHtml(f, src[f], mapped);
    }
    $('#tab-source').innerHTML = h;
  }

  /** Highlights `debug`'s line in the source pane; `markNodes`: also the nodes that line produced. */
  showSourceLine(debug, markNodes) {
    const key = this.sourceKey(debug.file);
    if (!key) return;
    for (const s of document.querySelectorAll('.src-line.current')) s.classList.remove('current');
    const files = [...document.querySelectorAll('#tab-source .src')];
    const idx = Object.keys(this.data.sources).indexOf(key);
    const line = files[idx]?.querySelector(`.src-line[data-line="${debug.line}"]`);
    if (line) {
      line.classList.add('current');
      line.scrollIntoView({ block: 'center' });
    }
    if (markNodes) {
      const covers = (d) => this.sourceKey(d.file) === key && d.line <= debug.line && debug.line <= d.endLine;
      const uids = this.model.all.filter((e) => debugsOf(e).some(covers)).map((e) => e.uid);
      this.srcHits = uids;
      this.graph.mark(uids, 'srcmatch');
      $('#src-status').textContent = `line ${debug.line}: ${uids.length} element${uids.length === 1 ? '' : 's'}`;
    }
  }

  renderProblems() {
    const n = this.diags.length;
    $('#tabs [data-tab="problems"]').textContent = `Problems (${n})`;
    $('#tab-problems').innerHTML = n ? this.diags.map((d) => `<div class="diag problem" data-uid="${esc(d.uid)}">${esc(d.text || d.message)}</div>`).join('') : '<p class="muted">weir validate finds no problem.</p>';
  }

  renderChanges() {
    const page = $('#tab-changes');
    if (this.mode === 'history') {
      const h = this.data.history;
      let s = `<div class="stepper-list">`;
      s += `<div class="hist-row${this.step === 0 ? ' current' : ''}" data-step="0">0. original</div>`;
      h.entries.forEach((e, i) => {
        const name = e.transformation ?? e.pass ?? e.type;
        s += `<div class="hist-row${this.step === i + 1 ? ' current' : ''}" data-step="${i + 1}">${i + 1}. ${esc(name)}</div>`;
      });
      s += '</div>';
      if (this.step > 0) s += `<h4>step ${this.step} JSON</h4><pre class="code step-json">${esc(JSON.stringify(h.entries[this.step - 1], null, 2))}</pre>`;
      page.innerHTML = s + this.changeList();
    } else if (this.mode === 'compare') {
      page.innerHTML = this.changeList();
    } else {
      page.innerHTML = '<p class="muted">No history or comparison loaded.</p>';
    }
  }

  changeList() {
    if (!this.changes) return '';
    const shown = this.changes.filter((c) => c.kind !== 'sdfg' || c.status !== 'changed');
    const count = (st) => shown.filter((c) => c.status === st).length;
    // Two unrelated programs compare element by element too, but say so first.
    let s = this.unrelated ? `<p class="unrelated">${esc(this.unrelated)}</p>` : '';
    s += `<h4>changes: <span class="d-added-t">${count('added')} added</span>, <span class="d-removed-t">${count('removed')} removed</span>, <span class="d-changed-t">${count('changed')} changed</span>, <span class="d-changed-t">${count('moved')} moved</span></h4><div class="changes">`;
    for (const c of shown.slice(0, 500)) {
      const uid = this.mode === 'compare' ? (this.compareSide === 'A' ? c.uidA : c.uidB) : this.showBefore ? c.uidA : c.uidB;
      const what = c.what?.length ? ` <span class="muted">(${esc(c.what.join(', '))})</span>` : '';
      s += `<div class="change c-${c.status}"${uid ? ` data-uid="${esc(uid)}"` : ''}>${c.status} ${esc(kindName(c.kind))} <b>${esc(c.label)}</b>${what}</div>`;
    }
    return s + '</div>';
  }

  // ---------------------------------------------------------------- chrome

  buildChrome() {
    const d = this.data;
    $('#title').textContent = d.title || 'SDFG';
    document.title = `${d.title || 'SDFG'} — weir view`;
    const bar = $('#modebar');
    let h = '';
    if (d.history?.entries?.length) {
      h += `<span class="group"><button id="mode-history">History</button> <button id="step-prev" title="previous step">◀</button> <span id="step-label"></span> <button id="step-next" title="next step">▶</button> <label><input type="checkbox" id="step-before"> before</label></span>`;
      if (d.history.error) h += ` <span class="warn" title="${esc(d.history.error)}">replay: ${esc(d.history.error)}</span>`;
    }
    if (d.compare) h += `<span class="group"><button id="mode-compare">Compare</button> <button id="side-a">A: ${esc(d.title)}</button> <button id="side-b">B: ${esc(d.compareTitle)}</button></span>`;
    if (h) h = `<span class="group"><button id="mode-main">SDFG</button></span>` + h;
    // The codegen decisions are read from the SDFG itself: always offered.
    const opts = this.metrics.map((m) => `<option value="${esc(m.id)}">${esc(m.label)}</option>`).join('');
    h += `<span class="group"><label>overlay <select id="overlay"><option value="">none</option>${opts}<option value="decisions">codegen decisions</option></select></label></span>`;
    bar.innerHTML = h;
    $('#overlay')?.addEventListener('change', (e) => this.setOverlay(e.target.value));
    const on = (id, f) => $(id)?.addEventListener('click', f);
    on('#mode-main', () => this.setMode('main'));
    on('#mode-history', () => this.setMode('history'));
    on('#mode-compare', () => this.setMode('compare'));
    on('#step-prev', () => this.setStep(this.step - 1));
    on('#step-next', () => this.setStep(this.step + 1));
    $('#step-before')?.addEventListener('change', (e) => {
      this.showBefore = e.target.checked;
      this.load();
    });
    on('#side-a', () => { this.compareSide = 'A'; this.setMode('compare'); });
    on('#side-b', () => { this.compareSide = 'B'; this.setMode('compare'); });
    on('#fit', () => this.graph.fit());
    on('#expand-all', () => this.setAllCollapsed(false));
    on('#collapse-all', () => this.setAllCollapsed(true));
    on('#zoom-in', () => this.graph.zoomAt(this.graph.svg.clientWidth / 2, this.graph.svg.clientHeight / 2, 1.25));
    on('#zoom-out', () => this.graph.zoomAt(this.graph.svg.clientWidth / 2, this.graph.svg.clientHeight / 2, 0.8));
    const search = $('#search');
    search.addEventListener('input', () => { this.hitIndex = -1; this.applySearch(false); });
    search.addEventListener('keydown', (e) => { if (e.key === 'Enter') this.applySearch(true); });
    $('#tabs').addEventListener('click', (e) => { const b = e.target.closest('button'); if (b) this.showTab(b.dataset.tab); });
    document.addEventListener('click', (e) => {
      const t = e.target instanceof Element ? e.target : null;
      const row = t?.closest('#outline .ol-row, .problem, .change[data-uid]');
      if (row) return this.select(row.dataset.uid);
      const link = t?.closest('.srclink');
      if (link) {
        e.preventDefault();
        this.showTab('source');
        return this.showSourceLine({ file: link.dataset.file, line: Number(link.dataset.line) }, true);
      }
      const line = t?.closest('.src-line');
      if (line) {
        const file = Object.keys(this.data.sources)[[...document.querySelectorAll('#tab-source .src')].indexOf(line.closest('.src'))];
        return this.showSourceLine({ file, line: Number(line.dataset.line) }, true);
      }
      const hist = t?.closest('.hist-row');
      if (hist) return this.setStep(Number(hist.dataset.step));
    });
    document.addEventListener('keydown', (e) => {
      if ((e.ctrlKey || e.metaKey) && e.key === 'k') { e.preventDefault(); search.focus(); }
    });
    this.updateModeButtons();
  }

  setMode(mode) {
    this.mode = mode;
    if (mode === 'history' && this.step === 0) this.step = Math.min(1, this.data.history.snapshots.length - 1);
    this.updateModeButtons();
    this.load();
    if (mode !== 'main') this.showTab('changes');
  }

  setStep(k) {
    const n = this.data.history.snapshots.length - 1;
    this.step = Math.max(0, Math.min(n, k));
    this.mode = 'history';
    this.updateModeButtons();
    this.load();
    this.showTab('changes');
  }

  updateModeButtons() {
    for (const [id, m] of [['#mode-main', 'main'], ['#mode-history', 'history'], ['#mode-compare', 'compare']]) $(id)?.classList.toggle('active', this.mode === m);
    $('#side-a')?.classList.toggle('active', this.mode === 'compare' && this.compareSide === 'A');
    $('#side-b')?.classList.toggle('active', this.mode === 'compare' && this.compareSide === 'B');
    const lbl = $('#step-label');
    if (lbl) {
      const h = this.data.history;
      const n = h.snapshots.length - 1;
      const e = this.step > 0 ? h.entries[this.step - 1] : null;
      lbl.textContent = this.mode === 'history' ? `step ${this.step}/${n}${e ? ': ' + (e.transformation ?? e.pass ?? e.type) : ' (original)'}` : `${n} step${n === 1 ? '' : 's'}`;
    }
  }
}

function readData() {
  const tag = document.getElementById('weir-data');
  if (!tag) return null;
  return JSON.parse(tag.textContent);
}

function start(data) {
  const h = data.history;
  if (h && (!h.snapshots || h.snapshots.length === 0)) h.snapshots = [data.sdfg];
  const v = new Viewer(data);
  window.weirViewer.viewer = v;
  // `--compare`: open on the comparison (side B) with its list of changes, not on A alone.
  if (data.compare) v.setMode('compare');
  else v.load();
}

window.weirViewer = { ready: false };
window.addEventListener('DOMContentLoaded', () => {
  try {
    const data = readData();
    if (data) return start(data);
    // Opened without data: load a file the user picks.
    $('#doc-title').innerHTML = '<label>Open an SDFG file (.sdfg JSON): <input type="file" id="file" accept=".sdfg,.json"></label>';
    $('#file').addEventListener('change', async (e) => {
      const f = e.target.files[0];
      if (!f) return;
      start({ title: f.name, sdfg: JSON.parse(await f.text()) });
    });
  } catch (err) {
    $('#doc-title').textContent = `error: ${err.message}`;
    window.weirViewer.error = err.message;
    throw err;
  }
});
