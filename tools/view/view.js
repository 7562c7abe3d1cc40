// view.js - draws memlab's state (from tools/memview.py: /state once,
// then /events, Server-Sent Events, on every change) into index.html:
// the address space as a bar of memory blocks, each zone's free pages and
// free blocks by order, the DIMMs, and the buttons that change them.
// Protocol and fields: docs/view.md.
"use strict";

const ZONE_COLOURS = {
  DMA: "#f2b134", DMA32: "#4f9fd8", Normal: "#4bb36b", Movable: "#b184d6",
  Device: "#d86a6a", mixed: "#e8d36a",
};
const OFFLINE = "#9a9a9a", GOING = "#ff7f2a", HOLE = "url(#hole)";
const SVG = "http://www.w3.org/2000/svg";

let state = null;

function el(tag, attrs, text) {
  const e = tag.startsWith("svg:") ? document.createElementNS(SVG, tag.slice(4))
                                   : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function mib(pages) {
  const page = (state && state.hello && state.hello.page_size) || 4096;
  return (pages * page / 1048576).toFixed(1) + " MiB";
}

function hex(n) { return "0x" + n.toString(16); }

// The colour of one block: its zone while online, else its state.
function blockColour(b, device) {
  if (device) return ZONE_COLOURS.Device;
  if (b.state === "offline") return OFFLINE;
  if (b.state === "going-offline") return GOING;
  return ZONE_COLOURS[b.zone] || "#444";
}

function drawBar() {
  const svg = document.getElementById("bar");
  svg.replaceChildren();
  const defs = el("svg:defs");
  const pat = el("svg:pattern", { id: "hole", width: 6, height: 6, patternUnits: "userSpaceOnUse",
                                  patternTransform: "rotate(45)" });
  pat.appendChild(el("svg:rect", { width: 6, height: 6, fill: "#fff" }));
  pat.appendChild(el("svg:line", { x1: 0, y1: 0, x2: 0, y2: 6, stroke: "#ccc", "stroke-width": 3 }));
  defs.appendChild(pat);
  svg.appendChild(defs);
  const blocks = state.blocks || [];
  if (!blocks.length) return;
  const blockBytes = state.hello.block_bytes || 134217728;
  const pagesPerBlock = blockBytes / (state.hello.page_size || 4096);
  const byId = new Map(blocks.map(b => [b.id, b]));
  const last = Math.max(...blocks.map(b => b.id));
  const n = last + 1, w = 1000 / n;
  const devBlocks = new Set();
  for (const d of state.devmem || [])
    for (let p = d.start_pfn; p < d.start_pfn + d.nr_pages; p += pagesPerBlock)
      devBlocks.add(Math.floor(p / pagesPerBlock));
  for (let id = 0; id < n; id++) {
    const b = byId.get(id);
    const r = el("svg:rect", { x: id * w, y: 6, width: Math.max(w - (w > 3 ? 0.6 : 0), 0.5),
                               height: 56, fill: b ? blockColour(b, devBlocks.has(id)) : HOLE,
                               class: b ? "blk" : "hole", "data-id": id });
    const t = el("svg:title", {}, b ? `memory${id} at ${hex(id * blockBytes)}: ${b.state}` +
                 (b.zone ? ` ${b.zone}` : "") + ` node ${b.node}` + (b.group ? ` (${b.group})` : "")
               : `${hex(id * blockBytes)}: hole, no memory`);
    r.appendChild(t);
    svg.appendChild(r);
  }
  // address ticks: every GiB, thinned to at most 16 labels
  const gib = 1 << 30, total = n * blockBytes;
  let step = gib;
  while (total / step > 16) step *= 2;
  for (let a = 0; a <= total; a += step) {
    const x = Math.min(a / total * 1000, 999);
    svg.appendChild(el("svg:line", { x1: x, y1: 62, x2: x, y2: 68, stroke: "#555" }));
    svg.appendChild(el("svg:text", { x: Math.min(x + 2, 970), y: 80, "font-size": 10, fill: "#333" },
                       (a / gib) + "G"));
  }
  const legend = document.getElementById("legend");
  legend.replaceChildren();
  const used = new Set(blocks.filter(b => b.state === "online").map(b => b.zone));
  const items = [...used].map(z => [z, ZONE_COLOURS[z] || "#444"]);
  if (blocks.some(b => b.state === "offline")) items.push(["offline", OFFLINE]);
  if (blocks.some(b => b.state === "going-offline")) items.push(["going offline", GOING]);
  if (devBlocks.size) items.push(["device", ZONE_COLOURS.Device]);
  if (byId.size < n) items.push(["hole", "repeating-linear-gradient(45deg,#fff 0 3px,#ccc 3px 6px)"]);
  for (const [name, colour] of items) {
    const s = el("span");
    const i = el("i");
    i.style.background = colour;
    s.append(i, name);
    legend.appendChild(s);
  }
}

// One zone's card: its counters, and free blocks per order as bars (log scale).
function drawZone(z) {
  const div = el("div", { class: "zone", "data-zone": z.name, "data-node": z.node,
                          "data-free": z.free, "data-managed": z.managed,
                          "data-present": z.present, "data-spanned": z.spanned });
  div.appendChild(el("h3", {}, `${z.name}, node ${z.node}`));
  div.appendChild(el("div", { class: "nums" },
    `free ${z.free} pages (${mib(z.free)}) of ${z.managed} managed; ` +
    `present ${z.present}, spanned ${z.spanned}, pcp ${z.pcp}`));
  const W = 330, H = 110, orders = z.free_blocks.length, bw = W / orders;
  const svg = el("svg:svg", { width: W, height: H, class: "orders" });
  const max = Math.max(1, ...z.free_blocks);
  z.free_blocks.forEach((count, order) => {
    const h = count ? 8 + (H - 40) * Math.log(1 + count) / Math.log(1 + max) : 0;
    const g = el("svg:g", { class: "order", "data-order": order, "data-count": count });
    g.appendChild(el("svg:rect", { x: order * bw + 2, y: H - 16 - h, width: bw - 4, height: h,
                                   fill: ZONE_COLOURS[z.name] || "#777" }));
    g.appendChild(el("svg:text", { x: order * bw + bw / 2, y: H - 20 - h, "font-size": 10,
                                   "text-anchor": "middle" }, count));
    g.appendChild(el("svg:text", { x: order * bw + bw / 2, y: H - 4, "font-size": 10,
                                   "text-anchor": "middle", fill: "#555" }, order));
    svg.appendChild(g);
  });
  div.appendChild(svg);
  return div;
}

function drawDimms() {
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
}

function drawTable() {
  const tb = document.getElementById("blocks");
  tb.replaceChildren();
  const blockBytes = (state.hello && state.hello.block_bytes) || 134217728;
  for (const b of state.blocks || []) {
    const tr = el("tr", { class: "block", "data-id": b.id, "data-state": b.state,
                          "data-zone": b.zone === null ? "" : b.zone, "data-node": b.node });
    for (const v of [b.id, hex(b.id * blockBytes), b.state, b.zone || "-", b.node, b.group || "-"])
      tr.appendChild(el("td", {}, v));
    tb.appendChild(tr);
  }
}

function setStatus(kind, text) {
  const s = document.getElementById("status");
  s.dataset.state = kind;
  s.textContent = text;
}

function draw() {
  if (!state.connected) setStatus("gone", state.why || "memlab is gone");
  else if (!state.answering) setStatus("silent", state.why || "memlab is not answering");
  else setStatus("live", "live");
  const h = state.hello || {};
  document.getElementById("summary").textContent = h.mem_bytes ?
    `memlab ${h.version}: ${(h.mem_bytes / 1048576) | 0} MiB present, ` +
    `${(state.blocks || []).length} blocks, ${(state.zones || []).length} zones` +
    (state.ms !== null && state.ms !== undefined ? `, at ${(state.ms / 1000).toFixed(2)} s` : "")
    : "";
  drawBar();
  const zones = document.getElementById("zones");
  zones.replaceChildren(...(state.zones || []).map(drawZone));
  drawDimms();
  drawTable();
  const log = document.getElementById("log");
  log.replaceChildren(...(state.log || []).map(e =>
    el("div", {}, new Date(e.t * 1000).toLocaleTimeString() + "  " + e.what)));
  document.body.dataset.seq = state.seq;
}

async function post(url, body) {
  try {
    const r = await fetch(url, { method: "POST", body: JSON.stringify(body),
                                 headers: { "Content-Type": "application/json" } });
    const j = await r.json();
    if (!j.ok) alert(url + ": " + j.error);
  } catch (e) {
    setStatus("nopage", "memview is gone");
  }
}

function num(id) { return parseInt(document.getElementById(id).value, 10) || 0; }

document.getElementById("dimm-add").onclick = () =>
  post("/api/dimm/add", { size_mb: num("dimm-size") });
document.getElementById("alloc").onclick = () =>
  post("/api/alloc", { order: num("order"), count: num("count"),
                       movable: document.getElementById("movable").checked });
document.getElementById("free").onclick = () =>
  post("/api/free", { order: num("order"), count: num("count") });

function listen() {
  const es = new EventSource("events");
  es.addEventListener("state", ev => { state = JSON.parse(ev.data); draw(); });
  // EventSource reconnects by itself; meanwhile say that memview is gone.
  es.onerror = () => setStatus("nopage", "memview is gone: reconnecting");
}

fetch("state").then(r => r.json()).then(s => { state = s; draw(); })
  .catch(() => setStatus("nopage", "memview is gone"))
  .finally(() => { if (!new URLSearchParams(location.search).has("once")) listen(); });
