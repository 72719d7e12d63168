// The road traffic mirror's one script: draws every `.map` of a page on its canvas. Pages are
// whole without it (it only adds the map). No library, no other host: the coastline and the
// count points come from this server (their URLs are the map's data attributes): every count
// point from the compact point file, and, zoomed in, those in view from the API, in full.
(function () {
  'use strict';

  // Road category codes (the point data's `categories`) to colours and drawing order: minor
  // roads first, motorways on top. The colours are the stylesheet's legend's.
  var STYLE = {
    TM: { colour: '#1559b8', layer: 4, size: 1.6 },
    PM: { colour: '#1559b8', layer: 4, size: 1.6 },
    TA: { colour: '#17803d', layer: 3, size: 1.4 },
    PA: { colour: '#c0362c', layer: 2, size: 1.3 },
    MB: { colour: '#9a5b00', layer: 1, size: 1.0 },
    MCU: { colour: '#667085', layer: 0, size: 0.9 },
    M: { colour: '#667085', layer: 0, size: 0.9 }
  };
  var OTHER = { colour: '#667085', layer: 0, size: 0.9 };
  // A major road whose file gives no road category (files split by area).
  var MAJOR = { colour: '#1b1f23', layer: 3, size: 1.3 };
  var LAND = '#fbfaf6';
  var COAST = '#9aa6b2';
  var FADED = 'rgba(102, 112, 133, 0.28)';
  // An area's outline (its page's map), and its inside, faintly.
  var OUTLINE = '#6b2fa0';
  var INSIDE = 'rgba(107, 47, 160, 0.08)';
  // The longitude scale of the projection: degrees of longitude are shorter at 54.5°N.
  var K = Math.cos(54.5 * Math.PI / 180);
  // The projection: x = longitude × K, y = latitude, so one unit of either is a degree of
  // latitude, about 111 km.
  var KM_PER_UNIT = 111.2;

  // Zoomed in so that the view's longer side is under this, the map asks the API for the count
  // points in view: the point file places them in steps of ~15 m, which show at that zoom. A
  // view that size holds ~700 count points on average, a few thousand over London.
  var API_SPAN_KM = 60;
  // Records per request (or the server's largest page if smaller), and requests per view at
  // most (next_page_url is followed while a view holds more).
  var API_PAGE_SIZE = 2000;
  var API_PAGES = 10;
  // How long the view must rest after a pan or zoom before it is asked for.
  var API_DELAY_MS = 250;
  // What the point file holds of a count point, so that one from the API is drawn alike.
  var API_FIELDS = 'count_point_id,road_name,road_category,road_type,latitude,longitude,local_authority_id,region_id';

  function decodePoints(buffer) {
    var view = new DataView(buffer);
    var magic = String.fromCharCode(view.getUint8(0), view.getUint8(1), view.getUint8(2), view.getUint8(3));
    if (magic !== 'RTP1') { throw new Error('not map point data'); }
    var n = view.getUint32(4, true);
    var box = [0, 1, 2, 3].map(function (i) { return view.getFloat32(8 + 4 * i, true); });
    var at = 24;
    function take(Type, size) { var a = new Type(buffer, at, n); at += n * size; return a; }
    var p = { n: n };
    p.id = take(Uint32Array, 4);
    var lon = take(Uint16Array, 2);
    var lat = take(Uint16Array, 2);
    p.la = take(Uint16Array, 2);
    p.road = take(Uint16Array, 2);
    p.cat = take(Uint8Array, 1);
    p.region = take(Uint8Array, 1);
    var names = JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, at)));
    p.roads = names.roads;
    p.las = names.localAuthorities;
    p.categories = names.categories;
    p.styles = names.categories.map(function (c) { return STYLE[c] || OTHER; });
    p.styles[254] = MAJOR;
    p.x = new Float32Array(n);
    p.y = new Float32Array(n);
    for (var i = 0; i < n; i++) {
      p.x[i] = (box[0] + lon[i] / 65535 * (box[2] - box[0])) * K;
      p.y[i] = box[1] + lat[i] / 65535 * (box[3] - box[1]);
    }
    layer(p);
    return p;
  }

  // Indexes in drawing order: by layer, so that major roads are drawn over minor ones.
  function layer(p) {
    p.order = Array.from({ length: p.n }, function (_, i) { return i; });
    p.order.sort(function (a, b) { return style(p, a).layer - style(p, b).layer; });
  }

  // The points with the API's records of count points the file does not hold, as new arrays
  // in id order (the map finds a point by id with a binary search).
  function withRecords(p, records) {
    var n = p.n + records.length, q = {
      n: n, roads: p.roads.slice(), las: p.las, categories: p.categories, styles: p.styles,
      id: new Uint32Array(n), la: new Uint16Array(n), road: new Uint16Array(n),
      cat: new Uint8Array(n), region: new Uint8Array(n), x: new Float32Array(n), y: new Float32Array(n)
    };
    var roadIndex = {};
    q.roads.forEach(function (name, i) { roadIndex[name] = i; });
    records.sort(function (a, b) { return a.count_point_id - b.count_point_id; });
    for (var i = 0, j = 0, k = 0; k < n; k++) {
      if (j >= records.length || (i < p.n && p.id[i] < records[j].count_point_id)) {
        ['id', 'la', 'road', 'cat', 'region', 'x', 'y'].forEach(function (a) { q[a][k] = p[a][i]; });
        i++;
        continue;
      }
      var r = records[j++], road = r.road_name || '';
      if (!(road in roadIndex)) { roadIndex[road] = q.roads.length; q.roads.push(road); }
      var cat = p.categories.indexOf(r.road_category);
      q.id[k] = r.count_point_id;
      q.la[k] = r.local_authority_id || 0;
      q.road[k] = roadIndex[road];
      q.cat[k] = cat >= 0 ? cat : (r.road_type === 'Major' ? 254 : 255);
      q.region[k] = r.region_id || 0;
      q.x[k] = r.lon * K;
      q.y[k] = r.lat;
    }
    layer(q);
    return q;
  }

  function style(p, i) { return p.styles[p.cat[i]] || OTHER; }

  // The coastline's rings in the map's coordinates, and its box (where rings were cut).
  function decodeOutline(json) {
    var rings = json.rings.map(function (flat) {
      var ring = [];
      var x = 0, y = 0;
      for (var i = 0; i < flat.length; i += 2) {
        x += flat[i]; y += flat[i + 1];
        ring.push([x / json.scale * K, y / json.scale]);
      }
      return ring;
    });
    var b = json.box;
    return { rings: rings, box: [b[0] * K, b[1], b[2] * K, b[3]] };
  }

  // An area's GeoJSON Feature (Polygon or MultiPolygon, lon/lat) as rings in the map's
  // coordinates, with their box; null for anything else.
  function decodeArea(feature) {
    var g = feature && feature.geometry;
    if (!g || (g.type !== 'Polygon' && g.type !== 'MultiPolygon')) { return null; }
    var polygons = g.type === 'Polygon' ? [g.coordinates] : g.coordinates, rings = [];
    var box = [Infinity, Infinity, -Infinity, -Infinity];
    polygons.forEach(function (polygon) {
      polygon.forEach(function (ring) {
        rings.push(ring.map(function (c) {
          var x = c[0] * K, y = c[1];
          box = [Math.min(box[0], x), Math.min(box[1], y), Math.max(box[2], x), Math.max(box[3], y)];
          return [x, y];
        }));
      });
    });
    return rings.length ? { rings: rings, box: box } : null;
  }

  // Whether a place is inside an area's rings (even-odd: a hole's ring takes it out again).
  function insideRings(rings, x, y) {
    var inside = false;
    for (var r = 0; r < rings.length; r++) {
      var ring = rings[r];
      for (var i = 0, j = ring.length - 1; i < ring.length; j = i++) {
        var a = ring[i], b = ring[j];
        if ((a[1] > y) !== (b[1] > y) && x < (b[0] - a[0]) * (y - a[1]) / (b[1] - a[1]) + a[0]) { inside = !inside; }
      }
    }
    return inside;
  }

  function MapView(el, points, outline, area) {
    this.el = el;
    this.area = area;
    this.canvas = el.querySelector('canvas');
    this.tip = el.querySelector('.map-tip');
    this.p = points;
    this.outline = outline;
    this.focusKind = el.dataset.focus;
    this.focusId = Number(el.dataset.focusId);
    this.api = el.dataset.api;
    this.pageSize = Math.min(API_PAGE_SIZE, Number(el.dataset.maxPageSize) || API_PAGE_SIZE);
    this.inFocus = this.focusTest();
    this.selected = -1;
    this.resize();
    this.reset();
    this.listen();
    var me = this;
    new ResizeObserver(function () { me.resize(); me.draw(); }).observe(this.canvas);
  }

  MapView.prototype.focusTest = function () {
    var p = this.p, id = this.focusId;
    if (this.focusKind === 'region') { return function (i) { return p.region[i] === id; }; }
    if (this.focusKind === 'local-authority') { return function (i) { return p.la[i] === id; }; }
    var area = this.area;
    if (this.focusKind === 'area' && area) {
      return function (i) {
        var x = p.x[i], y = p.y[i], b = area.box;
        return x >= b[0] && x <= b[2] && y >= b[1] && y <= b[3] && insideRings(area.rings, x, y);
      };
    }
    return null;
  };

  MapView.prototype.resize = function () {
    var r = this.canvas.getBoundingClientRect();
    this.w = Math.max(1, r.width);
    this.h = Math.max(1, r.height);
    this.ratio = window.devicePixelRatio || 1;
    this.canvas.width = Math.round(this.w * this.ratio);
    this.canvas.height = Math.round(this.h * this.ratio);
  };

  // Fits the view to what the map is about: GB, an area's points, or one count point.
  MapView.prototype.reset = function () {
    var p = this.p, box = [-8.2 * K, 49.9, 1.8 * K, 60.9];
    if (this.area) {
      box = pad(this.area.box, 0.08);
    } else if (this.inFocus) {
      var b = [Infinity, Infinity, -Infinity, -Infinity];
      for (var i = 0; i < p.n; i++) {
        if (this.inFocus(i)) {
          b = [Math.min(b[0], p.x[i]), Math.min(b[1], p.y[i]), Math.max(b[2], p.x[i]), Math.max(b[3], p.y[i])];
        }
      }
      if (b[0] <= b[2]) { box = pad(b, 0.08); }
    } else if (this.focusKind === 'count-point') {
      var at = this.indexOf(this.focusId), spot = this.spot();
      if (at >= 0) { this.selected = at; spot = [p.x[at], p.y[at]]; }
      if (spot) { box = [spot[0] - 0.3, spot[1] - 0.18, spot[0] + 0.3, spot[1] + 0.18]; }
    }
    this.cx = (box[0] + box[2]) / 2;
    this.cy = (box[1] + box[3]) / 2;
    this.scale = Math.min(this.w / (box[2] - box[0]), this.h / (box[3] - box[1]));
    this.home = { cx: this.cx, cy: this.cy, scale: this.scale };
  };

  // Where the page says its count point is (for one not among the map's points).
  MapView.prototype.spot = function () {
    var lat = parseFloat(this.el.dataset.lat), lon = parseFloat(this.el.dataset.lon);
    return isFinite(lat) && isFinite(lon) ? [lon * K, lat] : null;
  };

  function pad(b, share) {
    var dx = Math.max(b[2] - b[0], 0.05) * share + 0.01, dy = Math.max(b[3] - b[1], 0.03) * share + 0.01;
    return [b[0] - dx, b[1] - dy, b[2] + dx, b[3] + dy];
  }

  MapView.prototype.indexOf = function (id) {
    var ids = this.p.id, lo = 0, hi = ids.length - 1;
    while (lo <= hi) {
      var mid = (lo + hi) >> 1;
      if (ids[mid] === id) { return mid; }
      if (ids[mid] < id) { lo = mid + 1; } else { hi = mid - 1; }
    }
    return -1;
  };

  MapView.prototype.sx = function (x) { return this.w / 2 + (x - this.cx) * this.scale; };
  MapView.prototype.sy = function (y) { return this.h / 2 - (y - this.cy) * this.scale; };

  MapView.prototype.draw = function () {
    var ctx = this.canvas.getContext('2d');
    ctx.setTransform(this.ratio, 0, 0, this.ratio, 0, 0);
    ctx.clearRect(0, 0, this.w, this.h);
    this.drawLand(ctx);
    this.drawArea(ctx);
    var drawn = this.drawPoints(ctx);
    this.el.dataset.drawn = String(drawn);
    this.el.classList.add('ready');
    this.askLater();
  };

  // The land, filled; its coast stroked, but not where a ring was clipped to the data's box.
  MapView.prototype.drawLand = function (ctx) {
    var me = this, paths = this.ringPaths(this.outline.rings, function (a, b) { return me.onEdge(a, b); });
    ctx.fillStyle = LAND;
    ctx.fill(paths.fill, 'evenodd');
    ctx.strokeStyle = COAST;
    ctx.lineWidth = 1;
    ctx.stroke(paths.line);
  };

  // The area of the page, if any: its inside tinted, its outline stroked (holes too).
  MapView.prototype.drawArea = function (ctx) {
    if (!this.area) { return; }
    var path = this.ringPaths(this.area.rings, null).fill;
    ctx.fillStyle = INSIDE;
    ctx.fill(path, 'evenodd');
    ctx.strokeStyle = OUTLINE;
    ctx.lineWidth = 2;
    ctx.stroke(path);
    this.el.dataset.areaRings = String(this.area.rings.length);
  };

  // Rings on the screen: `fill`, each closed; `line`, their segments but those `cut` says are
  // no edge (where the coastline was clipped to its box).
  MapView.prototype.ringPaths = function (rings, cut) {
    var fill = new Path2D(), line = new Path2D();
    for (var r = 0; r < rings.length; r++) {
      var ring = rings[r];
      for (var i = 0; i < ring.length; i++) {
        var x = this.sx(ring[i][0]), y = this.sy(ring[i][1]);
        if (i === 0) { fill.moveTo(x, y); line.moveTo(x, y); continue; }
        fill.lineTo(x, y);
        if (cut && cut(ring[i - 1], ring[i])) { line.moveTo(x, y); } else { line.lineTo(x, y); }
      }
      fill.closePath();
    }
    return { fill: fill, line: line };
  };

  // Whether a segment of the outline runs along an edge of its box (a cut, not a coast).
  MapView.prototype.onEdge = function (a, b) {
    var box = this.outline.box, e = 1e-6;
    return (Math.abs(a[0] - box[0]) < e && Math.abs(b[0] - box[0]) < e) ||
      (Math.abs(a[0] - box[2]) < e && Math.abs(b[0] - box[2]) < e) ||
      (Math.abs(a[1] - box[1]) < e && Math.abs(b[1] - box[1]) < e) ||
      (Math.abs(a[1] - box[3]) < e && Math.abs(b[1] - box[3]) < e);
  };

  // Draws the points in view, minor roads first; returns how many were drawn.
  MapView.prototype.drawPoints = function (ctx) {
    var p = this.p, drawn = 0, grow = Math.min(3, Math.max(1, Math.sqrt(this.scale / 40)));
    for (var k = 0; k < p.n; k++) {
      var i = p.order[k];
      var x = this.sx(p.x[i]), y = this.sy(p.y[i]);
      if (x < -5 || y < -5 || x > this.w + 5 || y > this.h + 5) { continue; }
      var s = style(p, i), r = s.size * grow;
      ctx.fillStyle = this.inFocus && !this.inFocus(i) ? FADED : s.colour;
      ctx.fillRect(x - r, y - r, 2 * r, 2 * r);
      drawn++;
    }
    var mark = this.selected >= 0 ? [p.x[this.selected], p.y[this.selected]] : (this.focusKind === 'count-point' && this.spot());
    if (mark) {
      ctx.beginPath();
      ctx.arc(this.sx(mark[0]), this.sy(mark[1]), 9, 0, 2 * Math.PI);
      ctx.lineWidth = 3;
      ctx.strokeStyle = '#1b1f23';
      ctx.stroke();
      // A count point known only from the page (not among the map's points) is drawn too.
      if (this.selected < 0) { drawn++; }
    }
    return drawn;
  };

  // The point nearest a place on the canvas, within a few pixels; -1 if none.
  MapView.prototype.pointAt = function (px, py) {
    var p = this.p, best = -1, bestD = 64;
    for (var i = 0; i < p.n; i++) {
      var dx = this.sx(p.x[i]) - px, dy = this.sy(p.y[i]) - py, d = dx * dx + dy * dy;
      if (d < bestD || (d === bestD && best >= 0 && style(p, i).layer > style(p, best).layer)) { best = i; bestD = d; }
    }
    return best;
  };

  MapView.prototype.describe = function (i) {
    var p = this.p, road = p.roads[p.road[i]] || 'Unnamed road', la = p.las[String(p.la[i])];
    return road + ' · count point ' + p.id[i] + (la ? ' · ' + la : '');
  };

  // A count point's page, in the release the map's page is of (`data-prefix`: /releases/NAME).
  MapView.prototype.pageOf = function (i) {
    return (this.el.dataset.prefix || '') + '/manualcountpoints/' + this.p.id[i];
  };

  // Shows a point's road and id by the pointer; `pinned` (a tap) adds a link to its page.
  MapView.prototype.showTip = function (i, px, py, pinned) {
    var tip = this.tip;
    tip.textContent = this.describe(i);
    if (pinned) {
      var a = document.createElement('a');
      a.href = this.pageOf(i);
      a.textContent = 'Open this count point';
      tip.appendChild(document.createElement('br'));
      tip.appendChild(a);
    }
    tip.classList.add('shown');
    tip.classList.toggle('pinned', !!pinned);
    tip.style.left = Math.min(px + 12, this.w - 200) + 'px';
    tip.style.top = Math.max(py - 40, 4) + 'px';
  };

  MapView.prototype.hideTip = function () { this.tip.classList.remove('shown', 'pinned'); this.tip.textContent = ''; };

  MapView.prototype.zoom = function (factor, px, py) {
    var x = this.cx + (px - this.w / 2) / this.scale, y = this.cy - (py - this.h / 2) / this.scale;
    this.scale = Math.min(Math.max(this.scale * factor, this.home.scale / 4), 200000);
    this.cx = x - (px - this.w / 2) / this.scale;
    this.cy = y + (py - this.h / 2) / this.scale;
    this.schedule();
  };

  MapView.prototype.pan = function (dx, dy) {
    this.cx -= dx / this.scale;
    this.cy += dy / this.scale;
    this.schedule();
  };

  MapView.prototype.schedule = function () {
    var me = this;
    if (this.pending) { return; }
    this.pending = true;
    requestAnimationFrame(function () { me.pending = false; me.draw(); });
  };

  MapView.prototype.listen = function () {
    var me = this, c = this.canvas, pointers = {}, drag = null, pinch = null;
    function local(e) { var r = c.getBoundingClientRect(); return [e.clientX - r.left, e.clientY - r.top]; }
    c.addEventListener('wheel', function (e) {
      e.preventDefault();
      var at = local(e);
      me.zoom(Math.pow(1.0015, -e.deltaY), at[0], at[1]);
    }, { passive: false });
    c.addEventListener('pointerdown', function (e) {
      pointers[e.pointerId] = local(e);
      c.setPointerCapture(e.pointerId);
      var ids = Object.keys(pointers);
      if (ids.length === 1) { drag = { start: local(e), last: local(e), moved: false }; }
      if (ids.length === 2) { pinch = distance(pointers[ids[0]], pointers[ids[1]]); drag = null; }
    });
    c.addEventListener('pointermove', function (e) {
      var at = local(e);
      if (pointers[e.pointerId]) { pointers[e.pointerId] = at; }
      var ids = Object.keys(pointers);
      if (pinch && ids.length === 2) {
        var d = distance(pointers[ids[0]], pointers[ids[1]]);
        var mid = [(pointers[ids[0]][0] + pointers[ids[1]][0]) / 2, (pointers[ids[0]][1] + pointers[ids[1]][1]) / 2];
        me.zoom(d / pinch, mid[0], mid[1]);
        pinch = d;
      } else if (drag) {
        if (Math.abs(at[0] - drag.start[0]) + Math.abs(at[1] - drag.start[1]) > 4) { drag.moved = true; c.classList.add('dragging'); }
        if (drag.moved) { me.pan(at[0] - drag.last[0], at[1] - drag.last[1]); me.hideTip(); }
        drag.last = at;
      } else if (e.pointerType === 'mouse') {
        me.hover(at);
      }
    });
    function end(e) {
      var at = local(e), wasDrag = drag && drag.moved;
      delete pointers[e.pointerId];
      c.classList.remove('dragging');
      if (Object.keys(pointers).length < 2) { pinch = null; }
      if (drag && !wasDrag && e.type === 'pointerup') { me.pick(at, e.pointerType !== 'mouse'); }
      drag = null;
    }
    c.addEventListener('pointerup', end);
    c.addEventListener('pointercancel', end);
    c.addEventListener('pointerleave', function (e) { if (e.pointerType === 'mouse' && !me.tip.classList.contains('pinned')) { me.hideTip(); } });
    c.addEventListener('keydown', function (e) { me.key(e); });
    this.el.querySelectorAll('[data-zoom]').forEach(function (b) {
      b.addEventListener('click', function () {
        var how = b.dataset.zoom;
        if (how === 'reset') { me.reset(); me.draw(); } else { me.zoom(how === 'in' ? 2 : 0.5, me.w / 2, me.h / 2); }
      });
    });
  };

  function distance(a, b) { return Math.max(1, Math.hypot(a[0] - b[0], a[1] - b[1])); }

  MapView.prototype.hover = function (at) {
    var i = this.pointAt(at[0], at[1]);
    this.canvas.classList.toggle('over-point', i >= 0);
    if (i >= 0) { this.showTip(i, at[0], at[1], false); } else if (!this.tip.classList.contains('pinned')) { this.hideTip(); }
  };

  // A click opens the count point's page; a tap first shows its road and id, with a link.
  MapView.prototype.pick = function (at, touch) {
    var i = this.pointAt(at[0], at[1]);
    if (i < 0) { this.hideTip(); return; }
    if (touch) { this.showTip(i, at[0], at[1], true); } else { window.location.href = this.pageOf(i); }
  };

  MapView.prototype.key = function (e) {
    var step = 60, keys = {
      ArrowLeft: function (m) { m.pan(step, 0); }, ArrowRight: function (m) { m.pan(-step, 0); },
      ArrowUp: function (m) { m.pan(0, step); }, ArrowDown: function (m) { m.pan(0, -step); },
      '+': function (m) { m.zoom(2, m.w / 2, m.h / 2); }, '=': function (m) { m.zoom(2, m.w / 2, m.h / 2); },
      '-': function (m) { m.zoom(0.5, m.w / 2, m.h / 2); }, '0': function (m) { m.reset(); m.draw(); }
    };
    if (keys[e.key]) { e.preventDefault(); keys[e.key](this); }
  };

  // The view in the map's units: west, south, east, north.
  MapView.prototype.viewBox = function () {
    var dx = this.w / 2 / this.scale, dy = this.h / 2 / this.scale;
    return [this.cx - dx, this.cy - dy, this.cx + dx, this.cy + dy];
  };

  // Asks the API for the count points in view once the view has rested (after each draw:
  // pans, zooms, resets and resizes all draw).
  MapView.prototype.askLater = function () {
    var me = this;
    if (!this.api) { return; }
    clearTimeout(this.askTimer);
    this.askTimer = setTimeout(function () { me.ask(); }, API_DELAY_MS);
  };

  // Zoomed in, the count points in and around the view from the API, unless its answer is
  // held or on its way. The request of a view left behind is cancelled; a failed one leaves
  // the point file's count points drawn, and the next move asks again. The state is the
  // map's `data-api-state` (off, asking, answered, failed), for tests.
  MapView.prototype.ask = function () {
    var v = this.viewBox(), me = this;
    if (Math.max(v[2] - v[0], v[3] - v[1]) * KM_PER_UNIT > API_SPAN_KM) {
      this.cancel();
      this.el.dataset.apiState = 'off';
      return;
    }
    if (this.covered && contains(this.covered, v)) { this.cancel(); return; }
    if (this.inFlight && contains(this.inFlight.box, v)) { return; }
    this.cancel();
    var box = pad(v, 0.25), flight = { box: box, control: new AbortController() };
    this.inFlight = flight;
    this.el.dataset.apiState = 'asking';
    listing(this.bboxUrl(box), flight.control.signal, API_PAGES).then(function (found) {
      if (me.inFlight !== flight) { return; }
      me.inFlight = null;
      me.covered = box;
      me.merge(found);
      me.el.dataset.apiState = 'answered';
      me.el.dataset.apiRecords = String(found.length);
      me.schedule();
    }, function () {
      // Cancelled (a newer view is asked for), or failed: the file's points stay.
      if (me.inFlight !== flight) { return; }
      me.inFlight = null;
      me.el.dataset.apiState = 'failed';
    });
  };

  MapView.prototype.cancel = function () {
    if (this.inFlight) { this.inFlight.control.abort(); this.inFlight = null; }
  };

  // The API's count points in a box of the map's units: its corners in degrees (the
  // projection's inverse: longitude = x / K, latitude = y), rounded outwards to ~1 m.
  MapView.prototype.bboxUrl = function (box) {
    var down = function (d) { return (Math.floor(d * 1e5) / 1e5).toFixed(5); };
    var up = function (d) { return (Math.ceil(d * 1e5) / 1e5).toFixed(5); };
    var bbox = [down(box[0] / K), down(box[1]), up(box[2] / K), up(box[3])].join(',');
    return this.api + '?filter[bbox]=' + bbox + '&fields=' + API_FIELDS + '&page[size]=' + this.pageSize;
  };

  // The API's records merged with the points: a count point the file holds takes its exact
  // place, one it does not hold is added.
  MapView.prototype.merge = function (found) {
    var p = this.p, added = [];
    for (var k = 0; k < found.length; k++) {
      var r = found[k], lat = parseFloat(r.latitude), lon = parseFloat(r.longitude);
      if (!isFinite(lat) || !isFinite(lon)) { continue; }
      var i = this.indexOf(r.count_point_id);
      if (i >= 0) { p.x[i] = lon * K; p.y[i] = lat; } else { r.lon = lon; r.lat = lat; added.push(r); }
    }
    if (!added.length) { return; }
    this.p = withRecords(p, added);
    this.inFocus = this.focusTest();
    if (this.focusKind === 'count-point') { this.selected = this.indexOf(this.focusId); }
  };

  function contains(outer, inner) {
    return outer[0] <= inner[0] && outer[1] <= inner[1] && outer[2] >= inner[2] && outer[3] >= inner[3];
  }

  // Where a count point is on the screen (for tests, and anyone scripting the page).
  MapView.prototype.screenPosition = function (id) {
    var i = this.indexOf(id), r = this.canvas.getBoundingClientRect();
    return i < 0 ? null : [r.left + this.sx(this.p.x[i]), r.top + this.sy(this.p.y[i])];
  };

  function load(url, how, signal) {
    return fetch(url, { credentials: 'same-origin', signal: signal }).then(function (r) {
      if (!r.ok) { throw new Error(url + ': ' + r.status); }
      return r[how]();
    });
  }

  // The records of a paginated listing from `url` on, following next_page_url for at most
  // `pages` pages; only its path and query are taken, so that every request stays on this
  // server whatever host the envelope names (--public-url).
  function listing(url, signal, pages) {
    return load(url, 'json', signal).then(function (page) {
      var next = pages > 1 && page.next_page_url && new URL(page.next_page_url, location.href);
      if (!next) { return page.data; }
      return listing(next.pathname + next.search, signal, pages - 1).then(function (rest) {
        return page.data.concat(rest);
      });
    });
  }

  function start(el) {
    // An area's outline, when the map is of one: without it the map is still drawn.
    var area = el.dataset.area ? load(el.dataset.area, 'json').catch(function () { return null; }) : null;
    Promise.all([load(el.dataset.points, 'arrayBuffer'), load(el.dataset.outline, 'json'), area])
      .then(function (data) {
        var map = new MapView(el, decodePoints(data[0]), decodeOutline(data[1]), decodeArea(data[2]));
        el.roadtrafficMap = map;
        map.draw();
        // When the map was first painted, for anyone measuring the page (bench/site.sh).
        if (window.performance && performance.mark) { performance.mark('map-painted'); }
      })
      .catch(function (err) {
        el.querySelector('.map-fallback').textContent = 'The map could not be drawn (' + err.message + '). The tables list the same count points.';
        throw err;
      });
  }

  document.querySelectorAll('.map').forEach(start);
})();
