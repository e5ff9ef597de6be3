// The SDFG JSON (DaCe's format, docs: ../shared/spec/sdfg-json.md) as one tree of elements the
// viewer draws, lists, searches, diffs and selects: SDFGs, control-flow blocks, dataflow nodes,
// memlets and interstate edges. Every element has a `uid` (its position in this file: stable for
// one document) and a `key` (what it is: labels and kinds, so that the same element of two
// versions of an SDFG, e.g. before and after a transformation, gets the same key).

const BLOCK_KINDS = {
  SDFGState: 'state',
  LoopRegion: 'loop',
  ConditionalBlock: 'conditional',
  ControlFlowRegion: 'region',
  BreakBlock: 'break',
  ContinueBlock: 'continue',
  ReturnBlock: 'return',
};

const NODE_KINDS = {
  AccessNode: 'access',
  Tasklet: 'tasklet',
  MapEntry: 'map_entry',
  MapExit: 'map_exit',
  ConsumeEntry: 'map_entry',
  ConsumeExit: 'map_exit',
  NestedSDFG: 'nested',
};

/** Text of a DaCe Range/Indices subset: `0:N, i` (DaCe stores inclusive ends). */
export function subsetText(subset) {
  if (!subset) return '';
  if (typeof subset === 'string') return subset;
  if (subset.type === 'Indices' || subset.indices) return (subset.indices || []).map(plainSymbols).join(', ');
  const ranges = subset.ranges || [];
  return ranges.map(rangeText).join(', ');
}

function plusOne(end) {
  const s = String(end).trim();
  if (/^-?\d+$/.test(s)) return String(Number(s) + 1);
  // `X - k` / `X + k` with a trailing constant: fold the + 1 into it.
  const m = /^(.*\S)\s*([-+])\s*(\d+)$/.exec(s);
  if (m && balanced(m[1])) {
    const k = (m[2] === '-' ? -1 : 1) * Number(m[3]) + 1;
    return k === 0 ? m[1] : `${m[1]} ${k < 0 ? '-' : '+'} ${Math.abs(k)}`;
  }
  return `${s} + 1`;
}

/** `symbol($N, dtype=dace.int64)` and `$N` (DaCe 2's symbols in descriptor expressions) as `N`. */
export function plainSymbols(s) {
  return String(s).replace(/symbol\(\$(\w+)(?:,\s*dtype=[\w.]+)?\)/g, '$1').replace(/\$(\w+)/g, '$1');
}

function balanced(s) {
  let depth = 0;
  for (const c of s) {
    if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    if (depth < 0) return false;
  }
  return depth === 0;
}

/** One dimension of a range: `i` for an index, `a:b`, `a:b:s` (exclusive end, as DaCe prints). */
export function rangeText(r) {
  const start = plainSymbols(r.start), end = plainSymbols(r.end), step = plainSymbols(r.step ?? '1');
  if (start === end && step === '1') return start;
  return `${start}:${plusOne(end)}${step !== '1' ? ':' + step : ''}`;
}

/** `A[0:N, i]` (+ `(dyn)`, volume, WCR) for a Memlet JSON object; '' for an empty memlet. */
export function memletText(memlet) {
  const a = memlet?.attributes;
  if (!a || !a.data) return '';
  let s = `${a.data}[${subsetText(a.subset)}]`;
  if (a.other_subset) s += ` -> [${subsetText(a.other_subset)}]`;
  const vol = a.volume ?? a.num_accesses;
  if (vol !== undefined && vol !== null && String(vol) !== "1") s += ` (${a.dynamic ? "dyn, " : ""}vol ${plainSymbols(vol)})`;
  else if (a.dynamic) s += ' (dyn)';
  if (a.wcr) s += ` wcr: ${wcrText(a.wcr)}`;
  return s;
}

function wcrText(wcr) {
  const s = String(wcr);
  const m = /^lambda\s+(\w+)\s*,\s*(\w+)\s*:\s*(.*)$/.exec(s);
  if (m) {
    const body = m[3].trim();
    for (const op of ['+', '*', '-', '/']) if (body === `${m[1]} ${op} ${m[2]}` || body === `(${m[1]} ${op} ${m[2]})`) return op;
    if (/^max\(/.test(body)) return 'max';
    if (/^min\(/.test(body)) return 'min';
  }
  return s;
}

/** The text of a CodeBlock ({string_data, language}) or a plain string. */
export function codeText(code) {
  if (code === undefined || code === null) return '';
  if (typeof code === 'string') return code;
  return code.string_data ?? '';
}

function mapLabel(json) {
  const a = json.attributes || {};
  const label = json.label ?? a.label ?? '';
  if (label.includes('[')) return label;
  const params = a.params || [];
  const ranges = a.range?.ranges || [];
  const dims = params.map((p, i) => (ranges[i] ? `${p}=${rangeText(ranges[i])}` : p));
  return `${label}[${dims.join(', ')}]`;
}

function loopHeader(a) {
  const v = a.loop_variable;
  const init = codeText(a.init_statement), cond = codeText(a.loop_condition), upd = codeText(a.update_statement);
  if (!v && !init) return `while ${cond}`;
  return `for ${init}; ${cond}; ${upd}`;
}

/** Interstate edge label: `cond` and `i = i + 1` assignments (empty when unconditional). */
export function interstateText(edgeJson) {
  const a = edgeJson?.attributes?.data?.attributes || {};
  const parts = [];
  const cond = codeText(a.condition);
  if (cond && cond !== '1' && cond !== 'True') parts.push(cond);
  for (const [k, v] of Object.entries(a.assignments || {})) parts.push(`${k} = ${v}`);
  return parts.join('; ');
}

class Element {
  constructor(init) {
    Object.assign(this, init);
    this.children = [];
    this.edges = [];
  }
}

/**
 * Builds the element tree of a root SDFG JSON object. Returns {root, all (every element in
 * document order), byUid (Map), sdfgs}. Throws Error with a path on JSON that is not an SDFG.
 */
export function buildModel(json) {
  if (!json || typeof json !== 'object' || json.type !== 'SDFG')
    throw new Error(`not an SDFG: the top-level object has type '${json?.type}'`);
  const all = [];
  const byUid = new Map();
  const sdfgs = [];
  const add = (el) => {
    all.push(el);
    byUid.set(el.uid, el);
    return el;
  };

  // The source file of a debuginfo: `filename` (weir, older DaCe) or `file_index` into the root's
  // `source_files` (DaCe 2).
  const rootFiles = json.source_files || [];
  const debugOf = (obj, sdfgEl) => {
    const d = obj?.attributes?.debuginfo ?? obj?.debuginfo;
    if (!d || typeof d !== 'object' || !d.start_line) return null;
    const file = d.filename ?? (d.file_index !== undefined ? (sdfgEl.json.source_files || rootFiles)[d.file_index] : undefined);
    return { file: file ?? '', line: Number(d.start_line), endLine: Number(d.end_line || d.start_line), column: Number(d.start_column || 0) };
  };

  function sdfgElement(sj, uid, parent, keyPrefix) {
    const name = sj.attributes?.name ?? sj.label ?? 'sdfg';
    const el = add(new Element({
      // The root's name is no part of keys: two versions of one program may be named apart.
      uid, kind: 'sdfg', type: 'SDFG', label: name, json: sj, parent, key: parent ? `${keyPrefix}SDFG:${name}` : 'SDFG',
    }));
    el.sdfg = el;
    el.sdfgName = name;
    sdfgs.push(el);
    region(sj, el, el, [], el.key);
    return el;
  }

  // A control-flow region's blocks and interstate edges (the SDFG itself, a loop body, a branch).
  function region(rj, regionEl, sdfgEl, labelPath, keyPrefix) {
    const seen = new Map();
    (rj.nodes || []).forEach((bj, i) => {
      const kind = BLOCK_KINDS[bj.type] ?? 'region';
      const label = bj.label ?? bj.attributes?.label ?? `${bj.type} ${i}`;
      const path = label ? [...labelPath, label] : labelPath;
      const base = `${keyPrefix}/${kind}:${label}`;
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      const el = add(new Element({
        uid: `${regionEl.uid}/b${i}`, kind, type: bj.type, label, json: bj, parent: regionEl, sdfg: sdfgEl,
        key: n ? `${base}#${n}` : base, blockPath: path.join('/'), index: i,
      }));
      el.debug = debugOf(bj, sdfgEl);
      regionEl.children.push(el);
      if (kind === 'state') dataflow(bj, el, sdfgEl, path);
      else if (kind === 'loop' || kind === 'region') {
        if (kind === 'loop') el.header = loopHeader(bj.attributes || {});
        region(bj, el, sdfgEl, path, el.key);
      } else if (kind === 'conditional') {
        (bj.branches || []).forEach(([cond, rj2], k) => {
          const bl = rj2?.label ?? rj2?.attributes?.label ?? '';
          const bel = add(new Element({
            uid: `${el.uid}/r${k}`, kind: 'branch', type: rj2?.type ?? 'ControlFlowRegion',
            label: cond ? `if ${codeText(cond)}` : 'else', json: rj2 || {}, parent: el, sdfg: sdfgEl,
            key: `${el.key}/branch${k}`, blockPath: (bl ? [...path, bl] : path).join('/'), index: k,
          }));
          el.children.push(bel);
          region(rj2 || {}, bel, sdfgEl, bl ? [...path, bl] : path, bel.key);
        });
      }
    });
    (rj.edges || []).forEach((ej, i) => {
      const src = regionEl.children.find((c) => c.kind !== 'branch' && c.index === Number(ej.src));
      const dst = regionEl.children.find((c) => c.kind !== 'branch' && c.index === Number(ej.dst));
      if (!src || !dst) return;
      const el = add(new Element({
        uid: `${regionEl.uid}/ie${i}`, kind: 'interstate', type: 'InterstateEdge', label: interstateText(ej),
        json: ej, parent: regionEl, sdfg: sdfgEl, src, dst, key: `${src.key}->${dst.key}`, index: i,
      }));
      regionEl.edges.push(el);
    });
    regionEl.startBlock = rj.start_block ?? 0;
  }

  // A state's dataflow nodes (with map scopes) and memlet edges.
  function dataflow(sj, stateEl, sdfgEl, path) {
    const nodes = new Map();
    const seen = new Map();
    for (const nj of sj.nodes || []) {
      const a = nj.attributes || {};
      let kind = NODE_KINDS[nj.type] ?? (a.classpath || nj.classpath ? 'library' : 'node');
      if (kind === 'node' && /Entry$/.test(nj.type)) kind = 'map_entry';
      if (kind === 'node' && /Exit$/.test(nj.type)) kind = 'map_exit';
      const raw = nj.label ?? a.label ?? nj.type;
      const label = kind === 'access' ? (a.data ?? raw) : kind === 'map_entry' || kind === 'map_exit' ? mapLabel(nj) : raw;
      const base = `${stateEl.key}/${nj.type}:${kind === 'access' ? a.data : raw}`;
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      const el = add(new Element({
        uid: `${stateEl.uid}/n${nj.id}`, kind, type: nj.type, label, rawLabel: raw, json: nj, parent: stateEl,
        state: stateEl, sdfg: sdfgEl, key: n ? `${base}#${n}` : base, nodeId: Number(nj.id), blockPath: path.join('/'),
        scopeEntry: nj.scope_entry === null || nj.scope_entry === undefined ? null : Number(nj.scope_entry),
      }));
      el.debug = debugOf(nj, sdfgEl);
      nodes.set(Number(nj.id), el);
      stateEl.children.push(el);
      if (kind === 'nested' && a.sdfg) el.nested = sdfgElement(a.sdfg, `${el.uid}/s`, el, `${el.key}/`);
    }
    // scope_entry of a map exit is its own entry; of anything else, the innermost enclosing entry.
    for (const el of nodes.values()) {
      if (el.kind === 'map_exit' && el.scopeEntry !== null) {
        const entry = nodes.get(el.scopeEntry);
        if (entry) {
          entry.exit = el;
          el.entry = entry;
        }
        el.scope = entry ? entry.scopeEntry : null;
      } else {
        el.scope = el.scopeEntry;
      }
    }
    // Exits without scope ids (older files): their entry's scope. An exit shows its map's label.
    // A map exit's source line is its entry's (weir writes none on exits: DaCe's MapExit has no
    // debuginfo property).
    for (const el of nodes.values())
      if (el.entry) {
        el.scope = el.entry.scopeEntry;
        el.label = el.entry.label;
        if (!el.debug) el.debug = el.entry.debug;
      }
    (sj.edges || []).forEach((ej, i) => {
      const src = nodes.get(Number(ej.src)), dst = nodes.get(Number(ej.dst));
      if (!src || !dst) return;
      const memlet = ej.attributes?.data;
      const el = add(new Element({
        uid: `${stateEl.uid}/e${i}`, kind: 'memlet', type: 'Memlet', label: memletText(memlet), json: ej,
        parent: stateEl, state: stateEl, sdfg: sdfgEl, src, dst, srcConn: ej.src_connector ?? null,
        dstConn: ej.dst_connector ?? null, index: i, blockPath: path.join('/'),
        key: `${src.key}.${ej.src_connector ?? ''}->${dst.key}.${ej.dst_connector ?? ''}`,
      }));
      // A memlet's debuginfo is the line of a field operator's body it was lowered from (a node's
      // is the line of its call): the memlet maps that line, and so do the tasklets it connects.
      el.debug = debugOf(memlet, sdfgEl);
      if (el.debug)
        for (const end of [src, dst])
          if (end.kind === 'tasklet') (end.bodyDebugs ??= []).push(el.debug);
      stateEl.edges.push(el);
    });
    stateEl.nodeMap = nodes;
  }

  const root = sdfgElement(json, 's', null, '');
  // Keys of edges may repeat (parallel memlets): number repeats.
  const count = new Map();
  for (const el of all) {
    const n = count.get(el.key) ?? 0;
    count.set(el.key, n + 1);
    if (n) el.key = `${el.key}#${n}`;
  }
  return { root, all, byUid, sdfgs };
}

/** The source locations an element maps: its own debuginfo and, for a tasklet, those of its
 * memlets (the body lines of the field operator it computes). */
export function debugsOf(el) {
  return [el.debug, ...(el.bodyDebugs ?? [])].filter(Boolean);
}

/** The JSON attributes of an element, without the nested SDFG and bulky ids (for panels, diffs). */
export function ownAttributes(el) {
  const j = el.json || {};
  if (el.kind === 'memlet' || el.kind === 'interstate') return j.attributes?.data?.attributes ?? {};
  const a = { ...(j.attributes || {}) };
  delete a.sdfg;
  if (el.kind === 'sdfg') {
    delete a._arrays;
    delete a.transformation_hist;
    delete a._meta_weir_transformation_hist;
    delete a.orig_sdfg;
  }
  return a;
}
