// A generated SDFG of a given size for the viewer's performance test: `states` states in a
// chain, each with `mapsPerState` maps (x, t<k-1>) -> map{tasklet} -> t<k> (5 nodes per map): one
// connected dataflow graph per state, so the layout is a real layered one (not only chains).
const range = (start, end) => ({ type: 'Range', ranges: [{ start, end, step: '1', tile: '1' }] });
const memlet = (data, subset) => ({ type: 'Memlet', attributes: { data, subset: range(subset, subset === 'i' ? 'i' : 'N - 1'), volume: subset === 'i' ? '1' : 'N' } });
const edge = (src, sc, dst, dc, m) => ({ type: 'MultiConnectorEdge', src: String(src), dst: String(dst), src_connector: sc, dst_connector: dc, attributes: { data: m } });
const array = () => ({ type: 'Array', attributes: { dtype: 'float64', shape: ['N'], strides: ['1'], transient: false, storage: 'Default' } });

/** {json, nodes}: the SDFG and its number of dataflow nodes. */
export function generateSdfg({ states, mapsPerState }) {
  const arrays = { x: array() };
  for (let k = 0; k < mapsPerState; k++) arrays[`t${k}`] = array();
  const blocks = [];
  let count = 0;
  for (let s = 0; s < states; s++) {
    const nodes = [], edges = [];
    for (let k = 0; k < mapsPerState; k++) {
      const b = nodes.length;
      const label = `s${s}_m${k}`;
      nodes.push({ type: 'AccessNode', label: 'x', id: b, scope_entry: null, scope_exit: null, attributes: { data: 'x' } });
      nodes.push({ type: 'MapEntry', label: `${label}_map`, id: b + 1, scope_entry: null, scope_exit: String(b + 3),
        attributes: { label: `${label}_map`, params: ['i'], range: range('0', 'N - 1'), in_connectors: k ? { IN_x: null, IN_p: null } : { IN_x: null }, out_connectors: k ? { OUT_x: null, OUT_p: null } : { OUT_x: null } } });
      nodes.push({ type: 'Tasklet', label: `${label}_t`, id: b + 2, scope_entry: String(b + 1), scope_exit: String(b + 3),
        attributes: { code: { string_data: k ? `o = a * ${k + 1}.0 + p` : `o = a + ${s}.0`, language: 'Python' }, in_connectors: k ? { a: null, p: null } : { a: null }, out_connectors: { o: null } } });
      nodes.push({ type: 'MapExit', label: `${label}_map`, id: b + 3, scope_entry: String(b + 1), scope_exit: String(b + 3),
        attributes: { in_connectors: { IN_t: null }, out_connectors: { OUT_t: null } } });
      nodes.push({ type: 'AccessNode', label: `t${k}`, id: b + 4, scope_entry: null, scope_exit: null, attributes: { data: `t${k}` } });
      edges.push(edge(b, null, b + 1, 'IN_x', memlet('x', '0')));
      edges.push(edge(b + 1, 'OUT_x', b + 2, 'a', memlet('x', 'i')));
      if (k) {
        edges.push(edge(b - 1, null, b + 1, 'IN_p', memlet(`t${k - 1}`, '0')));
        edges.push(edge(b + 1, 'OUT_p', b + 2, 'p', memlet(`t${k - 1}`, 'i')));
      }
      edges.push(edge(b + 2, 'o', b + 3, 'IN_t', memlet(`t${k}`, 'i')));
      edges.push(edge(b + 3, 'OUT_t', b + 4, null, memlet(`t${k}`, '0')));
    }
    count += nodes.length;
    blocks.push({ type: 'SDFGState', label: `state_${s}`, id: s, nodes, edges, attributes: {} });
  }
  const iedges = [];
  for (let s = 0; s + 1 < states; s++)
    iedges.push({ type: 'Edge', src: String(s), dst: String(s + 1), attributes: { data: { type: 'InterstateEdge', attributes: {} } } });
  const json = {
    type: 'SDFG', dace_version: '2.0.0a6', label: 'generated',
    attributes: { name: 'generated', arg_names: ['x', ...Object.keys(arrays).filter((n) => n !== 'x')], symbols: { N: 'int64' }, _arrays: arrays },
    nodes: blocks, edges: iedges, start_block: 0,
  };
  return { json, nodes: count };
}
