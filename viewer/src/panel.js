// The side panel's contents: properties of the selected element (its JSON attributes, tasklet
// code, the descriptor an access node names, its source line), the containers and symbols of
// an SDFG, and the source pane with the lines that produced nodes.
import { codeText, subsetText, ownAttributes, plainSymbols as simplifySymbols } from './model.js';

export const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const KIND_NAMES = {
  sdfg: 'SDFG', state: 'state', loop: 'loop region', conditional: 'conditional block', branch: 'branch', region: 'control-flow region',
  access: 'access node', tasklet: 'tasklet', map_entry: 'map entry', map_exit: 'map exit', nested: 'nested SDFG',
  library: 'library node', memlet: 'memlet', interstate: 'interstate edge', node: 'node', break: 'break', continue: 'continue', return: 'return',
};
export const kindName = (k) => KIND_NAMES[k] ?? k;

function valueText(v) {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'object' && (v.type === 'Range' || v.type === 'Indices')) return `[${subsetText(v)}]`;
  if (typeof v === 'object' && 'string_data' in v) return codeText(v);
  return JSON.stringify(v, null, 1);
}

function table(rows) {
  if (!rows.length) return '<p class="muted">none</p>';
  return `<table class="props">${rows.map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(valueText(v))}</td></tr>`).join('')}</table>`;
}

/** Readable descriptor fields of a data container (shape, dtype, storage, transient, ...). */
export function descriptorRows(desc) {
  const a = desc?.attributes || {};
  const shape = Array.isArray(a.shape) ? `(${a.shape.map(simplifySymbols).join(', ')})` : '';
  const rows = [['type', desc?.type], ['dtype', a.dtype], ['shape', shape], ['storage', a.storage ?? 'Default'], ['transient', String(!!a.transient)]];
  if (a.strides) rows.push(['strides', `(${a.strides.map(simplifySymbols).join(', ')})`]);
  if (a.lifetime) rows.push(['lifetime', a.lifetime]);
  if (a.offset && a.offset.some((o) => String(o) !== '0')) rows.push(['offset', `(${a.offset.join(', ')})`]);
  return rows;
}

/**
 * HTML of the properties of element `el`; `diags` are the validation problems on it, `costs`
 * the rows of its overlay numbers (measured and static; overlay.js's overlayRows), `decisions`
 * the code generator's decisions recorded on a map (decisions.js).
 */
export function propertiesHtml(el, { diags, sourceLink, costs = [], decisions = [] }) {
  let h = `<div class="sel-head"><span class="kind k-${el.kind}">${esc(kindName(el.kind))}</span> <b class="sel-label">${esc(el.label || el.rawLabel || '')}</b></div>`;
  for (const d of diags) h += `<div class="diag">${esc(d.message)}${d.code ? ` <span class="muted">[${esc(d.code)}]</span>` : ''}</div>`;
  if (el.debug) h += `<div class="srcline">source: ${sourceLink(el.debug)}</div>`;
  if (costs.length) h += `<h4>costs</h4><div class="costs">${table(costs)}</div>`;
  if (decisions.length) h += `<h4>codegen decisions</h4><div class="decisions">${table(decisions)}</div>`;
  const a = el.json?.attributes || {};
  if (el.kind === 'tasklet') {
    h += `<h4>code <span class="muted">(${esc(a.code?.language ?? 'Python')})</span></h4><pre class="code tasklet-code">${esc(codeText(a.code))}</pre>`;
    for (const k of ['code_global', 'code_init', 'code_exit']) if (codeText(a[k])) h += `<h4>${k}</h4><pre class="code">${esc(codeText(a[k]))}</pre>`;
  }
  if (el.kind === 'access') {
    const desc = el.sdfg.json.attributes?._arrays?.[a.data];
    h += `<h4>container '${esc(a.data)}'</h4>` + (desc ? table(descriptorRows(desc)) : '<p class="diag">no such container in this SDFG</p>');
  }
  if (el.kind === 'memlet') {
    const m = el.json.attributes?.data?.attributes || {};
    h += '<h4>memlet</h4>' + table([['data', m.data], ['subset', m.subset], ['other_subset', m.other_subset], ['volume', m.volume ?? m.num_accesses],
      ['dynamic', m.dynamic ? 'true' : ''], ['wcr', m.wcr], ['src connector', el.srcConn], ['dst connector', el.dstConn]].filter(([, v]) => v !== undefined && v !== null && v !== ''));
  }
  if (el.kind === 'loop') h += `<h4>loop</h4><pre class="code">${esc(el.header)}</pre>`;
  if (el.kind === 'nested' && el.nested) h += `<h4>nested SDFG '${esc(el.nested.label)}'</h4>` + table(Object.entries(a.symbol_mapping || {}));
  const conns = [];
  for (const [k, v] of Object.entries(a.in_connectors || {})) conns.push([`in ${k}`, v ?? '']);
  for (const [k, v] of Object.entries(a.out_connectors || {})) conns.push([`out ${k}`, v ?? '']);
  if (conns.length) h += '<h4>connectors</h4>' + table(conns);
  const attrs = Object.entries(ownAttributes(el)).filter(([k]) => !['code', 'in_connectors', 'out_connectors', 'guid'].includes(k));
  h += '<h4>attributes</h4>' + table(attrs);
  return h;
}

/** HTML of the containers (data descriptors) of SDFG element `sdfgEl`. */
export function containersHtml(sdfgEl) {
  const arrays = sdfgEl.json.attributes?._arrays || {};
  const names = Object.keys(arrays).sort();
  let h = `<div class="sel-head">containers of SDFG <b>${esc(sdfgEl.label)}</b> (${names.length})</div>`;
  h += '<table class="grid"><tr><th>name</th><th>type</th><th>dtype</th><th>shape</th><th>storage</th><th>transient</th></tr>';
  for (const n of names) {
    const rows = Object.fromEntries(descriptorRows(arrays[n]));
    h += `<tr data-container="${esc(n)}"><td>${esc(n)}</td><td>${esc(rows.type ?? '')}</td><td>${esc(rows.dtype ?? '')}</td><td>${esc(rows.shape)}</td><td>${esc(rows.storage)}</td><td>${rows.transient === 'true' ? 'yes' : ''}</td></tr>`;
  }
  return h + '</table>';
}

/** HTML of the symbols and arguments of SDFG element `sdfgEl`. */
export function symbolsHtml(sdfgEl) {
  const a = sdfgEl.json.attributes || {};
  let h = `<div class="sel-head">symbols of SDFG <b>${esc(sdfgEl.label)}</b></div>`;
  h += table(Object.entries(a.symbols || {}));
  h += '<h4>arguments</h4>' + table((a.arg_names || []).map((n, i) => [String(i), n]));
  if (a.constants_prop && Object.keys(a.constants_prop).length) h += '<h4>constants</h4>' + table(Object.entries(a.constants_prop));
  return h;
}

/** HTML of a source file with numbered lines; `mapped` is a Set of line numbers that produced nodes. */
export function sourceHtml(path, text, mapped) {
  const lines = text.split('\n');
  let h = `<div class="src-file">${esc(path)}</div><pre class="src">`;
  lines.forEach((l, i) => {
    const n = i + 1;
    h += `<span class="src-line${mapped.has(n) ? ' mapped' : ''}" data-line="${n}"><span class="ln">${n}</span>${esc(l) || ' '}</span>`;
  });
  return h + '</pre>';
}
