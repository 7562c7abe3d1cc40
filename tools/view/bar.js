// bar.js - the physical address space as a bar of memory blocks, to scale
// (linear, or logarithmic for a machine whose plug dwarfs its boot memory):
// blocks coloured by zone and state, holes hatched, device ranges red.  A
// click on a block asks the pageblock map to zoom to it (onPick).
import { el, hex, blockColour, ZONE_COLOURS, OFFLINE, GOING } from "./dom.js";
import { addrX, barTicks, sizeLabel } from "./logic.js";

const W = 1000;

export function drawBar(state, opts, onPick) {
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
  if (!blocks.length || !state.hello) return;
  const blockBytes = state.hello.block_bytes || 134217728;
  const pagesPerBlock = blockBytes / (state.hello.page_size || 4096);
  const byId = new Map(blocks.map(b => [b.id, b]));
  const n = Math.max(...blocks.map(b => b.id)) + 1, total = n * blockBytes;
  const log = !!opts.log;
  const devBlocks = new Set();
  for (const d of state.devmem || [])
    for (let p = d.start_pfn; p < d.start_pfn + d.nr_pages; p += pagesPerBlock)
      devBlocks.add(Math.floor(p / pagesPerBlock));
  for (let id = 0; id < n; id++) {
    const b = byId.get(id);
    const x0 = addrX(id * blockBytes, total, W, log), x1 = addrX((id + 1) * blockBytes, total, W, log);
    const w = x1 - x0;
    const r = el("svg:rect", { x: x0, y: 6, width: Math.max(w - (w > 3 ? 0.6 : 0), 0.5), height: 56,
                               fill: b ? blockColour(b, devBlocks.has(id)) : "url(#hole)",
                               class: b ? "blk" : "hole", "data-id": id });
    r.appendChild(el("svg:title", {}, b ? `memory${id} at ${hex(id * blockBytes)}: ${b.state}` +
      (b.zone ? ` ${b.zone}` : "") + ` node ${b.node}` + (b.group ? ` (${b.group})` : "") +
      " - click: its pageblocks" : `${hex(id * blockBytes)}: hole, no memory`));
    if (b) r.addEventListener("click", () => onPick(id * pagesPerBlock, (id + 1) * pagesPerBlock));
    svg.appendChild(r);
  }
  let lastLabel = -100;
  for (const a of barTicks(total, log)) {
    const x = Math.min(addrX(a, total, W, log), 999);
    if (x - lastLabel < 28) continue;          // too close to the one before: no label
    lastLabel = x;
    svg.appendChild(el("svg:line", { x1: x, y1: 62, x2: x, y2: 68, stroke: "#555" }));
    svg.appendChild(el("svg:text", { x: Math.min(x + 2, 975), y: 80, "font-size": 10, fill: "#333" },
                       sizeLabel(a) || "0"));
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
