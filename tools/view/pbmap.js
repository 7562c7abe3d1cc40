// pbmap.js - the pageblock map (what `buddy map` prints) on a canvas: one
// cell per 2 MiB pageblock, its upper part the migratetype's colour, its
// lower part the largest free block in it (white: none; deep blue: a whole
// order-10 block).  It zooms from the whole machine down to one memory
// block (a click on the address bar, the wheel here), outlines what just
// split (red) or merged (green) for a moment, outlines the current trace
// step's pfns (orange), and a click on a cell asks for its struct page.
import { MT_COLOURS, orderColour, hex } from "./dom.js";
import { mergeMaps, diffMaps, MT_NAMES } from "./logic.js";

const W = 1000, FLASH_MS = 1500;

export class PageblockMap {
  constructor(canvas, info, onCell) {
    this.canvas = canvas;
    this.info = info;
    this.onCell = onCell;
    this.cells = new Map();
    this.flashes = new Map();     // pageblock index -> {kind, until}
    this.window = null;           // [lo, hi) in pageblocks, null: everything
    this.highlight = [];          // [[start, end)] pfns of the trace step
    this.pbPages = 512;
    this.totalPb = 0;
    this.splits = 0;
    this.merges = 0;
    canvas.addEventListener("click", e => this._click(e));
    canvas.addEventListener("wheel", e => { e.preventDefault(); this._wheel(e); }, { passive: false });
  }

  // New maps from the state: diff against the last for the flashes.
  update(state) {
    const h = state.hello || {};
    this.pbPages = h.pageblock_pages || 512;
    const pagesPerBlock = (h.block_bytes || 134217728) / (h.page_size || 4096);
    const blocks = state.blocks || [];
    const n = blocks.length ? Math.max(...blocks.map(b => b.id)) + 1 : 0;
    this.totalPb = n * pagesPerBlock / this.pbPages;
    const cells = mergeMaps(state.pageblocks, this.pbPages);
    const now = performance.now();
    for (const c of diffMaps(this.cells.size ? this.cells : null, cells)) {
      if (c.kind === "split") this.splits++;
      if (c.kind === "merge") this.merges++;
      this.flashes.set(c.i, { kind: c.kind, until: now + FLASH_MS });
    }
    this.cells = cells;
    this.draw();
  }

  zoomTo(loPfn, hiPfn) {
    this.window = [Math.floor(loPfn / this.pbPages), Math.ceil(hiPfn / this.pbPages)];
    this.draw();
  }

  zoomOut() { this.window = null; this.draw(); }

  setHighlight(ranges) { this.highlight = ranges || []; this.draw(); }

  _range() { return this.window || [0, Math.max(1, this.totalPb)]; }

  // Cells per row: 64 (one memory block a row, as `buddy map`) until the
  // rows would pass 64, then doubled.
  _layout() {
    const [lo, hi] = this._range(), count = hi - lo;
    let cols = Math.min(64, count);
    while (count / cols > 64) cols *= 2;
    const cw = W / cols, rows = Math.ceil(count / cols);
    const ch = Math.max(Math.min(cw, 28), Math.min(6, 480 / rows));
    return { lo, hi, cols, cw, ch, rows };
  }

  draw() {
    const L = this._layout(), ctx = this.canvas.getContext("2d");
    this.canvas.width = W;
    this.canvas.height = Math.max(20, Math.ceil(L.rows * L.ch));
    ctx.fillStyle = "#eeeeee";
    ctx.fillRect(0, 0, this.canvas.width, this.canvas.height);
    const now = performance.now();
    let shown = 0, order10 = 0, movable = 0, unmovable = 0;
    for (let i = L.lo; i < L.hi; i++) {
      const c = this.cells.get(i);
      if (!c) continue;
      const k = i - L.lo, x = (k % L.cols) * L.cw, y = Math.floor(k / L.cols) * L.ch;
      shown++;
      if (c.order === 10) order10++;
      if (c.mt === "M") movable++;
      if (c.mt === "U") unmovable++;
      ctx.fillStyle = MT_COLOURS[c.mt] || "#000";
      ctx.fillRect(x, y, L.cw, L.ch * 0.45);
      ctx.fillStyle = orderColour(c.order);
      ctx.fillRect(x, y + L.ch * 0.45, L.cw, L.ch * 0.55);
      if (L.cw >= 14 && L.ch >= 14) {
        ctx.fillStyle = "#000";
        ctx.font = "10px monospace";
        ctx.fillText(c.order < 0 ? "." : c.order === 10 ? "A" : String(c.order), x + 3, y + L.ch - 3);
      }
      const f = this.flashes.get(i);
      if (f && f.until > now) {
        ctx.strokeStyle = f.kind === "merge" ? "#00a000" : f.kind === "split" ? "#e00000" : "#0060ff";
        ctx.lineWidth = Math.max(1, Math.min(3, L.cw / 4));
        ctx.strokeRect(x + 0.5, y + 0.5, Math.max(1, L.cw - 1), Math.max(1, L.ch - 1));
      }
    }
    for (const [s, e] of this.highlight) {
      const a = Math.max(L.lo, Math.floor(s / this.pbPages)), b = Math.min(L.hi, Math.ceil(e / this.pbPages));
      ctx.strokeStyle = "#ff8c00";
      ctx.lineWidth = 2;
      for (let i = a; i < b; i++) {
        const k = i - L.lo;
        ctx.strokeRect((k % L.cols) * L.cw + 1, Math.floor(k / L.cols) * L.ch + 1,
                       Math.max(1, L.cw - 2), Math.max(1, L.ch - 2));
      }
    }
    for (const [i, f] of this.flashes) if (f.until <= now) this.flashes.delete(i);
    if (this.flashes.size && !this._timer)
      this._timer = setTimeout(() => { this._timer = null; this.draw(); }, 300);
    const d = this.canvas.dataset;
    d.cells = this.cells.size;
    d.shown = shown;
    d.order10 = order10;
    d.movable = movable;
    d.unmovable = unmovable;
    d.splits = this.splits;
    d.merges = this.merges;
    const pfnLo = L.lo * this.pbPages, pfnHi = L.hi * this.pbPages;
    this.info.textContent = `pfn ${hex(pfnLo)}-${hex(pfnHi)}: ${shown} pageblocks of ` +
      `${L.hi - L.lo} shown, ${L.cols} a row; ${order10} hold a free order-10 block; ` +
      `since the page opened ${this.splits} split or were allocated from, ${this.merges} merged`;
  }

  _cellAt(e) {
    const r = this.canvas.getBoundingClientRect(), L = this._layout();
    const x = (e.clientX - r.left) * this.canvas.width / r.width;
    const y = (e.clientY - r.top) * this.canvas.height / r.height;
    const k = Math.floor(y / L.ch) * L.cols + Math.floor(x / L.cw);
    return L.lo + k < L.hi ? { i: L.lo + k, frac: (x % L.cw) / L.cw } : null;
  }

  _click(e) {
    const hit = this._cellAt(e);
    if (!hit || !this.cells.has(hit.i)) return;
    const c = this.cells.get(hit.i);
    this.onCell(c.pfn + Math.floor(hit.frac * this.pbPages), c, MT_NAMES[c.mt]);
  }

  _wheel(e) {
    const hit = this._cellAt(e);
    const [lo, hi] = this._range(), span = hi - lo;
    const centre = hit ? hit.i : lo + span / 2;
    const next = e.deltaY < 0 ? Math.max(8, Math.floor(span / 2)) : span * 2;
    if (next >= this.totalPb) return this.zoomOut();
    const nlo = Math.max(0, Math.min(this.totalPb - next, Math.round(centre - next / 2)));
    this.window = [nlo, nlo + next];
    this.draw();
  }
}
