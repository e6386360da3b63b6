// Starts the map preview of a Geopub layer or set page (package mappreview).
//
// The element #map carries the map's description in data-map: the vector
// tile URL template (a same-origin path; empty when there are no vector
// layers), the data's bounds, the MVT layer names, the PNG tiles of grid
// and raster layers (template, bounds, maxzoom each) and the style's
// colours. The style draws the raster tiles, then polygons, lines and
// points of every vector layer over a plain background, with no text (so no
// glyphs to fetch). Clicking a vector feature shows its attributes in a
// popup, kept within the map (its rows scroll). When the map is idle
// for the first time the element gets data-state="ready"; on an error,
// data-state="error" and data-error. The map object is el.geopubMap.
(function () {
	'use strict';

	var el = document.getElementById('map');
	if (!el) {
		return;
	}

	function fail(message) {
		el.dataset.state = 'error';
		el.dataset.error = message;
		el.textContent = message;
		el.classList.add('map-failed');
	}

	if (!window.maplibregl) {
		fail('The map could not be loaded.');
		return;
	}

	var cfg = JSON.parse(el.dataset.map);
	// Templates keep their {z}/{x}/{y}: new URL() would percent-encode
	// the braces.
	var sources = {};
	if (cfg.tiles) {
		sources.data = {
			type: 'vector', tiles: [location.origin + cfg.tiles], minzoom: 0, maxzoom: cfg.maxzoom, bounds: cfg.bounds,
		};
	}

	function geometryIs(types) {
		return ['match', ['geometry-type'], types, true, false];
	}
	var polygons = geometryIs(['Polygon', 'MultiPolygon']);
	var lines = geometryIs(['LineString', 'MultiLineString']);
	var points = geometryIs(['Point', 'MultiPoint']);

	var layers = [{ id: 'background', type: 'background', paint: { 'background-color': cfg.background } }];
	cfg.rasters.forEach(function (r, i) {
		var id = 'raster-' + i;
		sources[id] = {
			type: 'raster', tiles: [location.origin + r.tiles], tileSize: 256, minzoom: 0, maxzoom: r.maxzoom, bounds: r.bounds,
		};
		layers.push({ id: id, type: 'raster', source: id, paint: { 'raster-resampling': 'nearest' } });
	});
	var clickable = [];
	cfg.layers.forEach(function (name) {
		var common = { source: 'data', 'source-layer': name };
		var add = function (suffix, def) {
			var layer = Object.assign({ id: name + '-' + suffix }, common, def);
			layers.push(layer);
			clickable.push(layer.id);
		};
		add('fill', { type: 'fill', filter: polygons, paint: { 'fill-color': cfg.fill, 'fill-opacity': cfg.fillOpacity } });
		add('outline', { type: 'line', filter: polygons, paint: { 'line-color': cfg.fill, 'line-width': 1 } });
		add('line', { type: 'line', filter: lines, paint: { 'line-color': cfg.line, 'line-width': 2 } });
		add('point', {
			type: 'circle', filter: points,
			paint: { 'circle-color': cfg.point, 'circle-radius': 4, 'circle-stroke-color': '#ffffff', 'circle-stroke-width': 1 },
		});
	});

	var map;
	try {
		map = new maplibregl.Map({
			container: el,
			style: {
				version: 8,
				sources: sources,
				layers: layers,
			},
			bounds: cfg.bounds,
			fitBoundsOptions: { padding: 24, maxZoom: 17 },
			attributionControl: false,
			// Tiles come from this origin with the page's session cookie.
			transformRequest: function (url) {
				return { url: url, credentials: 'same-origin' };
			},
		});
	} catch (e) {
		fail('This browser cannot draw the map (it needs WebGL).');
		return;
	}
	el.geopubMap = map;
	map.addControl(new maplibregl.NavigationControl({ showCompass: false }));
	map.once('idle', function () {
		if (el.dataset.state !== 'error') {
			el.dataset.state = 'ready';
		}
	});
	map.on('error', function (e) {
		el.dataset.state = 'error';
		el.dataset.error = (e.error && e.error.message) || 'map error';
	});

	// featuresAt are the features drawn within a few pixels of point.
	function featuresAt(point) {
		if (!clickable.length) {
			return [];
		}
		var r = 4;
		return map.queryRenderedFeatures([[point.x - r, point.y - r], [point.x + r, point.y + r]], { layers: clickable });
	}

	// attributeTable is a feature's id and attributes, as text.
	function attributeTable(f) {
		var table = document.createElement('table');
		table.className = 'map-attributes';
		var row = function (name, value) {
			var tr = table.insertRow();
			var th = document.createElement('th');
			th.scope = 'row';
			th.textContent = name;
			tr.appendChild(th);
			tr.insertCell().textContent = value;
		};
		if (f.id !== undefined) {
			row('fid', String(f.id));
		}
		Object.keys(f.properties).forEach(function (k) {
			row(k, String(f.properties[k]));
		});
		return table;
	}

	map.on('click', function (e) {
		var found = featuresAt(e.point);
		if (!found.length) {
			return;
		}
		// The popup stays within the map: its rows scroll in the taller of
		// the spaces above and below the point, where MapLibre then puts
		// it (it would otherwise run past the map's edge and be cut off).
		var body = document.createElement('div');
		body.className = 'map-popup-body';
		var height = map.getContainer().clientHeight;
		body.style.maxHeight = Math.max(48, Math.max(e.point.y, height - e.point.y) - 48) + 'px';
		body.appendChild(attributeTable(found[0]));
		new maplibregl.Popup({ maxWidth: '24rem' })
			.setLngLat(e.lngLat)
			.setDOMContent(body)
			.addTo(map);
	});
	map.on('mousemove', function (e) {
		map.getCanvas().style.cursor = featuresAt(e.point).length ? 'pointer' : '';
	});
})();
