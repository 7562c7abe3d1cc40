// dom.js - the page's small shared helpers: making SVG and HTML elements,
// number formats, and the colours of zones, states and migratetypes
// (the same in every picture, so a colour means one thing on the page).

export const SVG = "http://www.w3.org/2000/svg";

export const ZONE_COLOURS = {
  DMA: "#f2b134", DMA32: "#4f9fd8", Normal: "#4bb36b", Movable: "#b184d6",
  Device: "#d86a6a", mixed: "#e8d36a",
};
export const OFFLINE = "#9a9a9a", GOING = "#ff7f2a";
export const MT_COLOURS = { U: "#d9534f", M: "#5cb85c", R: "#f0ad4e", H: "#8e44ad",
                            C: "#31708f", I: "#222222" };
export const MT_NAME_COLOURS = { Unmovable: MT_COLOURS.U, Movable: MT_COLOURS.M,
  Reclaimable: MT_COLOURS.R, HighAtomic: MT_COLOURS.H, CMA: MT_COLOURS.C,
  Isolate: MT_COLOURS.I };

export function el(tag, attrs, text) {
  const e = tag.startsWith("svg:") ? document.createElementNS(SVG, tag.slice(4))
                                   : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

export function hex(n) { return "0x" + Number(n).toString(16); }

export function mib(pages, pageSize = 4096) {
  return (pages * pageSize / 1048576).toFixed(1) + " MiB";
}

// The colour of one memory block: its zone while online, else its state.
export function blockColour(b, device) {
  if (device) return ZONE_COLOURS.Device;
  if (b.state === "offline") return OFFLINE;
  if (b.state === "going-offline") return GOING;
  return ZONE_COLOURS[b.zone] || "#444";
}

// The fill of a free order on the pageblock map: white (nothing free) to
// deep blue (a whole order-10 block).
export function orderColour(order) {
  if (order < 0) return "#ffffff";
  const t = (order + 1) / 11;
  const r = Math.round(235 - 200 * t), g = Math.round(240 - 150 * t), b = Math.round(255 - 60 * t);
  return `rgb(${r},${g},${b})`;
}
