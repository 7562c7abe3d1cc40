// logic.test.mjs - tools/view/logic.js under node's test runner (make
// test-view, part of make test): the pageblock strings decoded as the
// channel sends them, the bar's scales, zone spans and their holes, the
// eject timeline, the pcp counters and the trace player.
import test from "node:test";
import assert from "node:assert/strict";
import * as L from "../../tools/view/logic.js";

test("free letters decode to orders, and others to no pageblock", () => {
  assert.equal(L.freeOrder("."), -1);
  assert.equal(L.freeOrder("0"), 0);
  assert.equal(L.freeOrder("9"), 9);
  assert.equal(L.freeOrder("A"), 10);
  for (const ch of [" ", "-", "~", "B", ""]) assert.equal(L.freeOrder(ch), null);
});

test("a zone's map keeps only its own pageblocks, at their pfns", () => {
  // DMA32 from pfn 0x1000: the channel's chunk starts at the section, pfn 0
  const map = { start_pfn: 0, mt: "        UMM-~M", free: "        .5A-~9" };
  const cells = L.decodeZoneMap(map, 512);
  assert.deepEqual(cells, [
    { pfn: 8 * 512, mt: "U", order: -1 },
    { pfn: 9 * 512, mt: "M", order: 5 },
    { pfn: 10 * 512, mt: "M", order: 10 },
    { pfn: 13 * 512, mt: "M", order: 9 },
  ]);
  assert.deepEqual(L.decodeZoneMap({ start_pfn: 0, mt: 5, free: "" }), []);
  assert.deepEqual(L.decodeZoneMap(null), []);
});

test("maps merge by pageblock and their differences name splits and merges", () => {
  const a = L.mergeMaps({ "0:DMA": { start_pfn: 0, mt: "UM", free: ".A" },
                          "0:DMA32": { start_pfn: 1024, mt: "MM", free: "AA" } });
  assert.equal(a.size, 4);
  assert.equal(a.get(2).zone, "0:DMA32");
  const b = L.mergeMaps({ "0:DMA": { start_pfn: 0, mt: "UM", free: "0A" },
                          "0:DMA32": { start_pfn: 1024, mt: "MU", free: "3A" } });
  const kinds = Object.fromEntries(L.diffMaps(a, b).map(c => [c.i, c.kind]));
  assert.deepEqual(kinds, { 0: "merge", 2: "split", 3: "mt" });
  assert.deepEqual(L.diffMaps(null, b), []);
  const c = L.mergeMaps({ "0:DMA": { start_pfn: 0, mt: "U", free: "0" } });
  assert.deepEqual(L.diffMaps(b, c).map(x => x.kind).sort(), ["gone", "gone", "gone"]);
});

test("the bar's linear and log scales are monotonic and invert", () => {
  const total = 2 ** 40, w = 1000;
  for (const log of [false, true]) {
    let last = -1;
    for (let a = 0; a <= total; a += total / 64) {
      const x = L.addrX(a, total, w, log);
      assert.ok(x > last, `x grows (${log})`);
      last = x;
      assert.ok(Math.abs(L.xAddr(x, total, w, log) - a) <= total * 1e-9);
    }
    assert.equal(L.addrX(total, total, w, log), w);
    assert.equal(L.addrX(-5, total, w, log), 0);
  }
  // log: the first 128 MiB block is far wider than on a linear bar
  assert.ok(L.addrX(2 ** 27, total, w, true) > 50 * L.addrX(2 ** 27, total, w, false));
});

test("ticks: thinned to 16 on a linear bar, powers of two on a log bar", () => {
  const lin = L.barTicks(2 ** 36, false);
  assert.ok(lin.length <= 18);
  assert.equal(lin[0], 0);
  assert.equal(lin[lin.length - 1], 2 ** 36);
  const log = L.barTicks(2 ** 31, true);
  assert.deepEqual(log, [0, 2 ** 27, 2 ** 28, 2 ** 29, 2 ** 30, 2 ** 31]);
  assert.equal(L.sizeLabel(2 ** 30), "1G");
  assert.equal(L.sizeLabel(3 * 2 ** 39), "1.5T");
});

test("a zone's span shows offline blocks, other zones and address holes inside it", () => {
  const P = 32768;
  const zones = [{ name: "Normal", node: 0, start_pfn: 0x100000, spanned: 4 * P, present: 2 * P }];
  const blocks = [
    { id: 32, state: "online", zone: "Normal" },
    { id: 33, state: "offline", zone: null },
    { id: 35, state: "online", zone: "Movable" },
  ];
  const [s] = L.zoneSpans(zones, blocks, P);
  assert.equal(s.start, 0x100000);
  assert.equal(s.end, 0x100000 + 4 * P);
  assert.deepEqual(s.holes, [
    { start: 33 * P, end: 34 * P, why: "offline" },
    { start: 34 * P, end: 35 * P, why: "no memory" },
    { start: 35 * P, end: 36 * P, why: "zone Movable" },
  ]);
  // a boot block across DMA and DMA32 ("mixed") is no hole in either
  const [d] = L.zoneSpans([{ name: "DMA32", node: 0, start_pfn: 4096, spanned: P - 4096 }],
                          [{ id: 0, state: "online", zone: "mixed" }], P);
  assert.deepEqual(d.holes, []);
});

test("the eject timeline lists blocks top-down and their leaving order", () => {
  const ev = [
    { ms: 100, id: 40, from: "online", to: "going-offline" },
    { ms: 150, id: 40, from: "going-offline", to: "offline" },
    { ms: 160, id: 39, from: "online", to: "offline" },
    { ms: 300, id: 40, from: "offline", to: "absent" },
    { ms: 310, id: 39, from: "offline", to: "absent" },
    { ms: null, id: 1, from: "x", to: "y" },
    { ms: 155, migrated: 4096 },
  ];
  const t = L.timelineRows(ev);
  assert.deepEqual(t.rows.map(r => r.id), [40, 39]);
  assert.equal(t.t0, 100);
  assert.equal(t.t1, 310);
  assert.equal(t.rows[0].steps.length, 3);
  assert.deepEqual(t.migrations, [{ ms: 155, pages: 4096 }]);
  // with the channel's destinations: the block left, where the pages went
  const d = L.timelineRows([{ ms: 10, id: 40, from: "online", to: "offline" },
                            { ms: 12, migrated: 4096, from: 40, dests: [[5, 3000], [7, 1096], [9]],
                              other: 0 }]);
  assert.deepEqual(d.migrations, [{ ms: 12, pages: 4096, from: 40, dests: [[5, 3000], [7, 1096]],
                                    other: 0 }]);
  assert.equal(L.migrationLabel(d.migrations[0]),
               "4096 pages migrated -> memory5 (3000), memory7 (1096)");
  assert.equal(L.migrationLabel({ pages: 8, dests: [[1, 4]], other: 4 }),
               "8 pages migrated -> memory1 (4), 4 elsewhere");
  assert.equal(L.migrationLabel({ pages: 8 }), "8 pages migrated");
  assert.deepEqual(L.leavingOrder(ev), [40, 39]);
  assert.deepEqual(L.timelineRows([]), { rows: [], migrations: [], t0: 0, t1: 0 });
  // steps of a block come in time order even when the log's and the
  // layout's events arrive out of order
  const late = L.timelineRows([{ ms: 20, id: 3, from: "offline", to: "absent" },
                               { ms: 10, id: 3, from: "online", to: "offline" }]);
  assert.deepEqual(late.rows[0].steps.map(s => s.to), ["offline", "absent"]);
});

test("pcp pages are in no free counter: the buddy sum is zoneinfo's free", () => {
  const z = { free: 1 + 2 * 2 + 1024, free_blocks: [1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 1],
              pcp: 63, pcp_cpus: [62, 1] };
  const c = L.pcpCounters(z);
  assert.equal(c.buddy, z.free);
  assert.equal(c.pcp, 63);
  assert.ok(c.consistent);
  assert.equal(c.memFreePages, z.free);
  assert.ok(!L.pcpCounters({ free: 7, free_blocks: [1], pcp: 0 }).consistent);
  const rows = L.pagetypeRows({ free_mt: [[0, 1], [2, 0]] }, ["Unmovable", "Movable"]);
  assert.deepEqual(rows.map(r => [r.name, r.pages]), [["Unmovable", 2], ["Movable", 2]]);
});

test("trace lines name pfn ranges", () => {
  assert.deepEqual(L.traceRanges("zone DMA32: walked 761 pageblocks; [0x60000-0x60200) fails"),
                   [[0x60000, 0x60200]]);
  assert.deepEqual(L.traceRanges("new: pfn 0x7be00 order 9 (CMA)"), [[0x7be00, 0x7be00 + 512]]);
  assert.deepEqual(L.traceRanges("pfn 0x1000 +512 pages: template"), [[0x1000, 0x1200]]);
  assert.deepEqual(L.traceRanges("design new -> old"), []);
});

test("the trace player steps, seeks, plays to the end and stops", () => {
  const p = new L.TracePlayer(["a", "b", "c"]);
  assert.equal(p.current(), null);
  assert.equal(p.step(), "a");
  assert.equal(p.step(5), "c");
  assert.equal(p.step(-1), "b");
  assert.equal(p.seek(-7), null);
  p.play();
  assert.ok(p.tick() && p.tick() && p.tick());
  assert.equal(p.current(), "c");
  assert.ok(!p.tick());
  assert.ok(!p.playing);
  p.play();                        // at the end, play starts over
  assert.equal(p.pos, -1);
  p.setSteps(["x"]);
  assert.equal(p.pos, -1);
  p.seek(0);
  p.setSteps([]);
  assert.equal(p.pos, -1);
});

test("latency: host receipt minus the guest stamp on the host clock", () => {
  assert.equal(L.updateLatency(5000, 4000, 1030), 30);
  assert.equal(L.updateLatency(undefined, 4000, 1030), null);
  assert.equal(L.updateLatency(5000, null, 1030), null);
});
