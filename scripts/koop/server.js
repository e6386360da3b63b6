// The ArcGIS source tests' GeoServices REST server: Koop serving the
// GeoJSON files in ./data (relative to the working directory) at
// /file-geojson/rest/services/<file>/FeatureServer on 127.0.0.1, on a
// free port it prints as "LISTEN <port>".
const Koop = require('@koopjs/koop-core');
const koop = new Koop({ logLevel: 'error' });
koop.register(require('@koopjs/provider-file-geojson'), { dataDir: './data' });
const srv = koop.server.listen(0, '127.0.0.1', () => console.log('LISTEN ' + srv.address().port));
