/**
 * The page's script (plain browser JavaScript, ES2020, no template literals so that it can live
 * in this string). It reads the report model (report/model.ts: ReportModel) from the page,
 * gzip-compressed and base64-encoded, and draws:
 *  - per kernel: resources, occupancy, cycle totals, the diagnostics list (each links to its row);
 *  - the code listing, virtualized (only the rows in view are in the DOM) with issue cycle,
 *    stall, reason and live registers per instruction; waits, nops and hazards highlighted;
 *  - the timeline of one basic block or scheduling region (SVG: stall, issue and latency bars
 *    per instruction), in pages of TL_PAGE instructions;
 *  - register pressure along the code (uPlot), with declared limits and occupancy breakpoints.
 * With a scheduled file: metric deltas, every loop's cycles per iteration before and after with
 * its bound, the moves by region (each with its cycles before and after and a link that shows
 * the region in both timelines), and both kernels side by side.
 * When everything is drawn, body[data-ready] is set (the browser tests wait for it).
 */
/** Instructions per page of the timeline. */
export const TIMELINE_PAGE = 400;

export const CLIENT_SCRIPT = String.raw`
(function () {
  'use strict';
  var ROW_H = 18;
  var TL_PAGE = ${TIMELINE_PAGE};
  var TL_ROW = 9;
  var OVERSCAN = 30;
  var COLORS = { vgpr: '#1f6fd1', agpr: '#c2410c', sgpr: '#15803d' };
  var KIND_WAIT = 1, KIND_NOP = 2;
  var SEV = ['', 'note', 'warning', 'error'];
  /** Up to this many moves, every region's group starts open. */
  var MOVES_OPEN = 40;

  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&#39;';
    });
  }
  function el(tag, cls, html) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (html !== undefined) e.innerHTML = html;
    return e;
  }
  function fmt(x) { return Number.isInteger(x) ? String(x) : x.toFixed(2); }

  async function readModel() {
    var node = document.getElementById('report-data');
    var bin = atob(node.textContent.trim());
    var bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    return JSON.parse(await new Response(stream).text());
  }

  // ------------------------------------------------------------------ summary
  function occText(o) {
    if (!o) return '-';
    var parts = [];
    for (var k in o.byResource) parts.push(k + ' ' + o.byResource[k]);
    return '<b>' + o.wavesPerSimd + '</b> waves/SIMD, limited by <b>' + esc(o.limiter) + '</b> <span class="dim">(' + esc(parts.join(', ')) + ')</span>';
  }

  function summary(k) {
    var r = k.resources;
    var rows = '';
    ['vgpr', 'agpr', 'sgpr'].forEach(function (f) {
      if (r.fileMax[f] === 0) return;
      var pk = r.peak[f];
      rows += '<tr><th>' + f.toUpperCase() + '</th><td>' + pk.value + (pk.line ? ' <a href="#" class="goto-line" data-line="' + pk.line + '">line ' + pk.line + '</a>' : '') +
        '</td><td>' + r.used[f] + '</td><td>' + (r.declared ? r.declared[f] : '-') + '</td><td>' + r.fileMax[f] + '</td></tr>';
    });
    var c = k.cycles;
    var loopText = c.loops.map(function (l) {
      var back = l.backEdgeLines && l.backEdgeLines.length > 1 ? 'back edges at lines ' + l.backEdgeLines.join(', ') : 'back edge at line ' + l.latchLine;
      return 'loop at line ' + l.headerLine + ' (' + back + '): ' + fmt(l.perIteration) + ' cycles/iteration (' + l.instructions + ' instructions)';
    });
    var loops = loopText.slice(0, 4).join('<br>');
    if (loopText.length > 4) {
      loops += '<details class="more"><summary>' + (loopText.length - 4) + ' more loops</summary>' + loopText.slice(4).join('<br>') + '</details>';
    }
    return '<table class="res"><thead><tr><th></th><th>peak live</th><th>used</th><th>declared</th><th>file</th></tr></thead><tbody>' + rows + '</tbody></table>' +
      '<div class="facts">' +
      '<div><span class="k">LDS</span> ' + (r.declared ? r.declared.lds + ' bytes' : '-') + (r.ldsAtLaunch !== undefined ? ' + ' + r.ldsAtLaunch + ' bytes at launch (--lds)' : '') + '</div>' +
      '<div><span class="k">occupancy (descriptor)</span> ' + occText(r.occupancy.descriptor) + '</div>' +
      '<div><span class="k">occupancy (registers used)</span> ' + occText(r.occupancy.registersUsed) + '</div>' +
      '<div><span class="k">occupancy (peak live)</span> ' + occText(r.occupancy.peakLive) + '</div>' +
      '<div><span class="k">cycles, one wave</span> ' + fmt(c.single) + ' <span class="dim">(lower bound ' + fmt(c.lowerBound) + ')</span>; ' +
      c.multi.waves + ' waves: ' + fmt(c.multi.cycles) + ' (' + fmt(c.multi.perWave) + ' per wave)</div>' +
      (loops ? '<div><span class="k">loops</span> ' + loops + '</div>' : '') +
      '<div><span class="k">findings</span> ' + k.counts.errors + ' errors, ' + k.counts.warnings + ' warnings, ' + k.counts.notes + ' notes</div>' +
      '</div>';
  }

  // ------------------------------------------------------------------ code listing (virtualized)
  function CodeView(k, host) {
    var code = k.code;
    var items = []; // >= 0: instruction index; < 0: -(block id) - 1 (label row)
    var itemOfInsn = new Int32Array(k.instructions);
    var b = 0;
    for (var i = 0; i < k.instructions; i++) {
      while (b < k.blocks.length && k.blocks[b].start === i) {
        if (k.blocks[b].labels.length) items.push(-b - 1);
        b++;
      }
      itemOfInsn[i] = items.length;
      items.push(i);
    }
    var scroller = el('div', 'code');
    var spacer = el('div', 'spacer');
    spacer.style.height = (items.length * ROW_H) + 'px';
    var rowsEl = el('div', 'rows');
    spacer.appendChild(rowsEl);
    scroller.appendChild(spacer);
    var head = el('div', 'code-head', '<span class="ln">line</span><span class="is">issue</span><span class="st">stall</span><span class="rg">v/a/s</span><span class="tx">instruction</span><span class="rs">stall reason</span>');
    host.appendChild(head);
    host.appendChild(scroller);
    var target = -1;
    var first = -1, last = -1;

    function rowHtml(it) {
      if (it < 0) {
        var bl = k.blocks[-it - 1];
        return '<div class="row label" data-block="' + bl.id + '"><span class="ln">' + bl.line + '</span><span class="tx">' + esc(bl.labels.join(', ')) + ':</span>' +
          '<span class="rs dim">block ' + bl.id + ', ' + fmt(bl.walkCycles) + ' cycles in the walk</span></div>';
      }
      var i = it;
      var cls = 'row';
      if (code.kind[i] === KIND_WAIT) cls += ' wait';
      else if (code.kind[i] === KIND_NOP) cls += ' nop';
      if (code.hazard[i]) cls += ' hazard';
      if (code.diag[i]) cls += ' d-' + SEV[code.diag[i]];
      if (code.stall[i] > 0) cls += code.stall[i] >= 64 ? ' stall-hi' : ' stall';
      if (code.moved && code.moved[i]) cls += ' moved';
      if (i === target) cls += ' target';
      var reason = k.reasons[code.reason[i]];
      return '<div class="' + cls + '" data-i="' + i + '" data-line="' + code.line[i] + '"><span class="ln">' + code.line[i] + '</span>' +
        '<span class="is">' + (code.issue[i] < 0 ? '-' : fmt(code.issue[i])) + '</span>' +
        '<span class="st">' + (code.stall[i] ? fmt(code.stall[i]) : '') + '</span>' +
        '<span class="rg">' + code.vgpr[i] + '/' + code.agpr[i] + '/' + code.sgpr[i] + '</span>' +
        '<span class="tx">' + esc(code.text[i]) + '</span><span class="rs" title="' + esc(reason) + '">' + esc(reason) + '</span></div>';
    }
    function render(force) {
      var top = scroller.scrollTop;
      var f = Math.max(0, Math.floor(top / ROW_H) - OVERSCAN);
      var l = Math.min(items.length, Math.ceil((top + scroller.clientHeight) / ROW_H) + OVERSCAN);
      if (!force && f === first && l === last) return;
      first = f; last = l;
      var html = '';
      for (var x = f; x < l; x++) html += rowHtml(items[x]);
      rowsEl.style.transform = 'translateY(' + (f * ROW_H) + 'px)';
      rowsEl.innerHTML = html;
    }
    scroller.addEventListener('scroll', function () { render(false); });
    render(true);
    return {
      element: scroller,
      items: items.length,
      /** Scroll the listing so that instruction i is in the middle, mark it, bring the listing into view. */
      show: function (i) {
        target = i;
        var y = itemOfInsn[i] * ROW_H - scroller.clientHeight / 2 + ROW_H / 2;
        scroller.scrollTop = Math.max(0, y);
        render(true);
        scroller.scrollIntoView({ block: 'nearest' });
      },
      insnAtLine: function (line) {
        var lo = 0, hi = code.line.length - 1, best = -1;
        while (lo <= hi) {
          var mid = (lo + hi) >> 1;
          if (code.line[mid] <= line) { best = mid; lo = mid + 1; } else hi = mid - 1;
        }
        return best;
      },
      render: render,
    };
  }

  // ------------------------------------------------------------------ diagnostics
  function diagnosticsList(k, view) {
    var box = el('div', 'diag-box');
    if (!k.diagnostics.length) { box.innerHTML = '<p class="dim">no findings</p>'; return box; }
    var ol = el('ol', 'diagnostics');
    var html = '';
    k.diagnostics.forEach(function (d, n) {
      var rel = d.related.map(function (r) {
        return '<span class="rel">' + esc(r.message) + ' (line ' + r.line + ')</span>';
      }).join(' ');
      html += '<li class="diag sev-' + d.severity + (d.insn < 0 ? ' nolink' : '') + '" data-n="' + n + '" data-line="' + d.line + '" data-insn="' + d.insn + '">' +
        '<span class="sev">' + d.severity + '</span> <span class="where">line ' + d.line + '</span> ' + esc(d.message) +
        ' <span class="rule">[' + esc(d.rule) + ']</span>' + (rel ? '<div class="related">' + rel + '</div>' : '') + '</li>';
    });
    ol.innerHTML = html;
    ol.addEventListener('click', function (ev) {
      var li = ev.target.closest('li.diag');
      if (!li) return;
      var i = Number(li.getAttribute('data-insn'));
      if (i >= 0) view.show(i);
    });
    box.appendChild(ol);
    return box;
  }

  // ------------------------------------------------------------------ timeline
  /**
   * The timeline of one basic block ('b' + id) or scheduling region ('r' + id), chosen from a list.
   * Returns { select(value) } to show another one.
   */
  function Timeline(k, host, view, initial) {
    var code = k.code;
    var bar = el('div', 'tl-bar');
    var sel = el('select', 'tl-block');
    function group(label, items, value, text) {
      if (!items.length) return;
      var g = document.createElement('optgroup');
      g.label = label;
      items.forEach(function (x) {
        var o = document.createElement('option');
        o.value = value(x);
        o.textContent = text(x);
        g.appendChild(o);
      });
      sel.appendChild(g);
    }
    group('basic blocks', k.blocks.filter(function (b) { return b.end > b.start; }), function (b) { return 'b' + b.id; }, function (b) {
      return 'block ' + b.id + ' (line ' + b.line + (b.labels.length ? ', ' + b.labels[0] : '') + '): ' + (b.end - b.start) + ' instructions, ' + fmt(b.walkCycles) + ' cycles';
    });
    group('scheduling regions', k.regions, function (r) { return 'r' + r.id; }, function (r) {
      return 'region ' + r.id + ' (lines ' + r.lines[0] + '-' + r.lines[1] + ', block ' + r.block + '): ' + r.instructions + ' instructions, ' + fmt(r.cycles) + ' cycles';
    });
    var prev = el('button', 'tl-prev', '&larr;');
    var next = el('button', 'tl-next', '&rarr;');
    var info = el('span', 'tl-info dim');
    bar.appendChild(sel); bar.appendChild(prev); bar.appendChild(next); bar.appendChild(info);
    host.appendChild(bar);
    var legend = el('div', 'tl-legend', '<span class="sw wait"></span>stall <span class="sw issue"></span>issue <span class="sw lat"></span>latency');
    host.appendChild(legend);
    var box = el('div', 'tl-scroll');
    host.appendChild(box);
    var state = { shown: initial, page: 0 };
    sel.value = initial;

    function draw() {
      var id = Number(state.shown.slice(1));
      var b = state.shown.charAt(0) === 'r' ? k.regions[id] : k.blocks[id];
      var reached = [];
      for (var i = b.start; i < b.end; i++) if (code.issue[i] >= 0) reached.push(i);
      var pages = Math.max(1, Math.ceil(reached.length / TL_PAGE));
      state.page = Math.min(state.page, pages - 1);
      var rows = reached.slice(state.page * TL_PAGE, (state.page + 1) * TL_PAGE);
      prev.disabled = state.page === 0;
      next.disabled = state.page >= pages - 1;
      info.textContent = rows.length ? ('instructions ' + (state.page * TL_PAGE + 1) + '-' + (state.page * TL_PAGE + rows.length) + ' of ' + reached.length + ' reached') : 'no instruction of it is reached';
      var t0 = Infinity, t1 = -Infinity;
      rows.forEach(function (i) {
        t0 = Math.min(t0, code.issue[i] - code.wait[i]);
        t1 = Math.max(t1, code.issue[i] + Math.max(code.cost[i], code.latency[i]));
      });
      var W = Math.max(300, box.clientWidth - 16);
      var LEFT = 64;
      var span = Math.max(1, t1 - t0);
      var sx = (W - LEFT - 8) / span;
      var H = rows.length * TL_ROW + 22;
      var s = '<svg class="timeline" xmlns="http://www.w3.org/2000/svg" width="' + W + '" height="' + H + '" data-items="' + rows.length + '">';
      // cycle axis
      var step = Math.pow(10, Math.floor(Math.log10(span / 4)));
      if (span / step > 10) step *= 5; else if (span / step > 5) step *= 2;
      s += '<g class="axis">';
      for (var c = Math.ceil(t0 / step) * step; c <= t1; c += step) {
        var x = LEFT + (c - t0) * sx;
        s += '<line x1="' + x + '" x2="' + x + '" y1="14" y2="' + H + '"/><text x="' + x + '" y="10">' + Math.round(c) + '</text>';
      }
      s += '</g>';
      rows.forEach(function (i, r) {
        var y = 18 + r * TL_ROW;
        var is = code.issue[i];
        var title = 'line ' + code.line[i] + ': ' + code.text[i] + '\nissue ' + fmt(is) + ', stall ' + fmt(code.stall[i]) + ', latency ' + fmt(code.latency[i]) +
          (k.reasons[code.reason[i]] ? '\n' + k.reasons[code.reason[i]] : '');
        s += '<g class="tl-item' + (code.kind[i] === KIND_WAIT ? ' wait' : '') + (code.hazard[i] ? ' hazard' : '') + '" data-i="' + i + '"><title>' + esc(title) + '</title>';
        if (r % 10 === 0) s += '<text class="tl-line" x="2" y="' + (y + TL_ROW - 2) + '">' + code.line[i] + '</text>';
        if (code.wait[i] > 0) s += '<rect class="tl-wait" x="' + (LEFT + (is - code.wait[i] - t0) * sx) + '" y="' + y + '" width="' + Math.max(1, code.wait[i] * sx) + '" height="' + (TL_ROW - 1) + '"/>';
        if (code.latency[i] > code.cost[i]) s += '<rect class="tl-lat" x="' + (LEFT + (is - t0) * sx) + '" y="' + (y + 2) + '" width="' + Math.max(1, code.latency[i] * sx) + '" height="' + (TL_ROW - 5) + '"/>';
        s += '<rect class="tl-issue" x="' + (LEFT + (is - t0) * sx) + '" y="' + y + '" width="' + Math.max(1.5, code.cost[i] * sx) + '" height="' + (TL_ROW - 1) + '"/></g>';
      });
      s += '</svg>';
      box.innerHTML = s;
    }
    function select(value) {
      if (!sel.querySelector('option[value="' + value + '"]')) return false;
      sel.value = value;
      state.shown = value;
      state.page = 0;
      draw();
      return true;
    }
    sel.addEventListener('change', function () { select(sel.value); });
    prev.addEventListener('click', function () { state.page--; draw(); });
    next.addEventListener('click', function () { state.page++; draw(); });
    box.addEventListener('click', function (ev) {
      var g = ev.target.closest('g.tl-item');
      if (g) view.show(Number(g.getAttribute('data-i')));
    });
    draw();
    return { select: select, element: host };
  }

  // ------------------------------------------------------------------ register pressure
  function pressureChart(k, host, view, yMaxShared) {
    var r = k.resources;
    var files = ['vgpr', 'agpr', 'sgpr'].filter(function (f) { return r.fileMax[f] > 0; });
    var xs = new Float64Array(k.instructions);
    for (var i = 0; i < xs.length; i++) xs[i] = i;
    var data = [xs];
    var series = [{ label: 'instruction' }];
    files.forEach(function (f) {
      data.push(Float64Array.from(k.code[f]));
      series.push({ label: f.toUpperCase(), stroke: COLORS[f], width: 1, paths: uPlot.paths.stepped({ align: 1 }), points: { show: false } });
    });
    var refs = pressureRefs(k, files);
    var list = el('ul', 'pressure-lines');
    list.innerHTML = refs.map(function (x) {
      return '<li class="ref ' + x.kind + '" style="color:' + COLORS[x.file] + '">' + esc(x.label) + '</li>';
    }).join('');
    var chartBox = el('div', 'pressure');
    chartBox.setAttribute('data-points', String(k.instructions));
    chartBox.setAttribute('data-series', String(files.length));
    host.appendChild(chartBox);
    host.appendChild(list);
    var width = Math.max(320, host.clientWidth - 8);
    var opts = {
      width: width, height: 240,
      series: series,
      scales: { x: { time: false }, y: { range: function () { return [0, yMaxShared]; } } },
      axes: [{ label: 'instruction' }, { label: 'live registers' }],
      cursor: { drag: { x: true, y: false } },
      hooks: {
        draw: [function (u) {
          var ctx = u.ctx;
          ctx.save();
          refs.forEach(function (x) {
            if (x.regs > yMaxShared) return;
            var y = u.valToPos(x.regs, 'y', true);
            ctx.strokeStyle = COLORS[x.file];
            ctx.fillStyle = COLORS[x.file];
            ctx.setLineDash(x.kind === 'declared' ? [6 * devicePixelRatio, 3 * devicePixelRatio] : [2 * devicePixelRatio, 3 * devicePixelRatio]);
            ctx.lineWidth = devicePixelRatio;
            ctx.beginPath();
            ctx.moveTo(u.bbox.left, y);
            ctx.lineTo(u.bbox.left + u.bbox.width, y);
            ctx.stroke();
          });
          ctx.restore();
          placeLabels(u, refs, yMaxShared);
        }],
      },
    };
    var u = new uPlot(opts, data, chartBox);
    u.over.addEventListener('click', function () {
      var idx = u.cursor.idx;
      if (idx !== null && idx !== undefined) view.show(idx);
    });
    return u;
  }

  /**
   * The reference lines' labels, as elements over the chart: each goes just above or below its
   * line, at the right or the left end, wherever it overlaps no label placed before it; declared
   * limits are placed first. A label that fits nowhere near its line is left out (the list under
   * the chart names every line).
   */
  function placeLabels(u, refs, yMax) {
    var layer = u.over.querySelector('.ref-labels');
    if (!layer) { layer = el('div', 'ref-labels'); u.over.appendChild(layer); }
    layer.innerHTML = '';
    var W = u.over.clientWidth, H = u.over.clientHeight;
    var placed = [];
    var order = refs.filter(function (x) { return x.kind === 'declared'; }).concat(refs.filter(function (x) { return x.kind !== 'declared'; }));
    order.forEach(function (x) {
      if (x.regs > yMax) return;
      var y = u.valToPos(x.regs, 'y');
      var span = el('span', 'ref-label ' + x.kind, esc(x.short));
      span.style.color = COLORS[x.file];
      span.setAttribute('data-regs', String(x.regs));
      layer.appendChild(span);
      var w = span.offsetWidth, h = span.offsetHeight;
      var spots = [[W - w - 4, y - h], [W - w - 4, y + 1], [4, y - h], [4, y + 1]];
      var spot = null;
      for (var s = 0; s < spots.length && !spot; s++) {
        var r = { x: spots[s][0], y: spots[s][1], w: w, h: h };
        if (r.x < 0 || r.y < 0 || r.y + h > H) continue;
        var free = placed.every(function (p) { return r.x + r.w <= p.x || p.x + p.w <= r.x || r.y + r.h <= p.y || p.y + p.h <= r.y; });
        if (free) spot = r;
      }
      if (!spot) { layer.removeChild(span); return; }
      placed.push(spot);
      span.style.left = spot.x + 'px';
      span.style.top = spot.y + 'px';
    });
  }

  /** Reference lines: declared limits and, per file, the occupancy steps up to the first above the peak. */
  function pressureRefs(k, files) {
    var r = k.resources;
    var out = [];
    files.forEach(function (f) {
      if (r.declared && r.declared[f] > 0) {
        out.push({ file: f, kind: 'declared', regs: r.declared[f], short: f.toUpperCase() + ' declared ' + r.declared[f], label: f.toUpperCase() + ': declared ' + r.declared[f] });
      }
      var top = Math.max(r.peak[f].value, r.used[f], r.declared ? r.declared[f] : 0);
      var shown = 0;
      r.breakpoints[f].forEach(function (b) {
        if (b.regs < top || shown === 0 && b.regs >= top) {
          if (b.regs >= top) shown++;
          out.push({ file: f, kind: 'breakpoint', regs: b.regs, short: f.toUpperCase() + ' \u2264' + b.regs + ': ' + b.waves + ' waves', label: f.toUpperCase() + ': up to ' + b.regs + ' registers, ' + b.waves + ' waves/SIMD' });
        }
      });
    });
    return out;
  }

  function yMaxOf(kernels) {
    var m = 8;
    kernels.forEach(function (k) {
      var files = ['vgpr', 'agpr', 'sgpr'].filter(function (f) { return k.resources.fileMax[f] > 0; });
      pressureRefs(k, files).forEach(function (x) { m = Math.max(m, x.regs); });
      files.forEach(function (f) { m = Math.max(m, k.resources.peak[f].value); });
    });
    return Math.ceil(m * 1.05);
  }

  // ------------------------------------------------------------------ one kernel
  /** The timelines and code listings of the panels drawn, by side ('before', 'after', 'only'). */
  var timelines = {};
  var views = {};

  function kernelPanel(k, side, parent, yMax, shown) {
    var sec = el('section', 'kernel');
    sec.setAttribute('data-kernel', k.name);
    sec.setAttribute('data-side', side);
    parent.appendChild(sec);
    sec.appendChild(el('h2', '', (side === 'after' ? 'after: ' : side === 'before' ? 'before: ' : '') + esc(k.name) +
      ' <span class="dim">' + esc(k.file) + ', ' + esc(k.target) + ', line ' + k.line + ', ' + k.instructions + ' instructions</span>'));
    sec.appendChild(el('div', 'summary', summary(k)));
    var codeHost = el('div', 'code-host');
    var view = CodeView(k, codeHost);
    views[side] = view;
    performance.mark('report:code');
    sec.appendChild(el('h3', '', 'Diagnostics (' + k.diagnostics.length + ')'));
    sec.appendChild(diagnosticsList(k, view));
    sec.appendChild(el('h3', '', 'Code <span class="dim">(issue cycle and stall from the single-wave walk; live VGPR/AGPR/SGPR)</span>'));
    sec.appendChild(codeHost);
    view.render(true);
    sec.querySelectorAll('.goto-line').forEach(function (a) {
      a.addEventListener('click', function (ev) {
        ev.preventDefault();
        var i = view.insnAtLine(Number(a.getAttribute('data-line')));
        if (i >= 0) view.show(i);
      });
    });
    sec.appendChild(el('h3', '', 'Timeline <span class="dim">(one wave; click a bar to see its line)</span>'));
    var tl = el('div', 'tl-host');
    sec.appendChild(tl);
    timelines[side] = Timeline(k, tl, view, shown === undefined ? 'b' + k.timelineBlock : shown);
    performance.mark('report:timeline');
    sec.appendChild(el('h3', '', 'Register pressure <span class="dim">(click to see the instruction)</span>'));
    var pr = el('div', 'pressure-host');
    sec.appendChild(pr);
    pressureChart(k, pr, view, yMax);
  }

  function comparison(model, parent) {
    var c = model.comparison;
    var sec = el('section', 'comparison');
    var rows = c.deltas.map(function (d) {
      var cls = d.better === null ? 'same' : d.better ? 'better' : 'worse';
      return '<tr class="' + cls + '"><th>' + esc(d.label) + '</th><td>' + fmt(d.before) + '</td><td>' + fmt(d.after) + '</td><td>' + (d.delta > 0 ? '+' : '') + fmt(d.delta) + '</td></tr>';
    }).join('');
    sec.innerHTML = '<h2>Schedule of ' + esc(c.kernel) + '</h2><p class="dim">' + esc(c.original) + ' &rarr; ' + esc(c.scheduled) + ': ' +
      c.moves.length + ' move' + (c.moves.length === 1 ? '' : 's') + ' in ' + c.regions.length + ' region' + (c.regions.length === 1 ? '' : 's') + '</p>' +
      '<div class="cmp"><table class="deltas"><thead><tr><th>metric</th><th>before</th><th>after</th><th>delta</th></tr></thead><tbody>' + rows + '</tbody></table>' +
      '<div class="moves-box"></div></div>' + loopTable(c);
    sec.querySelector('.moves-box').appendChild(movesByRegion(c));
    sec.addEventListener('click', function (ev) {
      var a = ev.target.closest('a.goto-loop');
      if (!a) return;
      ev.preventDefault();
      var v = views.before;
      var i = v ? v.insnAtLine(Number(a.getAttribute('data-line'))) : -1;
      if (i >= 0) v.show(i);
    });
    parent.appendChild(sec);
  }

  function pct(after, before) {
    if (before === 0) return after === 0 ? '0.0%' : '-';
    var p = (after - before) / before * 100;
    return (p > 0 ? '+' : '') + p.toFixed(1) + '%';
  }

  /** Every loop's cycles per iteration before and after (at the kernel's waves and for one wave), its bound and the gap. */
  function loopTable(c) {
    if (!c.loops.length) return '<p class="dim no-loops">no loop in this kernel</p>';
    var tripFrom = { code: 'from the code', option: 'from --trip', 'default': 'by default' };
    var rows = c.loops.map(function (l) {
      function dir(a, b) { return a === b ? 'same' : a < b ? 'better' : 'worse'; }
      var cls = dir(l.after, l.before);
      var at = l.gapPercent <= 1 ? 'at its bound' : fmt(l.gapPercent) + '%';
      return '<tr class="' + cls + '" data-line="' + l.line + '"><th><a href="#" class="goto-loop" data-line="' + l.line + '">line ' + l.line + '</a></th>' +
        '<td>' + l.instructions + '</td><td title="' + esc(tripFrom[l.tripFrom] || l.tripFrom) + '">' + l.trip + (l.tripFrom === 'code' ? '' : '*') + '</td>' +
        '<td>' + fmt(l.before) + '</td><td>' + fmt(l.after) + '</td><td class="chg">' + pct(l.after, l.before) + '</td>' +
        '<td>' + fmt(l.beforeOne) + '</td><td>' + fmt(l.afterOne) + '</td><td class="chg1 ' + dir(l.afterOne, l.beforeOne) + '">' + pct(l.afterOne, l.beforeOne) + '</td>' +
        '<td>' + fmt(l.bound) + '</td><td class="gap">' + at + '</td><td class="binds">' + esc(l.limiter) + '</td></tr>';
    }).join('');
    var defaulted = c.loops.some(function (l) { return l.tripFrom !== 'code'; });
    return '<h3>Loops <span class="dim">(cycles per iteration in steady state; est_cycles counts each loop times its trip count)</span></h3>' +
      '<table class="loops"><thead>' +
      '<tr><th rowspan="2">loop at</th><th rowspan="2">instructions</th><th rowspan="2">trip</th><th colspan="3">' + c.waves + ' wave' + (c.waves === 1 ? '' : 's') + ' per SIMD</th>' +
      '<th colspan="3">one wave</th><th rowspan="2">lower bound</th><th rowspan="2">gap</th><th rowspan="2">binds</th></tr>' +
      '<tr><th>before</th><th>after</th><th>change</th><th>before</th><th>after</th><th>change</th></tr></thead><tbody>' + rows + '</tbody></table>' +
      (defaulted ? '<p class="dim">* trip count not given by the code: ' + c.loops.filter(function (l) { return l.tripFrom !== 'code'; })[0].trip + ' by default</p>' : '');
  }

  /** The moves, one collapsible group per region (open when there are few); a group's list is drawn when opened. */
  function movesByRegion(c) {
    var box = el('div', 'region-moves-box');
    var fewMoves = c.moves.length <= MOVES_OPEN;
    var head = el('h3', '', 'Moves by region ');
    if (c.regions.length > 1) {
      var openAll = el('button', 'moves-open-all', 'open all');
      var closeAll = el('button', 'moves-close-all', 'close all');
      head.appendChild(openAll); head.appendChild(closeAll);
      openAll.addEventListener('click', function () { box.querySelectorAll('details.region-moves').forEach(function (d) { d.open = true; }); });
      closeAll.addEventListener('click', function () { box.querySelectorAll('details.region-moves').forEach(function (d) { d.open = false; }); });
    }
    box.appendChild(head);
    c.regions.forEach(function (g) {
      var d = el('details', 'region-moves');
      d.setAttribute('data-region', String(g.region));
      var where = g.region < 0 ? 'outside any region' : 'region ' + g.region + ': lines ' + g.lines[0] + '-' + g.lines[1] +
        ' (block ' + g.block + (g.labels.length ? ', ' + g.labels.join(', ') : '') + '; ' + g.instructions + ' instructions)';
      var cyc = g.region < 0 ? '' : ' <span class="cycles dim">(' + fmt(g.cycles[0]) + ' &rarr; ' + fmt(g.cycles[1]) + ' cycles in the walk, ' + pct(g.cycles[1], g.cycles[0]) + ')</span>' +
        ' <a href="#" class="show-region" data-region="' + g.region + '">timeline</a>';
      d.appendChild(el('summary', '', esc(where) + ': <b>' + g.moves.length + '</b> move' + (g.moves.length === 1 ? '' : 's') + cyc));
      var ol = el('ol', 'moves');
      d.appendChild(ol);
      function fill() {
        if (ol.childElementCount || !d.open) return;
        ol.innerHTML = g.moves.map(function (m) { return '<li><code>' + esc(m) + '</code></li>'; }).join('');
      }
      d.addEventListener('toggle', fill);
      if (fewMoves) { d.open = true; fill(); }
      box.appendChild(d);
    });
    box.addEventListener('click', function (ev) {
      var a = ev.target.closest('a.show-region');
      if (!a) return;
      ev.preventDefault();
      var v = 'r' + a.getAttribute('data-region');
      var first = null;
      ['before', 'after'].forEach(function (side) {
        var t = timelines[side];
        if (t && t.select(v) && !first) first = t.element;
      });
      if (first) first.scrollIntoView({ block: 'nearest' });
    });
    return box;
  }

  async function main() {
    var model = await readModel();
    performance.mark('report:model');
    var app = document.getElementById('app');
    var notes = model.notes.length ? ' <span class="dim">' + esc(model.notes.join('; ')) + '</span>' : '';
    document.getElementById('title').innerHTML = esc(model.tool) + ' report: ' + esc(model.file) + ' <span class="dim">(' + esc(model.target) + ')</span>' + notes;
    if (model.after) {
      comparison(model, app);
      var grid = el('div', 'side-by-side');
      app.appendChild(grid);
      var yMax = yMaxOf([model.kernels[0], model.after]);
      var block = model.kernels[0].timelineBlock;
      var left = el('div', 'col'), right = el('div', 'col');
      grid.appendChild(left); grid.appendChild(right);
      kernelPanel(model.kernels[0], 'before', left, yMax, 'b' + block);
      kernelPanel(model.after, 'after', right, yMax, block < model.after.blocks.length ? 'b' + block : undefined);
    } else {
      model.kernels.forEach(function (k) { kernelPanel(k, 'only', app, yMaxOf([k])); });
    }
    performance.mark('report:drawn');
    document.body.setAttribute('data-ready', '1');
  }
  main().catch(function (e) {
    var p = el('pre', 'fatal', esc(e && e.stack ? e.stack : String(e)));
    document.body.appendChild(p);
    console.error(e);
  });
})();
`;
