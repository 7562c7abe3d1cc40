// main.js - the memory page: reads memview.py's state (/state once, then
// /events, Server-Sent Events, on every change), draws it with the other
// modules (bar.js, pbmap.js, panels.js, pictures.js), wires the controls,
// says whether memlab is live, gone or silent, shows how late the last
// update arrived, and tells memview.py what it drew (/api/seen), so that a
// test can see what each open page shows.  Protocol and fields:
// docs/view.md.
import { el, hex } from "./dom.js";
import { drawBar } from "./bar.js";
import { PageblockMap } from "./pbmap.js";
import { drawZones, drawOps, drawDevices } from "./panels.js";
import { drawSpans, drawTimeline, drawChain, TraceView } from "./pictures.js";

let state = null;
const opts = { log: false };
const tab = sessionStorage.getItem("memview-tab") ||
  Math.random().toString(36).slice(2, 10);
sessionStorage.setItem("memview-tab", tab);

function setStatus(kind, text) {
  const s = document.getElementById("status");
  s.dataset.state = kind;
  s.textContent = text;
}

async function post(url, body) {
  try {
    const r = await fetch(url, { method: "POST", body: JSON.stringify(body),
                                 headers: { "Content-Type": "application/json" } });
    const j = await r.json();
    if (!j.ok && url !== "/api/seen") document.getElementById("action-error").textContent =
      `${url}: ${j.error}`;
    return j;
  } catch (e) {
    setStatus("nopage", "memview is gone");
    return { ok: false, error: String(e) };
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

// How late this state is: written in the guest at state.ms, reached
// memview.py latency_ms later, and this page now - state.updated after that.
// (A state read from /state is as old as the last change: only one that
// came as an event has a page part.)
function drawLatency(rx, viaEvent) {
  const l = document.getElementById("latency");
  if (typeof state.latency_ms !== "number") {
    l.textContent = "";
    return null;
  }
  const page = viaEvent ? Math.max(0, rx - state.updated) : 0;
  const total = state.latency_ms + page;
  l.dataset.ms = total.toFixed(1);
  l.textContent = `last update latency ${total.toFixed(0)} ms (guest -> memview ` +
    `${state.latency_ms.toFixed(0)} ms, memview -> page ${page.toFixed(0)} ms)`;
  return total;
}

function report(rx, latency) {
  const zones = [...document.querySelectorAll("#zones .zone")].map(z => ({
    zone: z.dataset.zone, node: +z.dataset.node, free: +z.dataset.free }));
  post("/api/seen", {
    tab, seq: state.seq, boot: state.boot, status: document.getElementById("status").dataset.state,
    zones, blocks: document.querySelectorAll("#blocks tr.block").length,
    pageblocks: +document.getElementById("pbmap").dataset.cells, page_rx: rx, latency_ms: latency,
    trace_steps: (state.trace || []).length,
  });
}

function draw(viaEvent = false) {
  const rx = Date.now();
  if (!state.connected) setStatus("gone", state.why || "memlab is gone");
  else if (!state.answering) setStatus("silent", state.why || "memlab is not answering");
  else setStatus("live", "live");
  const h = state.hello || {};
  document.getElementById("summary").textContent = h.mem_bytes ?
    `memlab ${h.version}: ${(h.mem_bytes / 1048576) | 0} MiB present, ` +
    `${(state.blocks || []).length} blocks, ${(state.zones || []).length} zones` +
    (typeof state.ms === "number" ? `, at ${(state.ms / 1000).toFixed(2)} s` : "") +
    (state.boot > 1 ? `, boot ${state.boot}` : "")
    : "";
  drawBar(state, opts, (lo, hi) => map.zoomTo(lo, hi));
  map.update(state);
  drawZones(state);
  drawOps(state);
  drawDevices(state, post);
  drawSpans(state);
  drawTimeline(state);
  trace.update(state);
  drawTable();
  const log = document.getElementById("log");
  log.replaceChildren(...(state.log || []).map(e =>
    el("div", {}, new Date(e.t * 1000).toLocaleTimeString() + "  " + e.what)));
  document.body.dataset.seq = state.seq;
  document.body.dataset.boot = state.boot;
  report(rx, drawLatency(rx, viaEvent));
}

function num(id) { return parseInt(document.getElementById(id).value, 10) || 0; }

document.getElementById("dimm-add").onclick = () =>
  post("/api/dimm/add", { size_mb: num("dimm-size") });
document.getElementById("alloc").onclick = () =>
  post("/api/alloc", { order: num("order"), count: num("count"),
                       movable: document.getElementById("movable").checked });
document.getElementById("free").onclick = () =>
  post("/api/free", { order: num("order"), count: num("count") });
document.getElementById("logscale").onchange = e => { opts.log = e.target.checked; if (state) draw(); };
document.getElementById("zoom-out").onclick = () => map.zoomOut();
document.getElementById("timeline-clear").onclick = () => post("/api/timeline/clear", {});

function listen() {
  const es = new EventSource("events");
  es.addEventListener("state", ev => { state = JSON.parse(ev.data); draw(true); });
  // EventSource reconnects by itself; meanwhile say that memview is gone.
  es.onerror = () => setStatus("nopage", "memview is gone: reconnecting");
}

const params = new URLSearchParams(location.search);
if (params.has("log")) document.getElementById("logscale").checked = opts.log = true;
// ?step=N: the trace player on step N (1 is the first), for a picture;
// ?pfn=N: the struct page chain of pfn N, as a click on its pageblock shows it
async function showPfn(pfn) {
  const j = await post("/api/page", { pfn });
  drawChain(j.page, j.ok ? null : `pfn ${hex(pfn)}: ${j.error}`);
}
const map = new PageblockMap(document.getElementById("pbmap"), document.getElementById("pbmap-info"),
  showPfn);
const trace = new TraceView(map, post);
fetch("state").then(r => r.json()).then(async s => {
  state = s;
  draw();
  if (params.has("step")) { trace.player.seek((parseInt(params.get("step"), 10) || 1) - 1); trace.show(); }
  if (params.has("pfn")) await showPfn(Number(params.get("pfn")));
})
  .catch(() => setStatus("nopage", "memview is gone"))
  .finally(() => { if (!params.has("once")) listen(); });
