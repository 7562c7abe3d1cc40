// logic.js - the page's arithmetic, without a browser: decoding the
// pageblock strings of the view channel, the address bar's scales, the
// zone spans with their holes, the eject timeline's rows, the pcp and buddy
// counters, and the trace player's position.  Everything here is a pure
// function of the state memview.py serves (docs/view.md), so node's test
// runner checks it (tests/view/logic.test.mjs); the drawing modules call it.

// ---- pageblocks --------------------------------------------------------------

export const MT_NAMES = { U: "Unmovable", M: "Movable", R: "Reclaimable", H: "HighAtomic",
                          C: "CMA", I: "Isolate" };

// The largest free order a `free` letter stands for: 0-9, A = 10; -1 for
// '.' (nothing free in the buddy); null for a letter that is no pageblock
// of the zone (' ' outside, '-' hole or offline, '~' another zone's).
export function freeOrder(ch) {
  if (ch === ".") return -1;
  if (ch >= "0" && ch <= "9") return ch.charCodeAt(0) - 48;
  if (ch === "A") return 10;
  return null;
}

// One zone's map ({start_pfn, mt, free}) as cells: {pfn, mt, order} for
// each pageblock that is the zone's own (the others are left out).
export function decodeZoneMap(map, pageblockPages = 512) {
  const cells = [];
  if (!map || typeof map.mt !== "string" || typeof map.free !== "string") return cells;
  const n = Math.min(map.mt.length, map.free.length);
  for (let i = 0; i < n; i++) {
    const order = freeOrder(map.free[i]);
    if (order === null || !(map.mt[i] in MT_NAMES)) continue;
    cells.push({ pfn: map.start_pfn + i * pageblockPages, mt: map.mt[i], order });
  }
  return cells;
}

// Every zone's map merged into one Map pageblock index -> cell (pfn /
// pageblockPages), with the zone's key ("node:zone") in each cell.
export function mergeMaps(maps, pageblockPages = 512) {
  const all = new Map();
  for (const [key, map] of Object.entries(maps || {}))
    for (const c of decodeZoneMap(map, pageblockPages)) {
      c.zone = key;
      all.set(Math.floor(c.pfn / pageblockPages), c);
    }
  return all;
}

// What changed between two merged maps: the pageblocks whose largest free
// block got smaller (a split, or allocated: "split") or larger (a free
// merged: "merge"), whose migratetype changed ("mt"), that appeared or went.
export function diffMaps(before, after) {
  const changes = [];
  if (!before) return changes;
  for (const [i, c] of after) {
    const b = before.get(i);
    if (!b) changes.push({ i, kind: "new" });
    else if (b.mt !== c.mt) changes.push({ i, kind: "mt" });
    else if (c.order < b.order) changes.push({ i, kind: "split" });
    else if (c.order > b.order) changes.push({ i, kind: "merge" });
  }
  for (const i of before.keys())
    if (!after.has(i)) changes.push({ i, kind: "gone" });
  return changes;
}

// ---- the address bar -----------------------------------------------------------

// The x of address a on a bar of width w showing [0, total): linear, or
// logarithmic, log2(1 + a/unit) scaled to the width, so that the first
// blocks (unit bytes each) are wide and a terabyte plug still fits.
export function addrX(a, total, w, log = false, unit = 134217728) {
  if (total <= 0) return 0;
  a = Math.min(Math.max(a, 0), total);
  if (!log) return a / total * w;
  return Math.log2(1 + a / unit) / Math.log2(1 + total / unit) * w;
}

// The inverse of addrX: the address at x.
export function xAddr(x, total, w, log = false, unit = 134217728) {
  x = Math.min(Math.max(x, 0), w);
  if (!log) return x / w * total;
  return (Math.pow(2, x / w * Math.log2(1 + total / unit)) - 1) * unit;
}

// Tick addresses for the bar: multiples of a power-of-two GiB step,
// at most maxTicks of them (linear), or the powers of two from 128 MiB
// (logarithmic), always with 0 and total's end.
export function barTicks(total, log = false, maxTicks = 16) {
  const gib = 1 << 30, ticks = [0];
  if (log) {
    for (let a = 134217728; a < total; a *= 2) ticks.push(a);
  } else {
    let step = gib;
    while (total / step > maxTicks) step *= 2;
    for (let a = step; a < total; a += step) ticks.push(a);
  }
  ticks.push(total);
  return ticks;
}

// A size in the largest unit it reaches: "512M", "1G", "1.5T".
export function sizeLabel(bytes) {
  const units = [["T", 2 ** 40], ["G", 2 ** 30], ["M", 2 ** 20], ["K", 2 ** 10]];
  for (const [u, n] of units)
    if (bytes >= n) return (bytes % n === 0 ? String(bytes / n) : (bytes / n).toFixed(1)) + u;
  return String(bytes);
}

// ---- zone spans -------------------------------------------------------------------

// For each zone, its span [start, end) in pfns and the holes in it: runs
// of pfns that are not the zone's own, because no block is there (an
// address hole), the block is offline, or it is online in another zone.
// blocks are the channel's blocks; pagesPerBlock the pages of one.
export function zoneSpans(zones, blocks, pagesPerBlock) {
  const byId = new Map((blocks || []).map(b => [b.id, b]));
  return (zones || []).map(z => {
    const start = z.start_pfn, end = z.start_pfn + z.spanned, holes = [];
    const first = Math.floor(start / pagesPerBlock), last = Math.ceil(end / pagesPerBlock);
    for (let id = first; id < last; id++) {
      const b = byId.get(id);
      let why = null;
      if (!b) why = "no memory";
      else if (b.state !== "online") why = b.state;
      else if (b.zone !== z.name && b.zone !== "mixed") why = `zone ${b.zone}`;
      if (!why) continue;
      const lo = Math.max(start, id * pagesPerBlock), hi = Math.min(end, (id + 1) * pagesPerBlock);
      const prev = holes[holes.length - 1];
      if (prev && prev.end === lo && prev.why === why) prev.end = hi;
      else holes.push({ start: lo, end: hi, why });
    }
    return { name: z.name, node: z.node, start, end, spanned: z.spanned, present: z.present,
             holes };
  });
}

// ---- eject timeline --------------------------------------------------------------

// The timeline's events ({ms, id, from, to}) grouped per block, highest
// block first (an eject takes the blocks away from the top): [{id,
// steps: [{ms, to}]}], the pages migrated meanwhile ({ms, migrated}
// events, with the block they left and the blocks they landed in when
// the channel said: [{ms, pages, from, dests: [[block, pages]...],
// other}]), and the time range they cover.
export function timelineRows(events) {
  const rows = new Map(), migrations = [];
  let t0 = Infinity, t1 = -Infinity;
  for (const e of events || []) {
    if (typeof e.ms !== "number") continue;
    if (typeof e.id !== "number") {
      if (e.migrated) {
        const m = { ms: e.ms, pages: e.migrated };
        if (typeof e.from === "number") {
          m.from = e.from;
          m.dests = (e.dests || []).filter(d => Array.isArray(d) && d.length === 2);
          m.other = e.other || 0;
        }
        migrations.push(m);
        t0 = Math.min(t0, e.ms);
        t1 = Math.max(t1, e.ms);
      }
      continue;
    }
    if (!rows.has(e.id)) rows.set(e.id, { id: e.id, steps: [] });
    rows.get(e.id).steps.push({ ms: e.ms, from: e.from, to: e.to });
    t0 = Math.min(t0, e.ms);
    t1 = Math.max(t1, e.ms);
  }
  const list = [...rows.values()].sort((a, b) => b.id - a.id);
  for (const r of list) r.steps.sort((a, b) => a.ms - b.ms);
  return { rows: list, migrations, t0: list.length ? t0 : 0, t1: list.length ? t1 : 0 };
}

// The order in which blocks left (went "absent" or "offline"): block ids,
// earliest first.
export function leavingOrder(events) {
  const when = new Map();
  for (const e of events || [])
    if (typeof e.id === "number" && (e.to === "absent" || e.to === "offline") && !when.has(e.id))
      when.set(e.id, e.ms);
  return [...when.entries()].sort((a, b) => a[1] - b[1] || b[0] - a[0]).map(e => e[0]);
}

// ---- pcp and buddy ---------------------------------------------------------------

// What each counter includes, for one zone: the buddy's free pages (the
// sum over free_blocks of count * 2^order, which is zoneinfo's `pages
// free`), the pages on the per-CPU lists (each CPU's), and MemFree's share
// (the buddy's only: pcp pages count as allocated).
export function pcpCounters(zone) {
  const buddy = (zone.free_blocks || []).reduce((s, n, o) => s + n * 2 ** o, 0);
  const cpus = zone.pcp_cpus || [];
  const pcp = cpus.length ? cpus.reduce((s, n) => s + n, 0) : (zone.pcp || 0);
  return { buddy, pcp, cpus, zoneinfoFree: zone.free, memFreePages: zone.free,
           consistent: buddy === zone.free };
}

// pagetypeinfo: the zone's free_mt rows as [{mt, name, counts, pages}] for
// the migratetypes that have anything free or a name in `names`.
export function pagetypeRows(zone, names) {
  return (zone.free_mt || []).map((counts, i) => ({
    mt: i, name: (names && names[i]) || `type ${i}`, counts,
    pages: counts.reduce((s, n, o) => s + n * 2 ** o, 0),
  }));
}

// ---- the trace player ---------------------------------------------------------------

// The pfn ranges a trace line names: "[0x100-0x200)" as [0x100, 0x200),
// "pfn 0x7be00 order 9" as [0x7be00, 0x7be00 + 512), a bare "pfn 0x1234" as
// one page.  Returns [[start, end)...] in pfns.
export function traceRanges(text) {
  const out = [];
  const range = /\[(0x[0-9a-f]+)-(0x[0-9a-f]+)\)/gi;
  let m;
  while ((m = range.exec(text))) out.push([parseInt(m[1], 16), parseInt(m[2], 16)]);
  const pfn = /pfn (0x[0-9a-f]+)(?: \+(\d+) pages| order (\d+))?/gi;
  while ((m = pfn.exec(text))) {
    const start = parseInt(m[1], 16);
    const n = m[2] ? parseInt(m[2], 10) : m[3] ? 2 ** parseInt(m[3], 10) : 1;
    out.push([start, start + n]);
  }
  return out;
}

// A player over a list of steps: a position (-1 before the first), step
// forward and back, jump, and play (advance one step per tick()).
export class TracePlayer {
  constructor(steps = []) {
    this.steps = steps;
    this.pos = -1;
    this.playing = false;
  }
  setSteps(steps) {
    this.steps = steps;
    if (this.pos >= steps.length) this.pos = steps.length - 1;
  }
  current() { return this.pos >= 0 ? this.steps[this.pos] : null; }
  step(d = 1) {
    this.pos = Math.max(-1, Math.min(this.steps.length - 1, this.pos + d));
    return this.current();
  }
  seek(i) { this.pos = Math.max(-1, Math.min(this.steps.length - 1, i)); return this.current(); }
  play() { if (this.pos >= this.steps.length - 1) this.pos = -1; this.playing = true; }
  pause() { this.playing = false; }
  // One tick of playing: the next step, or stop at the end.  True if it moved.
  tick() {
    if (!this.playing) return false;
    if (this.pos >= this.steps.length - 1) { this.playing = false; return false; }
    this.pos++;
    return true;
  }
}

// ---- latency ------------------------------------------------------------------------

// How long ago, on the host clock, an update written in the guest at
// guestMs arrived at nowMs, given memview.py's estimate offsetMs (guest
// ms - host ms); null when there is no estimate yet.
export function updateLatency(guestMs, offsetMs, nowMs) {
  if (typeof guestMs !== "number" || typeof offsetMs !== "number") return null;
  return nowMs - (guestMs - offsetMs);
}

// The words under a migration's arrow: how many pages, and the blocks they
// landed in ("4096 pages -> memory5 (3000), memory7 (1096)"), with the rest
// when more blocks took some than the channel lists.
export function migrationLabel(mg) {
  let s = `${mg.pages} pages migrated`;
  if (mg.dests && mg.dests.length) {
    s += " -> " + mg.dests.map(([id, n]) => `memory${id} (${n})`).join(", ");
    if (mg.other) s += `, ${mg.other} elsewhere`;
  }
  return s;
}
