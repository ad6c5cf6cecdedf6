/* bigchunk report: draws the data of <script id="bc-data"> (report/html.h). */
(function () {
'use strict';
var D = JSON.parse(document.getElementById('bc-data').textContent);
var G = D.geometry, P = D.palette, frames = D.frames;
var HOLE = 0, NOCAND = { 'not-tried': 1, 'invalid-range': 1 };
var cache = [], cur = frames.length - 1, by = 'content', layout = null, drawn = 0;
var $ = function (id) { return document.getElementById(id); };

function hex(v) { return '0x' + v.toString(16); }
function el(tag, text, cls) {
	var e = document.createElement(tag);
	if (text !== undefined && text !== null) e.textContent = String(text);
	if (cls) e.className = cls;
	return e;
}
function secs(ts) { return ((ts - frames[0].ts) / 1e9).toFixed(3) + ' s'; }
function bytes(b64) {
	var s = atob(b64), a = new Uint8Array(s.length);
	for (var k = 0; k < s.length; k++) a[k] = s.charCodeAt(k);
	return a;
}
/* Unsigned LEB128 varints from a base64 string (report/pbmap.h), one at a time. */
function Varints(b64) { this.b = bytes(b64 || ''); this.i = 0; }
Varints.prototype.more = function () { return this.i < this.b.length; };
Varints.prototype.next = function () {
	var v = 0, mul = 1, c;
	do {
		if (this.i >= this.b.length) throw new Error('truncated varint in the report data');
		c = this.b[this.i++];
		v += (c & 127) * mul;
		mul *= 128;
	} while (c & 128);
	return v;
};
var NC = P.counts.length, NPB = G.nr_rows * G.row_pb, countCache = [], runCache = [];
/* Frame i's page counts of every pageblock, NC to a pageblock (P.counts order), decoded
 * on first use; null when the frame has none. */
function counts(i) {
	if (countCache[i] || !frames[i].counts) return countCache[i] || null;
	var t0 = performance.now(), a = new Uint16Array(NPB * NC);
	var r = new Varints(frames[i].counts), pb = 0, t = [], k;
	while (r.more()) {
		var rep = r.next();
		for (k = 0; k < NC; k++) t[k] = r.next();
		if (pb + rep > NPB) break;
		for (var j = 0; j < rep; j++, pb++) for (k = 0; k < NC; k++) a[pb * NC + k] = t[k];
	}
	if (pb !== NPB || r.more())
		throw new Error('frame ' + i + ': page counts for ' + pb + ' of ' + NPB +
				' pageblocks');
	window.bcCountsMs = performance.now() - t0;
	return (countCache[i] = a);
}
/* "free 3, unmovable 509" for pageblock pb of frame i (holes too), or ''. */
function countText(i, pb) {
	var a = counts(i), out = [], sum = 0;
	if (!a) return '';
	for (var k = 0; k < NC; k++) {
		sum += a[pb * NC + k];
		if (a[pb * NC + k]) out.push(P.counts[k] + ' ' + a[pb * NC + k]);
	}
	if (sum < G.pb_pages) out.push('hole ' + (G.pb_pages - sum));
	return out.join(', ');
}
/* Frame i's page runs (class of every page, run-length encoded over the map), decoded
 * on first use: start[k] the page offset of run k from base_pfn, cls[k] its class. */
function runs(i) {
	if (runCache[i] || !frames[i].runs) return runCache[i] || null;
	var t0 = performance.now(), r = new Varints(frames[i].runs), n = 0, at = 0;
	while (r.more()) { r.next(); n++; }
	var start = new Float64Array(n + 1), cls = new Uint8Array(n);
	r.i = 0;
	for (var k = 0; k < n; k++) {
		var v = r.next();
		cls[k] = v % 16;
		start[k] = at;
		at += Math.floor(v / 16);
	}
	start[n] = at;
	window.bcRunsMs = performance.now() - t0;
	if (at !== NPB * G.pb_pages)
		throw new Error('frame ' + i + ': page runs cover ' + at + ' of ' +
				NPB * G.pb_pages + ' pages');
	return (runCache[i] = { start: start, cls: cls, n: n });
}
/* The class of every page of pageblock pb at frame i (a Uint8Array), or null. */
function pagesOf(i, pb) {
	var R = runs(i), off = pb * G.pb_pages, out = new Uint8Array(G.pb_pages), lo = 0, hi;
	if (!R) return null;
	for (hi = R.n - 1; lo < hi;) {
		var mid = Math.ceil((lo + hi) / 2);
		if (R.start[mid] <= off) lo = mid; else hi = mid - 1;
	}
	for (var p = 0, k = lo; p < G.pb_pages; p++) {
		while (R.start[k + 1] <= off + p) k++;
		out[p] = R.cls[k];
	}
	return out;
}
function cells(i) {
	if (!cache[i]) {
		var s = atob(frames[i].cells), a = new Uint8Array(s.length);
		for (var k = 0; k < s.length; k++) a[k] = s.charCodeAt(k);
		cache[i] = a;
	}
	return cache[i];
}
function rgb(h) { return [parseInt(h.substr(1, 2), 16), parseInt(h.substr(3, 2), 16),
			   parseInt(h.substr(5, 2), 16)]; }
var crgb = P.content.map(function (c) { return rgb(c.rgb); });
var mrgb = P.mt.map(function (c) { return rgb(c.rgb); });
function rowStart(r) { return G.base_pfn + r * G.row_pages; }
function zoneOf(pfn) {
	for (var z = 0; z < D.zones.length; z++)
		if (pfn >= D.zones[z].start && pfn < D.zones[z].end) return z;
	return -1;
}
function pbInZone(pfn) { return zoneOf(pfn) >= 0 || zoneOf(pfn + G.pb_pages - 1) >= 0; }
function rowInZones(r) {
	var a = rowStart(r), b = a + G.row_pages;
	return D.zones.some(function (z) { return z.start < b && z.end > a; });
}
/* Pageblock index within row r of the page that stops it, or -1. */
function blockerCol(f, r) {
	var row = f.rows[r];
	if (row.v === 'success' || NOCAND[row.v] || row.pfn === undefined) return -1;
	return Math.floor((row.pfn - rowStart(r)) / G.pb_pages);
}

/* Layout: cell size from the rows' count, the rows that meet a zone. */
function makeLayout() {
	var rows = [];
	for (var r = 0; r < G.nr_rows; r++) if (rowInZones(r)) rows.push(r);
	var avail = Math.max(600, Math.min(window.innerWidth - 80, 1800)) - 190;
	var cw = Math.max(1, Math.min(4, Math.floor(avail / G.row_pb)));
	var ch = rows.length > 256 ? 2 : rows.length > 64 ? 5 : 12;
	return { rows: rows, cw: cw, ch: ch, gap: ch > 4 ? 2 : 0, left: 110,
		 width: 110 + G.row_pb * cw + 150 };
}

function draw() {
	var t0 = performance.now(), f = frames[cur], c = cells(cur), L = layout;
	var cv = $('map'), pitch = L.ch + L.gap;
	cv.width = L.width;
	cv.height = L.rows.length * pitch;
	var ctx = cv.getContext('2d');
	ctx.fillStyle = '#fff';
	ctx.fillRect(0, 0, cv.width, cv.height);
	var w = G.row_pb * L.cw, img = ctx.createImageData(w, cv.height), px = img.data;
	drawn = 0;
	for (var i = 0; i < px.length; i += 4) { px[i] = px[i + 1] = px[i + 2] = 255; px[i + 3] = 255; }
	L.rows.forEach(function (r, y) {
		for (var k = 0; k < G.row_pb; k++) {
			var pb = r * G.row_pb + k, cell = c[pb];
			if (!pbInZone(G.base_pfn + pb * G.pb_pages)) continue;
			drawn++;
			var col = by === 'content' ? crgb[cell & 15] :
				((cell >> 4) & 7) < mrgb.length ? mrgb[(cell >> 4) & 7] : [255, 255, 255];
			if ((cell & 15) === HOLE) col = crgb[HOLE];
			for (var dy = 0; dy < L.ch; dy++) {
				var o = ((y * pitch + dy) * w + k * L.cw) * 4;
				for (var dx = 0; dx < L.cw; dx++, o += 4) {
					px[o] = col[0]; px[o + 1] = col[1]; px[o + 2] = col[2];
				}
			}
		}
	});
	ctx.putImageData(img, L.left, 0);
	ctx.font = Math.min(11, L.ch + 1) + 'px monospace';
	ctx.textBaseline = 'top';
	L.rows.forEach(function (r, y) {
		var top = y * pitch, row = f.rows[r], b = blockerCol(f, r);
		ctx.fillStyle = '#222';
		if (L.ch >= 8 || r % 16 === 0) ctx.fillText(hex(rowStart(r) * 4096), 2, top);
		if (L.ch >= 8) ctx.fillText(row.v === 'success' ? 'ok' : NOCAND[row.v] ? '--' : 'no',
					    L.left + w + 6, top);
		if (b >= 0) {
			ctx.strokeStyle = '#000';
			ctx.lineWidth = 2;
			ctx.strokeRect(L.left + b * L.cw - 2, top - 1, L.cw + 4, L.ch + 2);
		}
		var names = [];
		D.zones.forEach(function (z) {
			if (z.start >= rowStart(r) && z.start < rowStart(r) + G.row_pages) {
				var x = L.left + Math.floor((z.start - rowStart(r)) / G.pb_pages) * L.cw;
				ctx.fillStyle = '#000';
				ctx.fillRect(x, top, 1, L.ch);
				names.push(z.name);
			}
		});
		if (L.ch >= 8 && names.length) ctx.fillText(names.join(' '), L.left + w + 28, top);
	});
	$('point').textContent = f.label + ' at ' + secs(f.ts) + ' (before event ' + f.seq +
		'): ' + f.rows_ok + ' of ' + L.rows.length + ' rows of 1 GiB would succeed';
	window.bcDrawMs = performance.now() - t0;
	blockers();
}

function tipText(r, k) {
	var f = frames[cur], pb = r * G.row_pb + k, cell = cells(cur)[pb];
	var pfn = G.base_pfn + pb * G.pb_pages, z = zoneOf(pfn), row = f.rows[r];
	var s = 'pfns ' + hex(pfn) + '-' + hex(pfn + G.pb_pages) + (z >= 0 ? '  zone ' +
		D.zones[z].name : '') + '\n' + P.content[cell & 15].name + ': ' +
		P.content[cell & 15].text + '\nmigratetype ' +
		(((cell >> 4) & 7) < P.mt.length ? P.mt[(cell >> 4) & 7].name : 'none') +
		'\nrow of 1 GiB: ' + row.v;
	var ct = countText(cur, pb);
	if (ct) s += '\npages: ' + ct + ' (click to zoom)';
	if (blockerCol(f, r) === k && row.blocker) {
		var b = row.blocker;
		s += '\nblocker pfn ' + hex(b.pfn) + ': ' + b.kind + ' (' + b.reason + '), head ' +
			hex(b.head) + ' order ' + b.order;
		if (b.event) {
			var ev = b.event;
			s += '\nallocated at ' + secs(ev.ts) + ' (event ' + ev.seq + ') by ' +
				(ev.comm || '?') + ' pid ' + ev.pid + ', order ' + ev.order +
				', gfp ' + hex(ev.gfp);
			if (ev.stack) s += '\n  ' + ev.stack.slice(0, 12).join('\n  ');
		} else {
			s += '\nallocated before the capture (known from the snapshot)';
		}
	} else if (blockerCol(f, r) === k) {
		s += '\nthe row stops at pfn ' + hex(row.pfn);
	}
	return s;
}

function hover(ev) {
	var L = layout, rect = $('map').getBoundingClientRect();
	var x = ev.clientX - rect.left - L.left, y = ev.clientY - rect.top;
	var k = Math.floor(x / L.cw), i = Math.floor(y / (L.ch + L.gap)), tip = $('tip');
	if (k < 0 || k >= G.row_pb || i < 0 || i >= L.rows.length) { tip.hidden = true; return; }
	tip.textContent = tipText(L.rows[i], k);
	tip.hidden = false;
	tip.style.left = (ev.clientX - rect.left + 16) + 'px';
	tip.style.top = (ev.clientY - rect.top + 16) + 'px';
}

/* Click: the pages of any pageblock, 32 to a line, and their runs. */
function zoom(ev) {
	var L = layout, rect = $('map').getBoundingClientRect(), box = $('zoom');
	var k = Math.floor((ev.clientX - rect.left - L.left) / L.cw);
	var i = Math.floor((ev.clientY - rect.top) / (L.ch + L.gap));
	if (k < 0 || k >= G.row_pb || i < 0 || i >= L.rows.length) return;
	var r = L.rows[i], f = frames[cur], row = f.rows[r], pb = r * G.row_pb + k;
	var pfn = rowStart(r) + k * G.pb_pages, p = pagesOf(cur, pb), z = zoneOf(pfn);
	box.textContent = '';
	if (!p) {
		box.appendChild(el('p', 'This report holds no pages (a synthetic layout).',
			'note'));
		return;
	}
	var s = 12, cv = el('canvas'), ctx = cv.getContext('2d');
	cv.id = 'zoomcv';
	cv.dataset.pages = p.length;
	cv.width = 32 * s;
	cv.height = Math.ceil(p.length / 32) * s;
	for (var j = 0; j < p.length; j++) {
		ctx.fillStyle = P.content[p[j]].rgb;
		ctx.fillRect((j % 32) * s, Math.floor(j / 32) * s, s - 1, s - 1);
	}
	var framed = blockerCol(f, r) === k;
	if (framed) {
		var b = row.blocker ? row.blocker.pfn - pfn : row.pfn - pfn;
		ctx.strokeStyle = '#000';
		ctx.lineWidth = 2;
		ctx.strokeRect((b % 32) * s - 1, Math.floor(b / 32) * s - 1, s + 1, s + 1);
	}
	box.appendChild(el('p', 'Pageblock ' + hex(pfn) + '-' + hex(pfn + G.pb_pages) +
		(z >= 0 ? ' (' + D.zones[z].name + ')' : '') + ' at ' + f.label + ': ' +
		countText(cur, pb) + '. One cell per page, 32 to a line' +
		(framed ? ', the page that stops the row framed' : '') + '.'));
	box.appendChild(cv);
	var list = [];
	for (j = 0; j < p.length; j++) {
		if (j && p[j] === p[j - 1]) { list[list.length - 1][2]++; continue; }
		list.push([hex(pfn + j), P.content[p[j]].name, 1]);
	}
	var det = el('details'), t = table(['first pfn', 'class', 'pages'], list);
	t.id = 'zoomruns';
	det.appendChild(el('summary', list.length + ' run' + (list.length > 1 ? 's' : '') +
		' of pages'));
	det.appendChild(t);
	box.appendChild(det);
}

function legend() {
	var lg = $('legend');
	lg.textContent = '';
	var list = by === 'content' ? P.content : P.mt;
	list.forEach(function (c, i) {
		if (by === 'content' && i === HOLE) return;
		var sw = el('span', '', 'sw');
		sw.style.background = c.rgb;
		lg.appendChild(sw);
		var t = el('span', c.name);
		if (c.text) t.title = c.text;
		lg.appendChild(t);
	});
	lg.appendChild(el('div', 'One row per 1 GiB (each row one 1 GiB candidate), one cell per ' +
		'pageblock of ' + (G.pb_pages * 4) + ' KiB; a black frame marks the page that stops ' +
		'the row\'s 1 GiB allocation, a black bar where a zone begins; ok / no: a 1 GiB ' +
		'allocation in the row alone would succeed / fail, --: no candidate (a hole, two ' +
		'zones, hugetlb). Hover for a pageblock\'s page counts and the row\'s blocker, ' +
		'click for its pages.', 'note'));
}

function table(head, rows) {
	var t = el('table'), tr = el('tr');
	head.forEach(function (h) { tr.appendChild(el('th', h)); });
	t.appendChild(tr);
	rows.forEach(function (r) {
		var tr = el('tr');
		r.forEach(function (v) {
			var td = typeof v === 'number' ? el('td', v, 'n') : el('td');
			if (typeof v === 'object' && v) { var p = el('pre', v.pre); td.appendChild(p); }
			else if (typeof v !== 'number') td.textContent = v === null ? '' : String(v);
			tr.appendChild(td);
		});
		t.appendChild(tr);
	});
	return t;
}

/* The selected point's failing rows by blocker kind and by allocating stack. */
function blockers() {
	var f = frames[cur], kinds = {}, stacks = {}, box = $('blockers');
	f.rows.forEach(function (row, r) {
		if (!row.blocker) return;
		var k = row.blocker.kind === row.blocker.reason ? row.blocker.kind :
			row.blocker.kind + ' (' + row.blocker.reason + ')';
		kinds[k] = kinds[k] || { n: 0, first: hex(row.blocker.pfn) };
		kinds[k].n++;
		var ev = row.blocker.event;
		var key = !ev ? '(allocated before the capture)' : ev.stack ?
			ev.stack.slice(0, 8).join('\n') : '(no stack: record --stacks)';
		stacks[key] = stacks[key] || { n: 0, comm: {} };
		stacks[key].n++;
		if (ev) stacks[key].comm[ev.comm || '?'] = 1;
	});
	box.textContent = '';
	box.appendChild(el('p', 'At ' + f.label + ': 1 GiB candidate rows blocked, by the kind ' +
		'of the page that stops them and by the stack that allocated it.', 'note'));
	box.appendChild(table(['kind', 'rows blocked', 'first pfn'], Object.keys(kinds).map(
		function (k) { return [k, kinds[k].n, kinds[k].first]; })));
	box.appendChild(table(['allocating stack', 'rows blocked', 'comm'], Object.keys(stacks).map(
		function (k) { return [{ pre: k }, stacks[k].n, Object.keys(stacks[k].comm).join(' ')]; })));
}

function svgEl(tag, attrs, text) {
	var e = document.createElementNS('http://www.w3.org/2000/svg', tag);
	Object.keys(attrs).forEach(function (a) { e.setAttribute(a, attrs[a]); });
	if (text !== undefined) e.textContent = text;
	return e;
}

/* Rows that would succeed per frame, stored predictions, real attempts, on one time axis. */
function timeline() {
	var box = $('timeline'), W = 960, H = 220, x0 = 60, x1 = W - 80;
	var ts = frames.map(function (f) { return f.ts; });
	D.predictions.forEach(function (p) { ts.push(p.ts); });
	D.attempts.forEach(function (a) { ts.push(a.ts); });
	var t0 = Math.min.apply(null, ts), t1 = Math.max.apply(null, ts) || t0 + 1;
	var X = function (t) { return x0 + (t1 > t0 ? (t - t0) / (t1 - t0) : 0) * (x1 - x0); };
	var maxr = layout.rows.length || 1, Y = function (n) { return 130 - n / maxr * 110; };
	var svg = svgEl('svg', { width: W, height: H, role: 'img' });
	svg.appendChild(svgEl('line', { x1: x0, y1: 130, x2: x1, y2: 130, stroke: '#888' }));
	svg.appendChild(svgEl('text', { x: 2, y: 24 }, maxr + ' rows'));
	svg.appendChild(svgEl('text', { x: 2, y: 134 }, '0'));
	svg.appendChild(svgEl('text', { x: x0, y: 145 }, '0 s'));
	svg.appendChild(svgEl('text', { x: x1 - 50, y: 145 }, secs(t1)));
	/* 2 MiB: how many would succeed in a row (the simulator's figure), right axis */
	var has2m = frames.some(function (f) { return f.contig_2m !== undefined; });
	var max2 = Math.max.apply(null, frames.map(function (f) { return f.contig_2m || 0; })) || 1;
	var Y2 = function (n) { return 130 - n / max2 * 110; };
	if (has2m) {
		svg.appendChild(svgEl('text', { x: x1 + 6, y: 24 }, max2 + ' x 2 MiB'));
		svg.appendChild(svgEl('text', { x: x1 + 6, y: 134 }, '0'));
		svg.appendChild(svgEl('line', { x1: x1, y1: 20, x2: x1, y2: 130,
			stroke: '#e69f00' }));
		svg.appendChild(svgEl('polyline', { fill: 'none', stroke: '#e69f00',
			'stroke-width': 2, 'stroke-dasharray': '6 3',
			points: frames.map(function (f) {
				return X(f.ts) + ',' + Y2(f.contig_2m); }).join(' ') }));
		frames.forEach(function (f) {
			var c = svgEl('rect', { x: X(f.ts) - 3.5, y: Y2(f.contig_2m) - 3.5,
				width: 7, height: 7, fill: '#e69f00', 'class': 'c2m-pt' });
			c.appendChild(svgEl('title', {}, f.label + ': ' + f.contig_2m +
				' allocations of 2 MiB in a row'));
			svg.appendChild(c);
		});
	}
	svg.appendChild(svgEl('polyline', { fill: 'none', stroke: '#0072b2', 'stroke-width': 2,
		points: frames.map(function (f) { return X(f.ts) + ',' + Y(f.rows_ok); }).join(' ') }));
	frames.forEach(function (f) {
		var c = svgEl('circle', { cx: X(f.ts), cy: Y(f.rows_ok), r: 4, fill: '#0072b2',
					  'class': 'frame-pt' });
		c.appendChild(svgEl('title', {}, f.label + ': ' + f.rows_ok + ' rows of 1 GiB'));
		svg.appendChild(c);
	});
	svg.appendChild(svgEl('text', { x: 2, y: 172 }, 'predicted'));
	D.predictions.forEach(function (p) {
		var c = svgEl('circle', { cx: X(p.ts), cy: 168 + (p.idx % 4) * 3, r: 3, 'class': 'pred',
			fill: p.success ? '#009e73' : '#d55e00' });
		c.appendChild(svgEl('title', {}, 'predict run ' + p.run + ' (' + p.mode + ', ' +
			(p.nr_pages * 4 / 1024) + ' MiB) at ' + secs(p.ts) + ': ' +
			(p.success ? 'success at ' + hex(p.start_pfn) : 'fails' +
			 (p.blocker_kind ? ', ' + p.blocker_kind + ' at ' + hex(p.blocker_pfn) : ''))));
		svg.appendChild(c);
	});
	svg.appendChild(svgEl('text', { x: 2, y: 202 }, 'real'));
	D.attempts.forEach(function (a) {
		var x = X(a.ts), p = svgEl('path', { d: 'M' + (x - 4) + ',204 L' + x + ',196 L' +
			(x + 4) + ',204 Z', 'class': 'attempt', fill: a.success ? '#009e73' : '#d55e00' });
		p.appendChild(svgEl('title', {}, a.kind + ' ' + hex(a.start) + '-' + hex(a.end) + ' at ' +
			secs(a.ts) + ': ' + (a.success ? 'succeeded' : 'failed')));
		svg.appendChild(p);
	});
	box.textContent = '';
	box.appendChild(el('p', 'Blue line (left axis): 1 GiB rows where an allocation would ' +
		'succeed at each point (mainline policy, each row alone). ' + (has2m ? 'Orange ' +
		'dashed line (right axis): how many 2 MiB allocations would succeed in a row ' +
		'(alloc_contig_pages() as hugetlb grows its pool; the free-running simulator\'s ' +
		'figure). ' : '') + 'Dots: the predictions stored in the capture (' +
		D.predictions.length + '; green success, vermillion failure; bigchunk predict ' +
		'--every stores more). Triangles: the real contiguous attempts of the capture.',
		'note'));
	box.appendChild(svg);
	var head = ['point', 'time', '1 GiB rows ok'].concat(has2m ? ['2 MiB in a row'] : []);
	box.appendChild(table(head.concat(D.zones.map(function (z) {
		return z.name + ' largest free'; })), frames.map(function (f) {
		return [f.label, secs(f.ts), f.rows_ok].concat(has2m ? [f.contig_2m] : [],
			f.largest_free.map(function (o) {
			return o < 0 ? 'none' : (Math.pow(2, o) * 4 >= 1024 ? Math.pow(2, o) * 4 / 1024 +
				' MiB' : Math.pow(2, o) * 4 + ' KiB') + ' (order ' + o + ')'; })); })));
}

function pct(v) { return (100 * v).toFixed(3) + '%'; }

/* Pages of 4 KiB as "2 MiB", "1 GiB". */
function size(pages) {
	var kib = pages * 4, u = ['KiB', 'MiB', 'GiB', 'TiB'], i = 0;
	for (; kib >= 1024 && kib % 1024 === 0 && i < 3; i++) kib /= 1024;
	return kib + ' ' + u[i];
}

/* The layouts of the stored compare run side by side, one column each. */
function compare() {
	var box = $('compare'), names = [], v = {};
	box.textContent = '';
	D.compare.forEach(function (c) {
		if (!v[c.layout]) {
			v[c.layout] = { size_pages: c.size_pages };
			names.push(c.layout);
		}
		v[c.layout][c.name] = c.value;
	});
	if (!names.length) {
		box.appendChild(el('p', 'No stored compare run (bigchunk compare FILE.db --size ' +
			'SIZE --layout asis --layout cma:SIZE ... stores one).', 'note'));
		return;
	}
	var get = function (k) {
		return function (l) { return v[l][k] === undefined ? '' : v[l][k]; };
	};
	var prefixed = function (p) {
		return function (l) {
			var b = Object.keys(v[l]).filter(function (k) { return k.indexOf(p) === 0; });
			return { pre: b.map(function (k) { return k.substr(p.length) + ' ' +
				v[l][k]; }).join('\n') || 'none' };
		};
	};
	var lines = [
		['allocation size', function (l) { return size(v[l].size_pages); }],
		['demand (allocations asked)', get('demand')],
		['served', get('served')],
		['served %', function (l) { return v[l].demand ? (100 * v[l].served /
			v[l].demand).toFixed(1) + '%' : ''; }],
		['real attempts served', function (l) { return v[l].real_served + ' of ' +
			v[l].real_attempts; }],
		['pages migrated', get('pages_migrated')],
		['pages migrated per success', function (l) { return v[l].served ?
			+(v[l].pages_migrated / v[l].served).toFixed(1) : ''; }],
		['pages scanned', get('pages_scanned')],
		['idle page-seconds', function (l) { return Math.round(v[l].idle_page_seconds); }],
		['fallbacks', get('fallbacks')],
		['low watermark breaches', get('wmark_breaches')],
		['needed reclaim', get('needed_reclaim')],
		['pageblocks holding unmovable pages (end)', get('unmovable_pageblocks')],
		['seed pages moved out', get('seed_moved_pages')],
		['uninitialised pages freed into the layout', get('initialised_pages')],
		['ZONE_MOVABLE from', function (l) { return v[l].movable_start_pfn ?
			'pfn ' + hex(v[l].movable_start_pfn) : ''; }],
		['blockers of failed requests (stage:kind)', prefixed('blockers.')],
		['ranges rejected on the way (stage:kind)', prefixed('rejected.')],
	];
	box.appendChild(el('p', 'bigchunk compare stored these: the same workload under each ' +
		'layout (the free-running simulator), the demand asked under each; pages migrated ' +
		'by the served requests; idle page-seconds of a reservation or CMA area the demand ' +
		'did not use; fallbacks: allocations from another type\'s list; low watermark ' +
		'breaches: allocations after which the zone was at or below its low watermark ' +
		'(kswapd would wake); needed reclaim: no zone above its min watermark (reclaim not ' +
		'modelled).', 'note'));
	var t = table([''].concat(names), lines.map(function (line) {
		return [line[0]].concat(names.map(line[1]));
	}));
	t.id = 'comparetab';
	box.appendChild(t);
}

function fidelity() {
	var box = $('fidelity');
	box.appendChild(el('p', D.events + ' events replayed; lost events: ' + D.lost_events +
		'; anomalies: ' + (Object.keys(D.anomalies).map(function (k) {
			return k + ' ' + D.anomalies[k]; }).join(', ') || 'none') + '.'));
	box.appendChild(table(['snapshot', 'time', 'free vs in use', 'kind', 'buddyinfo error',
		'pagetypeinfo error', 'uncertain pfns'], D.scores.map(function (s) {
		return ['#' + s.snap, secs(s.ts), pct(s.state), pct(s.kind), pct(s.buddyinfo),
			s.pagetypeinfo.toFixed(4), s.uncertain]; })));
	if (D.checks.length)
		box.appendChild(table(['checker', 'status', 'checks', 'violations', 'inconclusive',
			'explained'], D.checks.map(function (c) { return [c.checker, c.status, c.checks,
			c.violations, c.inconclusive, c.explained]; })));
	else
		box.appendChild(el('p', 'No stored check run (bigchunk check --store adds one).', 'note'));
	if (D.verify.length) {
		var agree = D.verify.filter(function (v) { return v.agree; }).length;
		box.appendChild(el('p', 'predict --verify: ' + agree + ' of ' + D.verify.length +
			' real attempts agree with the prediction.'));
	}
}

/* The mouse event at the middle of cell k of shown row i. */
function cellEvent(type, i, k) {
	var rect = $('map').getBoundingClientRect();
	return new MouseEvent(type, { bubbles: true,
		clientX: rect.left + layout.left + k * layout.cw + layout.cw / 2,
		clientY: rect.top + i * (layout.ch + layout.gap) + layout.ch / 2 });
}

/* Hover and click cell k of shown row i: the tip's text and what the zoom drew. */
function probe(i, k) {
	var res = {};
	$('map').dispatchEvent(cellEvent('click', i, k));
	var cv = $('zoomcv'), runsTab = $('zoomruns');
	res.zoom_pages = cv ? +cv.dataset.pages : 0;
	res.zoom_runs = runsTab ? Array.prototype.slice.call(runsTab.rows, 1).map(function (tr) {
		return [tr.cells[0].textContent, tr.cells[1].textContent, +tr.cells[2].textContent];
	}) : [];
	$('map').dispatchEvent(cellEvent('mousemove', i, k));
	res.text = $('tip').textContent;
	return res;
}

/* With ?selftest: what the browser test checks, as JSON in the pre element "selftest". */
function selftest() {
	var f = frames[frames.length - 1], res = { errors: window.bcErrors.slice(),
		cells: drawn, frames: frames.length, slider: +$('slider').max + 1,
		frame_points: document.querySelectorAll('#timeline .frame-pt').length,
		c2m_points: document.querySelectorAll('#timeline .c2m-pt').length,
		timeline_points: document.querySelectorAll('#timeline .pred').length,
		predictions: D.predictions.length, draw_ms: window.bcDrawMs,
		ready_ms: window.bcReadyMs }, pr, r, k;
	var i = layout.rows.findIndex(function (r) { return f.rows[r].blocker && blockerCol(f, r) >= 0; });
	if (i >= 0) {
		r = layout.rows[i];
		pr = probe(i, blockerCol(f, r));
		res.zoom_pages = pr.zoom_pages;
		res.hover_row = hex(rowStart(r));
		res.hover_pfn = hex(f.rows[r].blocker.pfn);
		res.hover_kind = f.rows[r].blocker.kind;
		res.hover_text = pr.text;
	}
	/* a pageblock that stops no row: the first without holes whose pages are of two
	 * classes or more (the first in a zone when none is) */
	var c = counts(frames.length - 1), pick = null;
	for (var y = 0; c && y < layout.rows.length && !(pick && pick.mixed); y++) {
		r = layout.rows[y];
		for (k = 0; k < G.row_pb; k++) {
			var pb = r * G.row_pb + k, n = 0;
			if (!pbInZone(G.base_pfn + pb * G.pb_pages) || blockerCol(f, r) === k) continue;
			for (var j = 0, sum = 0; j < NC; j++) {
				n += c[pb * NC + j] > 0;
				sum += c[pb * NC + j];
			}
			var mixed = n > 1 && sum === G.pb_pages;
			if (!pick || mixed) pick = { y: y, k: k, pb: pb, mixed: mixed };
			if (mixed) break;
		}
	}
	if (pick) {
		pr = probe(pick.y, pick.k);
		res.nb_pfn = hex(G.base_pfn + pick.pb * G.pb_pages);
		res.nb_text = pr.text;
		res.nb_zoom_pages = pr.zoom_pages;
		/* a known pfn: where the second run of pages starts (else the first page) */
		var run = pr.zoom_runs[pr.zoom_runs.length > 1 ? 1 : 0];
		if (run) {
			res.nb_known_pfn = run[0];
			res.nb_known_class = run[1];
		}
		res.nb_zoom_runs = pr.zoom_runs.length;
		/* the zoom's pages as map --pageblock's characters */
		var ch = {};
		P.content.forEach(function (c) { ch[c.name] = c.ch; });
		res.nb_zoom_chars = pr.zoom_runs.map(function (run) {
			return new Array(run[2] + 1).join(ch[run[1]]); }).join('');
	}
	var tl = document.querySelector('#timeline table'), last = tl.rows[tl.rows.length - 1];
	if (tl.rows[0].cells[3].textContent === '2 MiB in a row')
		res.c2m_end = +last.cells[3].textContent;
	var ct = $('comparetab');
	if (ct) {
		res.compare_layouts = Array.prototype.slice.call(ct.rows[0].cells, 1).map(function (td) {
			return td.textContent; }).join('|');
		var row = function (name) {
			var tr = Array.prototype.find.call(ct.rows, function (r) {
				return r.cells[0].textContent === name; });
			return tr ? Array.prototype.slice.call(tr.cells, 1).map(function (td) {
				return td.textContent; }).join('|') : null;
		};
		res.compare_served = row('served');
		res.compare_wmark = row('low watermark breaches');
	}
	res.counts_ms = window.bcCountsMs;
	res.runs_ms = window.bcRunsMs;
	res.errors = window.bcErrors.slice();
	$('selftest').textContent = JSON.stringify(res);
	$('selftest').hidden = false;
}

var origError = console.error;
console.error = function () {
	window.bcErrors.push(Array.prototype.join.call(arguments, ' '));
	origError.apply(console, arguments);
};
document.title = 'bigchunk report: ' + D.name;
$('name').textContent = D.name;
$('summary').textContent = (D.kernel ? 'kernel ' + D.kernel + ', ' : '') + D.zones.map(
	function (z) { return z.name + ' ' + hex(z.start) + '-' + hex(z.end); }).join(', ') +
	'; ' + frames.length + ' points.';
layout = makeLayout();
$('slider').max = frames.length - 1;
$('slider').value = cur;
$('slider').addEventListener('input', function () { cur = +this.value; draw(); });
$('by').addEventListener('change', function () { by = this.value; legend(); draw(); });
$('map').addEventListener('mousemove', hover);
$('map').addEventListener('click', zoom);
$('map').addEventListener('mouseleave', function () { $('tip').hidden = true; });
legend();
draw();
window.bcReadyMs = performance.now();	/* from navigation start: parse, decode, draw */
timeline();
compare();
fidelity();
if (location.search === '?selftest') selftest();
})();
