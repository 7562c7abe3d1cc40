// panels.js - the zones (free pages, free blocks by order, and
// pagetypeinfo's free lists by order x migratetype), the pcp lists in
// front of the buddy with what each counter includes, the running long
// operations and deferred init as progress bars, and the device lists
// (DIMMs, virtio-mem) with their controls.
import { el, hex, mib, ZONE_COLOURS, MT_NAME_COLOURS } from "./dom.js";
import { pcpCounters, pagetypeRows, sizeLabel } from "./logic.js";

// One zone's card: counters, free blocks by order (log scale), and the
// same split by migratetype (pagetypeinfo) as stacked bars.
function zoneCard(z, state) {
  const div = el("div", { class: "zone", "data-zone": z.name, "data-node": z.node,
                          "data-free": z.free, "data-managed": z.managed,
                          "data-present": z.present, "data-spanned": z.spanned });
  div.appendChild(el("h3", {}, `${z.name}, node ${z.node}`));
  div.appendChild(el("div", { class: "nums" },
    `free ${z.free} pages (${mib(z.free)}) of ${z.managed} managed; ` +
    `present ${z.present}, spanned ${z.spanned}, pcp ${z.pcp}`));
  const W = 330, H = 120, orders = z.free_blocks.length, bw = W / orders;
  const svg = el("svg:svg", { width: W, height: H, class: "orders" });
  const max = Math.max(1, ...z.free_blocks);
  const rows = pagetypeRows(z, state.hello && state.hello.migratetypes);
  z.free_blocks.forEach((count, order) => {
    const h = count ? 8 + (H - 40) * Math.log(1 + count) / Math.log(1 + max) : 0;
    const g = el("svg:g", { class: "order", "data-order": order, "data-count": count });
    // the bar's height is the order's count (log); its colours split it by type
    let y = H - 16;
    const total = rows.reduce((s, r) => s + (r.counts[order] || 0), 0);
    if (total)
      for (const r of rows) {
        const n = r.counts[order] || 0;
        if (!n) continue;
        const part = h * n / total;
        y -= part;
        const rect = el("svg:rect", { x: order * bw + 2, y, width: bw - 4, height: part,
                                      fill: MT_NAME_COLOURS[r.name] || "#777", class: "mt",
                                      "data-mt": r.name, "data-count": n });
        rect.appendChild(el("svg:title", {}, `order ${order}, ${r.name}: ${n} free blocks`));
        g.appendChild(rect);
      }
    else if (count)
      g.appendChild(el("svg:rect", { x: order * bw + 2, y: H - 16 - h, width: bw - 4, height: h,
                                     fill: ZONE_COLOURS[z.name] || "#777" }));
    g.appendChild(el("svg:text", { x: order * bw + bw / 2, y: H - 20 - h, "font-size": 10,
                                   "text-anchor": "middle" }, count));
    g.appendChild(el("svg:text", { x: order * bw + bw / 2, y: H - 4, "font-size": 10,
                                   "text-anchor": "middle", fill: "#555" }, order));
    svg.appendChild(g);
  });
  div.appendChild(svg);
  const legend = el("div", { class: "mtlegend" });
  for (const r of rows)
    if (r.pages) {
      const s = el("span");
      const i = el("i");
      i.style.background = MT_NAME_COLOURS[r.name] || "#777";
      s.append(i, `${r.name} ${r.pages}`);
      legend.appendChild(s);
    }
  div.appendChild(legend);
  div.appendChild(pcpPicture(z));
  return div;
}

// The pcp lists in front of the buddy: each CPU's list, the buddy's free
// lists behind them, and which counter includes which.
function pcpPicture(z) {
  const c = pcpCounters(z);
  const W = 330, H = 92;
  const svg = el("svg:svg", { width: W, height: H, class: "pcp", "data-pcp": c.pcp,
                              "data-buddy": c.buddy, "data-zone": z.name });
  const defs = el("svg:defs");
  const marker = el("svg:marker", { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5,
                                    markerWidth: 6, markerHeight: 6, orient: "auto" });
  marker.appendChild(el("svg:path", { d: "M0,0 L10,5 L0,10 z", fill: "#555" }));
  defs.appendChild(marker);
  svg.appendChild(defs);
  const cpus = c.cpus.length ? c.cpus : [c.pcp];
  const cw = Math.min(60, 120 / cpus.length);
  cpus.forEach((n, cpu) => {
    svg.appendChild(el("svg:rect", { x: 4 + cpu * (cw + 2), y: 6, width: cw, height: 30,
                                     fill: n ? "#ffe9a8" : "#f6f6f6", stroke: "#b08a00" }));
    svg.appendChild(el("svg:text", { x: 4 + cpu * (cw + 2) + cw / 2, y: 25, "font-size": 10,
                                     "text-anchor": "middle" }, `cpu${cpu}: ${n}`));
  });
  svg.appendChild(el("svg:text", { x: 4, y: 48, "font-size": 10, fill: "#7a5c00" },
                     `pcp: ${c.pcp} pages (orders 0-3), counted as allocated`));
  svg.appendChild(el("svg:line", { x1: 136, y1: 21, x2: 170, y2: 21, stroke: "#555",
                                   "marker-end": "url(#arrow)" }));
  svg.appendChild(el("svg:rect", { x: 172, y: 6, width: 154, height: 30, fill: "#dbe9ff",
                                   stroke: "#3060a0" }));
  svg.appendChild(el("svg:text", { x: 249, y: 25, "font-size": 10, "text-anchor": "middle" },
                     `buddy: ${c.buddy} free pages`));
  svg.appendChild(el("svg:text", { x: 4, y: 64, "font-size": 10, fill: "#333" },
                     `zoneinfo "pages free" ${z.free} = buddy ${c.buddy}` +
                     (c.consistent ? "" : " (moved since)")));
  svg.appendChild(el("svg:text", { x: 4, y: 78, "font-size": 10, fill: "#333" },
                     `MemFree: these ${z.free}; the ${c.pcp} pcp pages: no`));
  return svg;
}

export function drawZones(state) {
  const zones = document.getElementById("zones");
  zones.replaceChildren(...(state.zones || []).map(z => zoneCard(z, state)));
  const memfree = (state.zones || []).reduce((s, z) => s + z.free, 0);
  const pcp = (state.zones || []).reduce((s, z) => s + z.pcp, 0);
  const t = document.getElementById("memfree");
  t.dataset.memfreeKb = memfree * 4;
  t.textContent = `MemFree ${memfree * 4} kB = the zones' buddy pages (${memfree}); ` +
    `${pcp} pages on pcp lists are in no free counter until drained`;
}

// Long operations and deferred init, each a progress bar.
export function drawOps(state) {
  const div = document.getElementById("ops");
  div.replaceChildren();
  for (const op of state.ops || []) {
    const row = el("div", { class: "op", "data-name": op.name, "data-done": op.done,
                            "data-total": op.total });
    const bar = el("progress", { max: op.total || 1 });
    bar.value = op.total ? op.done : 0;
    if (!op.total) bar.removeAttribute("value");
    row.append(bar, ` ${op.name}: ${op.total ? `${op.done}/${op.total} ${op.unit || ""}` : "running"}, ` +
      `${(op.elapsed_ms / 1000).toFixed(1)} s${op.waiting ? ", waiting" : ""}`);
    div.appendChild(row);
  }
  const d = state.deferred;
  if (d && d.pending_sections)
    div.appendChild(el("div", { class: "op deferred" },
      `deferred init: ${d.pending_sections} sections (${d.pending_pages} pages) still pending`));
  if (!div.children.length)
    div.appendChild(el("div", { class: "none" }, "no long operation running; deferred init done"));
}

export function drawDevices(state, post) {
  const ul = document.getElementById("dimms");
  ul.replaceChildren();
  for (const d of state.dimms || []) {
    const li = el("li", { class: "dimm", "data-id": d.id });
    li.append(`${d.id}: ${(d.size / 1048576) | 0} MiB at ${hex(d.addr)} `);
    const b = el("button", {}, "Remove");
    b.onclick = () => post("/api/dimm/remove", { id: d.id });
    li.appendChild(b);
    ul.appendChild(li);
  }
  const vl = document.getElementById("vmems");
  vl.replaceChildren();
  for (const v of state.vmems || []) {
    const li = el("li", { class: "vmem", "data-id": v.id, "data-size": v.size,
                          "data-requested": v.requested });
    const input = el("input", { type: "number", min: 0, step: 128, style: "width:6em",
                                value: (v.requested / 1048576) | 0 });
    const b = el("button", {}, "Resize");
    b.onclick = () => post("/api/vmem/resize", { id: v.id, size_mb: parseInt(input.value, 10) || 0 });
    li.append(`${v.id}: plugged ${sizeLabel(v.size) || 0} of ${sizeLabel(v.max_size)} ` +
              `(asked ${sizeLabel(v.requested) || 0}) at ${hex(v.addr)}; requested MiB `, input, b);
    vl.appendChild(li);
  }
  if (!vl.children.length)
    vl.appendChild(el("li", { class: "none" }, "no virtio-mem device (make view adds one)"));
}
