// Hand-written SVG charts: a few hundred lines instead of a charting library, and every label is
// an SVG text node, so a metric's or a parameter's name is shown as the characters it is.
import {number, s} from './dom.js';

const PALETTE = ['#2b5797', '#d9534f', '#5cb85c', '#f0ad4e', '#5bc0de', '#9b59b6', '#34495e', '#e67e22', '#16a085', '#c0392b'];
export const color = (i) => PALETTE[i % PALETTE.length];

function extent(values) {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (v === null || v === undefined || !isFinite(v)) continue;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  if (lo === Infinity) return [0, 1];
  if (lo === hi) return [lo - (Math.abs(lo) || 1) * 0.5, hi + (Math.abs(hi) || 1) * 0.5];
  return [lo, hi];
}

function ticks([lo, hi], n) {
  const step = (hi - lo) / n;
  return Array.from({length: n + 1}, (_, i) => lo + i * step);
}

/**
 * Lines of [x, y] points. series: [{name, points, cls, color, title}]; xFormat formats the x axis.
 * Each series is one path of class "curve" (plus its cls), carrying data-name.
 */
export function lineChart({series, width = 640, height = 260, xLabel = '', yLabel = '', xFormat = number, cls = ''}) {
  const m = {l: 64, r: 12, t: 10, b: 36};
  const w = width - m.l - m.r;
  const hgt = height - m.t - m.b;
  const xs = extent(series.flatMap((x) => x.points.map((p) => p[0])));
  const ys = extent(series.flatMap((x) => x.points.map((p) => p[1])));
  const X = (v) => m.l + ((v - xs[0]) / (xs[1] - xs[0])) * w;
  const Y = (v) => m.t + hgt - ((v - ys[0]) / (ys[1] - ys[0])) * hgt;
  const svg = s('svg', {class: 'chart ' + cls, viewBox: `0 0 ${width} ${height}`, width, height, role: 'img'});
  const axes = s('g', {class: 'axes'});
  for (const t of ticks(ys, 4)) {
    axes.append(s('line', {x1: m.l, x2: m.l + w, y1: Y(t), y2: Y(t), class: 'grid'}),
      s('text', {x: m.l - 6, y: Y(t) + 4, 'text-anchor': 'end'}, number(t)));
  }
  for (const t of ticks(xs, 5)) {
    axes.append(s('text', {x: X(t), y: m.t + hgt + 16, 'text-anchor': 'middle'}, xFormat(t)));
  }
  axes.append(s('text', {x: m.l + w / 2, y: height - 4, 'text-anchor': 'middle', class: 'axis-label'}, xLabel),
    s('text', {x: 12, y: m.t + hgt / 2, transform: `rotate(-90 12 ${m.t + hgt / 2})`, 'text-anchor': 'middle', class: 'axis-label'}, yLabel),
    s('rect', {x: m.l, y: m.t, width: w, height: hgt, class: 'frame'}));
  svg.append(axes);
  series.forEach((ser, i) => {
    const pts = ser.points.filter((p) => p[1] !== null && isFinite(p[1]) && isFinite(p[0]));
    if (!pts.length) return;
    const d = pts.map((p, j) => (j ? 'L' : 'M') + X(p[0]).toFixed(1) + ' ' + Y(p[1]).toFixed(1)).join('');
    const path = s('path', {d, class: 'curve ' + (ser.cls || ''), stroke: ser.color || color(i), 'data-name': ser.name},
      s('title', null, ser.title || ser.name));
    svg.append(path);
    if (pts.length === 1) svg.append(s('circle', {cx: X(pts[0][0]), cy: Y(pts[0][1]), r: 3, fill: ser.color || color(i)}));
    if (ser.marker) {
      const last = pts[pts.length - 1];
      svg.append(s('text', {x: X(last[0]), y: Y(last[1]) - 4, class: 'marker', fill: ser.color || color(i)}, ser.marker));
    }
  });
  return svg;
}

export function legend(series) {
  return series.map((ser, i) => {
    const el = document.createElement('span');
    el.className = 'legend-item';
    const sw = s('svg', {width: 12, height: 12, class: 'swatch'}, s('rect', {width: 12, height: 12, fill: ser.color || color(i)}));
    el.append(sw, document.createTextNode(' ' + ser.name));
    return el;
  });
}

/**
 * Parallel coordinates: one vertical axis per dimension ({name, values?}: numbers scale linearly,
 * anything else is placed by its rank among the distinct values), one polyline per row.
 */
export function parallelCoordinates({dims, rows, width = 760, height = 280, colorOf}) {
  const m = {l: 40, r: 60, t: 24, b: 20};
  const w = width - m.l - m.r;
  const hgt = height - m.t - m.b;
  const svg = s('svg', {class: 'chart parallel', viewBox: `0 0 ${width} ${height}`, width, height, role: 'img'});
  const scales = dims.map((d) => {
    const vals = rows.map((r) => r.values[d.name]);
    const numeric = vals.every((v) => v === null || v === undefined || typeof v === 'number');
    if (numeric) {
      const e = extent(vals);
      return {label: (v) => number(v), pos: (v) => (v === null || v === undefined ? null : (v - e[0]) / (e[1] - e[0])), ends: e};
    }
    const distinct = [...new Set(vals.map((v) => JSON.stringify(v ?? null)))].sort();
    return {pos: (v) => (distinct.length < 2 ? 0.5 : distinct.indexOf(JSON.stringify(v ?? null)) / (distinct.length - 1)), distinct};
  });
  const X = (i) => m.l + (dims.length < 2 ? w / 2 : (i / (dims.length - 1)) * w);
  const Y = (p) => m.t + hgt - p * hgt;
  rows.forEach((r, ri) => {
    const pts = [];
    dims.forEach((d, i) => {
      const p = scales[i].pos(r.values[d.name]);
      if (p !== null && isFinite(p)) pts.push(X(i).toFixed(1) + ',' + Y(p).toFixed(1));
    });
    svg.append(s('polyline', {points: pts.join(' '), class: 'pc-line ' + (r.cls || ''), stroke: colorOf ? colorOf(r, ri) : color(ri)},
      s('title', null, r.title || '')));
  });
  dims.forEach((d, i) => {
    const g = s('g', {class: 'pc-axis'});
    g.append(s('line', {x1: X(i), x2: X(i), y1: m.t, y2: m.t + hgt}),
      s('text', {x: X(i), y: m.t - 8, 'text-anchor': 'middle', class: 'axis-label'}, d.name));
    const sc = scales[i];
    if (sc.ends) {
      g.append(s('text', {x: X(i) + 4, y: m.t + hgt, class: 'tick'}, number(sc.ends[0])),
        s('text', {x: X(i) + 4, y: m.t + 8, class: 'tick'}, number(sc.ends[1])));
    } else {
      sc.distinct.forEach((v, k) => g.append(s('text', {x: X(i) + 4, y: Y(sc.distinct.length < 2 ? 0.5 : k / (sc.distinct.length - 1)) + 4, class: 'tick'},
        String(JSON.parse(v)))));
    }
    svg.append(g);
  });
  return svg;
}
