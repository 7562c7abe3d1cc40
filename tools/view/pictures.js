// pictures.js - the pictures that explain a mechanism: each zone's span as
// a bracket on a number line with the holes inside it, an eject as a
// timeline of blocks leaving, the chain from a pfn to its struct page, and
// the trace player that replays a mechanism's steps on the pageblock map.
import { el, hex, ZONE_COLOURS, OFFLINE, GOING } from "./dom.js";
import { zoneSpans, timelineRows, leavingOrder, traceRanges, TracePlayer, addrX,
         migrationLabel } from "./logic.js";

const W = 1000;

// (b) zone spans: one row per zone, a bracket from start_pfn to its end,
// the holes in it (no memory, offline, another zone's) cut out and named.
export function drawSpans(state) {
  const svg = document.getElementById("spans");
  svg.replaceChildren();
  const h = state.hello || {};
  const pagesPerBlock = (h.block_bytes || 134217728) / (h.page_size || 4096);
  const blocks = state.blocks || [];
  if (!blocks.length) return;
  const maxPfn = (Math.max(...blocks.map(b => b.id)) + 1) * pagesPerBlock;
  const spans = zoneSpans(state.zones, blocks, pagesPerBlock);
  const rowH = 32, height = 22 + spans.length * rowH;
  svg.setAttribute("viewBox", `0 0 ${W} ${height}`);
  svg.setAttribute("height", height);
  const X = p => addrX(p, maxPfn, W - 20) + 10;
  svg.appendChild(el("svg:line", { x1: 10, y1: height - 12, x2: W - 10, y2: height - 12, stroke: "#333" }));
  for (let p = 0; p <= maxPfn; p += pagesPerBlock * Math.max(1, Math.ceil(maxPfn / pagesPerBlock / 16))) {
    svg.appendChild(el("svg:line", { x1: X(p), y1: height - 15, x2: X(p), y2: height - 9, stroke: "#333" }));
    svg.appendChild(el("svg:text", { x: X(p) + 2, y: height - 1, "font-size": 9, fill: "#333" }, hex(p)));
  }
  spans.forEach((s, k) => {
    const y = 4 + k * rowH, colour = ZONE_COLOURS[s.name] || "#777", top = y + 14;
    const g = el("svg:g", { class: "span", "data-zone": s.name, "data-node": s.node,
                            "data-start": s.start, "data-end": s.end, "data-holes": s.holes.length });
    g.appendChild(el("svg:text", { x: 10, y: y + 10, "font-size": 10 },
      `${s.name} node ${s.node}: [${hex(s.start)}-${hex(s.end)}) spanned ${s.spanned}, ` +
      `present ${s.present}, ${s.holes.length} hole(s)` +
      (s.holes.length ? ": " + s.holes.map(h => `[${hex(h.start)}-${hex(h.end)}) ${h.why}`).join(", ") : "")));
    g.appendChild(el("svg:rect", { x: X(s.start), y: top + 2, width: Math.max(1, X(s.end) - X(s.start)),
                                   height: 8, fill: colour, opacity: 0.35 }));
    g.appendChild(el("svg:path", { d: `M${X(s.start)},${top + 12} v-12 H${X(s.end)} v12`,
                                   fill: "none", stroke: colour, "stroke-width": 2.5 }));
    for (const hole of s.holes) {
      const r = el("svg:rect", { x: X(hole.start), y: top, width: Math.max(1, X(hole.end) - X(hole.start)),
                                 height: 12, fill: hole.why === "offline" ? OFFLINE : hole.why === "going-offline"
                                   ? GOING : "#fff", stroke: "#888", class: "hole", "data-why": hole.why });
      r.appendChild(el("svg:title", {}, `[${hex(hole.start)}-${hex(hole.end)}): ${hole.why}`));
      g.appendChild(r);
    }
    svg.appendChild(g);
  });
}

// (c) the blocks' state changes over guest time, highest block on top:
// online (zone colour) -> going-offline (orange) -> offline (grey) -> gone.
export function drawTimeline(state) {
  const svg = document.getElementById("timeline");
  svg.replaceChildren();
  const { rows, migrations, t0, t1 } = timelineRows(state.timeline);
  const order = leavingOrder(state.timeline);
  const info = document.getElementById("timeline-info");
  info.dataset.leaving = order.join(",");
  if (!rows.length) {
    svg.setAttribute("height", 20);
    info.textContent = "no block changed state since memview started (remove a DIMM to see an eject)";
    return;
  }
  const rowH = 12, lane = migrations.length ? 30 : 0;
  const height = 24 + rows.length * rowH + lane, span = Math.max(1, t1 - t0);
  svg.setAttribute("viewBox", `0 0 ${W} ${height}`);
  svg.setAttribute("height", height);
  const X = ms => 60 + (ms - t0) / span * (W - 80);
  const colour = s => s === "online" ? ZONE_COLOURS.Normal : s === "going-offline" ? GOING
    : s === "offline" ? OFFLINE : "#fff";
  rows.forEach((r, k) => {
    const y = 4 + k * rowH;
    svg.appendChild(el("svg:text", { x: 2, y: y + 9, "font-size": 9 }, `memory${r.id}`));
    r.steps.forEach((s, i) => {
      const next = r.steps[i + 1] ? r.steps[i + 1].ms : t1;
      const rect = el("svg:rect", { x: X(s.ms), y, width: Math.max(2, X(next) - X(s.ms)), height: rowH - 2,
                                    fill: colour(s.to), stroke: s.to === "absent" ? "#ccc" : "none" });
      rect.appendChild(el("svg:title", {}, `memory${r.id}: ${s.from} -> ${s.to} at ${s.ms} ms`));
      svg.appendChild(rect);
    });
  });
  // pages migrated meanwhile: an arrow from the block they left (its row,
  // when the channel named it) down to the rest of memory, labelled with
  // the blocks they landed in
  if (migrations.length) {
    const defs = el("svg:defs");
    const marker = el("svg:marker", { id: "tl-arrow", viewBox: "0 0 10 10", refX: 9, refY: 5,
                                      markerWidth: 6, markerHeight: 6, orient: "auto" });
    marker.appendChild(el("svg:path", { d: "M0,0 L10,5 L0,10 z", fill: "#c0392b" }));
    defs.appendChild(marker);
    svg.appendChild(defs);
    const ly = 4 + rows.length * rowH + 14;
    svg.appendChild(el("svg:text", { x: 2, y: ly + 4, "font-size": 9 }, "rest of memory"));
    svg.appendChild(el("svg:line", { x1: 60, y1: ly, x2: W - 20, y2: ly, stroke: "#bbb",
                                     "stroke-dasharray": "3 3" }));
    for (const mg of migrations) {
      const k = rows.findIndex(r => r.id === mg.from);
      const y1 = k >= 0 ? 4 + k * rowH + (rowH - 2) / 2 : 6;
      const dests = (mg.dests || []).map(([id, n]) => `${id}:${n}`).join(",");
      svg.appendChild(el("svg:line", { x1: X(mg.ms), y1, x2: X(mg.ms), y2: ly - 2, stroke: "#c0392b",
                                       "stroke-width": 1.5, "marker-end": "url(#tl-arrow)",
                                       class: "migrated", "data-pages": mg.pages,
                                       "data-from": mg.from ?? "", "data-to": dests }));
      const right = X(mg.ms) > W - 260;
      svg.appendChild(el("svg:text", { x: X(mg.ms) + (right ? -4 : 3), y: ly - 4, "font-size": 9,
                                       fill: "#c0392b", "text-anchor": right ? "end" : "start" },
                         migrationLabel(mg)));
    }
  }
  svg.appendChild(el("svg:text", { x: 60, y: height - 4, "font-size": 9 }, `${t0} ms`));
  svg.appendChild(el("svg:text", { x: W - 80, y: height - 4, "font-size": 9 }, `${t1} ms`));
  info.textContent = `${rows.length} blocks changed state; they left in this order: ` +
    (order.length ? order.map(i => `memory${i}`).join(", ") : "(none left)") +
    (migrations.length ? `; ${migrations.reduce((a, m) => a + m.pages, 0)} pages migrated out: ` +
     migrations.map(m => (typeof m.from === "number" ? `memory${m.from}: ` : "") + migrationLabel(m))
       .join("; ") : "") + ".";
}

// (d) pfn -> section -> vmemmap address -> the struct page's fields -> its owner.
export function drawChain(p, error) {
  const div = document.getElementById("chain");
  div.replaceChildren();
  if (error) {
    div.appendChild(el("div", { class: "error" }, error));
    return;
  }
  if (!p) return;
  const step = (label, value, note) => {
    const s = el("div", { class: "link" });
    s.append(el("b", {}, label), " ", el("code", {}, value), note ? " " + note : "");
    div.appendChild(s);
  };
  div.dataset.pfn = p.pfn;
  div.dataset.structPage = p.struct_page;
  step("pfn", hex(p.pfn), `(physical ${hex(p.phys)})`);
  step("section", String(p.section), `pfn >> 15; ${p.section_online ? "online" : "offline"}` +
       (p.section_early ? ", boot memory" : ", hot-added"));
  step("vmemmap", `${hex(p.vmemmap_base)} + ${hex(p.pfn)} * ${p.struct_page_bytes}`,
       `= ${hex(p.struct_page)}`);
  step("struct page", `flags ${hex(p.flags)} (${p.flag_names || "none"})`,
       `node ${p.node}, zone ${p.zone}; page_type ${hex(p.page_type)} (${p.type_name}), ` +
       `refcount ${p.refcount}, private ${p.private}`);
  step("buddy", p.free === "buddy" ? `head of a free order-${p.free_order} block` :
       p.free === "pcp" ? `on a per-CPU list (order ${p.free_order})` :
       p.free === "inside" ? `inside the free order-${p.free_order} block at ${hex(p.free_head_pfn)}` :
       "allocated (in no free block)", `pageblock ${p.pageblock_mt}${p.isolated ? ", isolated" : ""}`);
  if (p.owner !== undefined) {      // protocol 2 of an older memlab has no owner
    div.dataset.owner = p.owner_kind;
    step("owner", p.owner, p.owner_index !== undefined ? `(page->index ${p.owner_index})` : "");
  }
}

// The trace player: the steps memview recorded, one at a time.
export class TraceView {
  constructor(map, post) {
    this.map = map;
    this.player = new TracePlayer([]);
    this.timer = null;
    const $ = id => document.getElementById(id);
    $("trace-on").onclick = () => post("/api/trace", { mech: $("trace-mech").value, on: true,
                                                       verbose: $("trace-verbose").checked });
    $("trace-off").onclick = () => post("/api/trace", { mech: $("trace-mech").value, on: false });
    $("trace-clear").onclick = () => post("/api/trace/clear", {});
    $("trace-back").onclick = () => { this.player.step(-1); this.show(); };
    $("trace-fwd").onclick = () => { this.player.step(1); this.show(); };
    $("trace-play").onclick = () => { this.player.play(); this._run(); };
    $("trace-pause").onclick = () => { this.player.pause(); };
  }

  _run() {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (!this.player.tick()) { clearInterval(this.timer); this.timer = null; }
      this.show();
    }, 400);
  }

  update(state) {
    const sel = document.getElementById("trace-mech");
    if (!sel.options.length)
      for (const m of state.mechs || []) sel.appendChild(el("option", { value: m.name }, m.name));
    const on = (state.mechs || []).filter(m => m.trace).map(m => m.name + (m.verbose ? " (verbose)" : ""));
    document.getElementById("trace-state").textContent =
      on.length ? `tracing: ${on.join(", ")}` : "no trace on";
    this.player.setSteps(state.trace || []);
    this.show();
  }

  show() {
    const p = this.player, list = document.getElementById("trace-steps");
    list.dataset.steps = p.steps.length;
    list.dataset.pos = p.pos;
    document.getElementById("trace-pos").textContent =
      `step ${p.pos + 1} of ${p.steps.length}${p.playing ? ", playing" : ""}`;
    const from = Math.max(0, p.pos - 6), to = Math.min(p.steps.length, from + 14);
    list.replaceChildren(...p.steps.slice(from, to).map((s, k) => {
      const i = from + k;
      const d = el("div", { class: i === p.pos ? "step now" : "step" },
                   `${i + 1}. [${s.mech || "log"}] ${s.text}`);
      d.onclick = () => { p.seek(i); this.show(); };
      return d;
    }));
    const cur = p.current();
    this.map.setHighlight(cur ? traceRanges(cur.text) : []);
  }
}
